"""Typing into the search bar while searches are slow: the header names the words typed, saying "searching…" until
their results are listed, and an older query's result never replaces a newer one's."""

from __future__ import annotations

import threading

from readlist.tui.screens.searcher import Searcher
from readlist.tui.widgets.search_bar import SearchBar

from .conftest import settle, wait_until, widget_text


def slowed(index, slow: str, release: threading.Event) -> None:
    """Searches of `slow` (the index's own search otherwise) wait for `release` before they answer."""
    search = index.search

    def held(query, *args, **kwargs):
        if query == slow:
            release.wait(timeout=30)
        return search(query, *args, **kwargs)

    index.search = held


def header(app) -> str:
    return widget_text(app, "#status")


async def test_the_header_names_the_words_typed_searching_until_their_results_are_listed(app):
    release = threading.Event()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        slowed(app.main_screen.searcher.index, "graph", release)
        await pilot.press("slash", *"graph")
        await wait_until(pilot, lambda: "query: graph searching…" in header(app), "the words typed, searching")
        assert "match" not in header(app)  # no count of papers matching older words
        release.set()
        await wait_until(pilot, lambda: "→ 1 match" in header(app), "the search's count")
        assert "query: graph → 1 match" in header(app) and "searching" not in header(app)


async def test_an_older_querys_result_never_replaces_a_newer_ones(app, monkeypatch):
    release = threading.Event()
    taken = []
    apply = Searcher.apply_result

    def apply_result(self, text, result):
        taken.append(text)
        apply(self, text, result)

    monkeypatch.setattr(Searcher, "apply_result", apply_result)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        slowed(main.searcher.index, "graph", release)
        bar = main.query_one(SearchBar)
        bar.value = "graph"  # one search, held
        await wait_until(pilot, lambda: "query: graph searching…" in header(app), "the first search under way")
        bar.value = "tables"
        await wait_until(pilot, lambda: "query: tables searching…" in header(app), "the second search on its way")
        release.set()  # the first answers now, after the second was asked for
        await wait_until(pilot, lambda: "→ 1 match" in header(app), "the second search's count")
        await settle(pilot)
        assert taken == ["tables"]
        assert "query: tables → 1 match" in header(app)
        assert main.current_paper.text.startswith("We introduce TableBench")


async def test_the_header_names_new_words_as_soon_as_the_bar_holds_them(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        status = app.main_screen.query_one("#status")
        bar = app.main_screen.query_one(SearchBar)
        bar.value = "graph n"  # nothing handled since: the header drawn next must say so already
        assert "query: graph n" in status.content.plain and "searching…" in status.content.plain
        await settle(pilot)
        assert "query: graph n" in header(app) and "searching" not in header(app)


async def test_slash_focuses_the_search_bar_without_measuring_the_whole_screen_to_scroll_it_into_view(app):
    # The bar is docked at the top, always in view: checking whether it was (every widget of the screen placed
    # again) held the UI 60 ms at the first `/` of a start.
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        checked = []
        view_entire = screen.can_view_entire
        screen.can_view_entire = lambda widget: checked.append(widget) or view_entire(widget)
        await pilot.press("slash", *"graph")
        await wait_until(pilot, lambda: "query: graph" in header(app), "the words typed")
        assert screen.focused is screen.query_one("#search") and checked == []
