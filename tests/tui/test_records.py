"""A paper's record in the UI: the detail pane's authors, venue, ids and links, where its title comes from, the
list's year-and-author column, and `o`/`O` reaching the paper."""

from __future__ import annotations

from pathlib import Path

from readlist.core.papers.formats import load_papers
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.dialogs.links import LinksScreen

from .conftest import notifications, settle, wait_for_screen, wait_until, widget_text

FIXTURES = Path(__file__).parents[1] / "fixtures"


def fixture_app(tmp_path, name: str) -> ReadlistApp:
    return ReadlistApp(load_papers(FIXTURES / name), tmp_path / "db.json", cursor_blink=False)


async def test_o_opens_the_pdf_of_a_paper_from_an_arxiv_feed(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = fixture_app(tmp_path, "arxiv-3.atom")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await wait_until(pilot, lambda: opened, "the link opened")
        assert opened == ["http://arxiv.org/pdf/2210.12590v2"]


async def test_capital_o_lists_every_link_and_opens_the_one_chosen(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = fixture_app(tmp_path, "arxiv-3.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        shown = widget_text(app, "#links-list")
        for label_and_url in (
            "Landing page https://arxiv.org/abs/2210.12590",
            "DOI https://doi.org/10.48550/arXiv.2210.12590",
            "Search arXiv for the title https://arxiv.org/search/?query=Meta-Reinforcement+Learning+for+Building",
        ):
            assert label_and_url in shown
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: opened, "the chosen link opened")
        assert opened == ["https://doi.org/10.48550/arXiv.2210.12590"]
        assert app.screen is app.main_screen

        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen, "the dialog closed")
        await settle(pilot)
        assert len(opened) == 1


async def test_the_web_search_setting_chooses_the_search_and_a_bad_one_is_said(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    monkeypatch.setenv("READLIST_WEB_SEARCH", "scholar")
    app = fixture_app(tmp_path, "arxiv-3.jsonl")  # ids but no links: the first paper has no DOI
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        assert "Search Google Scholar for the first sentence" in widget_text(app, "#links-list")
        await pilot.press("escape")
        monkeypatch.setenv("READLIST_WEB_SEARCH", "altavista")
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        assert "Search arXiv for the title" in widget_text(app, "#links-list")
        told = [n.message for n in notifications(app)]
        assert any(m.startswith("READLIST_WEB_SEARCH is 'altavista': expected 'arxiv' or 'scholar'") for m in told)
