"""Moving around the list, the search bar, panes and layouts, as a user does with the keyboard and mouse."""

from __future__ import annotations

import random
from urllib.parse import quote_plus

import pytest
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.strip import Strip

from readlist.tui.screens.dialogs.help import HelpScreen
from readlist.tui.widgets import detail_body, paper_row
from readlist.tui.widgets.detail import DetailPane
from readlist.tui.widgets.detail_body import DetailBody
from readlist.tui.widgets.paper_list import DRAWN_ROWS, PaperListView
from readlist.tui.widgets.paper_row import RowLook, fit
from readlist.tui.widgets.search_bar import SearchBar

from .conftest import (
    PAPERS,
    as_drawn,
    as_textual_draws,
    count_layouts,
    count_styled_lines,
    make_app,
    notifications,
    press_together,
    redrawn,
    screen_cells,
    screen_text,
    settle,
    wait_for_related,
    wait_for_screen,
    wait_until,
    widget_text,
)


def current_title(app) -> str:
    main = app.main_screen
    return main.current_paper.title if main.current_paper else ""


async def test_first_paint_shows_list_header_and_detail(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Test list" in text
        assert "5 papers · 0 read · 0 reading · 0 starred" in text
        assert "FastDiff" in text  # first row and the detail pane
        assert app.main_screen.query_one(PaperListView).has_focus


async def test_j_k_arrows_move_and_drive_the_detail_pane(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = current_title(app)
        await pilot.press("j")
        second = current_title(app)
        assert second != first
        await pilot.press("down", "down")
        assert app.main_screen.paper_list.cursor == 3
        await pilot.press("k", "up")
        assert current_title(app) == second
        await settle(pilot)
        assert second[:30] in screen_text(app)


async def test_g_G_home_end_and_pages(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 24)) as pilot:
        await settle(pilot)
        plist = app.main_screen.paper_list
        await pilot.press("G")
        assert plist.cursor == 18
        await pilot.press("g")
        assert plist.cursor == 0
        await pilot.press("end")
        assert plist.cursor == 18
        await pilot.press("home")
        assert plist.cursor == 0
        await pilot.press("pagedown")
        page = plist.cursor
        assert page > 5
        await pilot.press("pageup")
        assert plist.cursor == 0


async def test_search_bar_keys(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        search = app.main_screen.query_one(SearchBar)
        assert search.has_focus
        await pilot.press(*"graph")
        await settle(pilot)
        assert app.main_screen.view.matches == 1
        assert "1 match" in screen_text(app)
        await pilot.press("enter")
        assert app.main_screen.paper_list.has_focus
        assert search.value == "graph"
        assert app.main_screen.current_paper.text.startswith("Graph neural networks")
        await pilot.press("slash", "escape")
        await settle(pilot)
        assert search.value == "" and search.has_focus
        assert app.main_screen.paper_list.row_count == 5
        await pilot.press("escape")
        assert app.main_screen.paper_list.has_focus


async def test_no_match_empty_state(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"xyzzyq")
        await settle(pilot)
        assert "No papers match 'xyzzyq' — Esc clears the search" in screen_text(app)
        await pilot.press("escape")
        await settle(pilot)
        assert "No papers match" not in screen_text(app)


async def test_no_match_under_a_quick_filter_says_the_filter_may_hide_them(app):
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f", "f", "f", "f", "slash", *"curvature")  # the starred filter; the paper is not
        await settle(pilot)
        assert app.main_screen.view.quick_filter == "starred"
        assert "No starred papers match 'curvature' — Esc clears the search, f changes the filter" in screen_text(app)


async def test_keys_that_act_on_a_paper_say_so_in_an_empty_view(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"xyzzyq", "enter")
        await settle(pilot)
        for key in ("n", "t", "T", "y", "o", "O", "x", "R"):
            notifications(app).clear()
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is app.main_screen, key  # no dialog opened on nothing
            messages = [n.message for n in notifications(app)]
            assert messages and messages[-1].startswith(("No paper selected", "No papers in this view")), key


async def test_tab_moves_between_panes(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("tab")
        assert main.query_one(DetailPane).has_focus_within
        await pilot.press("shift+tab")
        assert main.paper_list.has_focus


async def test_the_header_fits_a_narrow_terminal_with_whole_words(tmp_path):
    abstracts = [
        f"Study {n} of agent {'memory' if n % 20 == 0 else 'planning'} in language model systems." for n in range(2000)
    ]
    app = make_app(tmp_path, "\n\n".join(["A long reading list of agent papers", *abstracts]) + "\n")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f", "slash", *"agent memory")
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header.endswith("2000 papers · 0● 0◐ 0★  filter: unread  → 100 matches (+1900 partial)")
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        header = screen_text(app).splitlines()[0].strip()
        assert header.endswith("0 starred  filter: unread  → 100 matches (+1900 missing a word)")


async def test_enter_toggles_detail_in_narrow_layout(app):
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        main = app.main_screen
        assert main.has_class("narrow")
        assert not main.query_one(DetailPane).display or main.query_one(DetailPane).region.width == 0
        await pilot.press("enter")
        await settle(pilot)
        assert main.query_one(DetailPane).region.width == 60 - 0
        assert "needs four steps. Code:" in screen_text(app)  # the abstract, in the detail pane
        await pilot.press("enter")
        await settle(pilot)
        assert main.paper_list.region.width > 0


async def test_quit(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def test_quick_filter_cycles(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("s")  # star the first paper
        await settle(pilot)
        seen = []
        for _ in range(5):
            await pilot.press("f")
            await settle(pilot)
            seen.append((main.view.quick_filter, main.paper_list.row_count if main.paper_list.display else 0))
        assert [name for name, _ in seen] == ["unread", "reading", "read", "starred", "all"]
        assert dict(seen)["starred"] == 1
        assert dict(seen)["reading"] == 0
        assert dict(seen)["all"] == 5
        assert main.paper_list.has_focus  # back after the empty views hid it


async def test_click_selects_row(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        plist = app.main_screen.paper_list
        await pilot.click(PaperListView, offset=(5, 2))
        await settle(pilot)
        assert plist.cursor == 2


async def test_open_link_opens_the_abstracts_link_else_a_web_search_for_the_title(app, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert opened == ["https://example.org/fastdiff"]
        await pilot.press("j", "o")  # no link in this abstract: searched for on arXiv (it opened nothing)
        await settle(pilot)
        title = app.main_screen.listed_title(app.papers.papers[1])
        assert opened[1] == f"https://arxiv.org/search/?query={quote_plus(title)}&searchtype=all"


async def test_open_link_without_a_browser_shows_the_link(app, monkeypatch):
    monkeypatch.setattr("webbrowser.open", lambda url: False)  # no browser (e.g. over SSH)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        told = [n.message for n in notifications(app)]
        assert any(m.startswith("Could not open a browser for https://example.org/fastdiff") for m in told)
        assert not any(m.startswith(("Opening", "Opened")) for m in told)
        assert app.clipboard == "https://example.org/fastdiff"  # to paste into a browser elsewhere


async def test_copy_puts_title_and_abstract_on_clipboard(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        assert "FastDiff" in app.clipboard and "four steps" in app.clipboard


async def test_help_screen_lists_every_key(app):
    from readlist.tui.actions import ACTIONS

    async with app.run_test(size=(120, 80)) as pilot:  # all of it on one screen
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_for_screen(pilot, HelpScreen)
        text = screen_text(app)
        for action in ACTIONS:
            assert action.help[:25] in text
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "MainScreen"


async def test_help_screen_says_backspace_goes_back_from_a_palette_jump_too(app):
    async with app.run_test(size=(120, 80)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_for_screen(pilot, HelpScreen)
        assert "(to a related paper, or from the palette)" in " ".join(screen_text(app).split())


async def test_every_declared_action_has_someone_to_do_it(app):
    from readlist.tui.actions import ACTIONS

    async with app.run_test(size=(120, 40)):
        main = app.main_screen
        for action in ACTIONS:
            assert callable(getattr(getattr(main, action.by), f"action_{action.action}", None)), action.action
            assert getattr(type(main), f"action_{action.action}").__doc__ == action.help


async def test_help_screen_says_esc_in_the_list_brings_back_what_a_related_jump_cleared(app):
    async with app.run_test(size=(120, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_for_screen(pilot, HelpScreen)
        app.screen.query_one("#help-dialog").scroll_end(animate=False)
        await pilot.pause()
        lines = [" ".join(line.split()) for line in screen_text(app).splitlines()]
        [row] = [n for n, line in enumerate(lines) if "List Esc Clear the search; after a related-paper jump" in line]
        assert "back the search and filter it cleared" in lines[row + 1]


async def test_help_screen_is_readable_on_a_small_terminal(tmp_path):
    for size in ((60, 20), (80, 24)):
        app = make_app(tmp_path)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.press("question_mark")
            await wait_for_screen(pilot, HelpScreen)
            text = screen_text(app)
            if size == (60, 20):
                assert "Move to the previous paper" in text  # whole, not a word per line
                assert "Group" not in text
            else:
                assert "Group" in text  # left out only where it crowds the descriptions


async def type_in_palette(pilot, query: str) -> None:
    """Open the command palette and type `query`; its providers answer in workers, which are waited for."""
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*query)
    await settle(pilot)


async def test_palette_jumps_to_paper_by_fuzzy_title(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await type_in_palette(pilot, "TableBnch")
        await pilot.press("enter")
        await settle(pilot)
        assert "TableBench" in current_title(app)


async def test_palette_puts_the_action_named_by_the_query_first(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        for query in ("star", "read"):  # longer lines mention "starred" and "reading" too
            await type_in_palette(pilot, query)
            await pilot.press("enter")
            await settle(pilot)
        note = app.store.get(paper.id)
        assert note.starred and note.status == "read"


async def move_filter_and_theme(pilot) -> str:
    """Go down three papers, filter the unread ones and choose the nord theme; the id of the paper selected."""
    app = pilot.app
    await settle(pilot)
    await pilot.press("j", "j", "j", "f")
    app.theme = "nord"
    await settle(pilot)
    return app.main_screen.current_paper.id


async def test_last_paper_filter_and_theme_restored(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        chosen = await move_filter_and_theme(pilot)
        await pilot.press("q")
    again = make_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert again.main_screen.view.quick_filter == "unread"
        assert again.main_screen.current_paper.id == chosen
        assert again.theme == "nord"


async def test_the_paper_filter_and_theme_are_saved_while_the_app_runs(tmp_path):
    from readlist.tui.state import UiState, load_state

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        chosen = UiState(await move_filter_and_theme(pilot), "unread", "nord")
        # a terminal killed now keeps the place: before, the file was written on q only
        await wait_until(pilot, lambda: load_state(app.state_path) == chosen, "the UI state saved")
        await pilot.press("k")
        await settle(pilot)
        moved = UiState(app.main_screen.current_paper.id, "unread", "nord")
        await wait_until(pilot, lambda: load_state(app.state_path) == moved, "the new paper saved")


async def test_markup_and_control_characters_show_literally(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j")
        await settle(pilot)
        text = screen_text(app)
        assert "[/bold] markup [link=x]and" in text
        assert "\x1b" not in text and "\x07" not in text


async def test_layout_sizes_have_no_overlap(tmp_path):
    for size in [(60, 20), (80, 24), (160, 48)]:
        app = make_app(tmp_path, bundled=True)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            main = app.main_screen
            plist, detail = main.query_one("#list-pane"), main.query_one(DetailPane)
            assert plist.region.width > 0
            if size[0] >= 100:
                assert detail.region.width > 0
                assert not plist.region.overlaps(detail.region)
            else:
                assert detail.region.width == 0 or not detail.display
            search = main.query_one(SearchBar)
            assert not search.region.overlaps(plist.region)
            assert plist.region.bottom <= size[1]


async def test_empty_paper_file_says_what_to_do(tmp_path):
    from readlist.core.papers.paper import PaperList

    app = make_app(tmp_path)
    app.papers = PaperList(path=str(tmp_path / "none.txt"), name="none.txt", papers=())
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "No papers in" in screen_text(app)


async def test_keys_typed_right_after_slash_go_to_the_search_bar(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # All keys queued at once, as a fast typist or a paste delivers them: none may run as a command.
        for key in ["slash", *"pst"]:
            app.post_message(events.Key(key, key if len(key) == 1 else "/"))
        await settle(pilot)
        assert app.main_screen.query_one(SearchBar).value == "pst"
        assert type(app.screen).__name__ == "MainScreen"
        assert not any(note.starred for note in app.store.all().values())  # `s` was typed, not run
        await pilot.press("slash", "x")  # in the bar, `/` is just a character
        assert app.main_screen.query_one(SearchBar).value == "pst/x"


async def test_a_slash_pasted_into_the_search_bar_stays_where_it_was_typed(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_together(pilot, *"/encoder/")  # typed from the list faster than it is read
        assert app.main_screen.query_one(SearchBar).value == "encoder/"
        await press_together(pilot, *"decoder [/bold]")  # a paste without bracketed paste
        assert app.main_screen.query_one(SearchBar).value == "encoder/decoder [/bold]"


async def test_title_search_looks_at_the_titles_the_list_shows(tmp_path):
    text = (
        "Reasoning over tables is hard for language models. We introduce TableBench, a benchmark of "
        "table questions with verified answers.\n\n"
        "Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy.\n"
    )
    app = make_app(tmp_path, text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.main_screen.paper_list.row_count == 2
        assert "TableBench: " in screen_text(app)  # the derived title leads with the name
        await pilot.press("slash", *"title:tablebench")
        await settle(pilot)
        assert app.main_screen.view.matches == 1
        assert app.main_screen.current_paper.text.startswith("Reasoning over tables")
        await pilot.press(*["backspace"] * len("tablebench"), *"hard")
        await settle(pilot)
        assert app.main_screen.view.matches == 0  # in the abstract's first sentence, not in its title
    # every derived title was cached on disk for the next start
    assert list((tmp_path / "home" / ".cache" / "readlist" / "titles").glob("*.titles"))


def cursor_row_on_screen(plist) -> bool:
    top = int(plist.scroll_offset.y)
    return top <= plist.cursor < top + plist.scrollable_content_region.height


async def test_clearing_a_short_search_scrolls_the_list_to_the_selected_paper(tmp_path):
    app = make_app(tmp_path, bundled=True)  # 19 papers: longer than the list at 60x20
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        main, plist = app.main_screen, app.main_screen.paper_list
        for clear in (["escape"], ["enter", "escape"]):  # Esc in the bar, or Esc in the list
            await pilot.press("g", "slash", *"title:rledit")
            await settle(pilot)
            chosen = main.current_paper
            await pilot.press(*clear)
            await settle(pilot)
            assert main.current_paper is chosen and plist.row_count == 19
            assert plist.cursor >= plist.scrollable_content_region.height  # below the first screenful
            assert cursor_row_on_screen(plist), clear
            assert main.listed_title(chosen)[:20] in screen_text(app)


async def test_the_last_paper_is_scrolled_into_view_on_start(tmp_path):
    from readlist.core.files.paths import ui_state_path
    from readlist.tui.state import UiState, save_state

    app = make_app(tmp_path, bundled=True)
    last = app.papers.papers[-2]
    save_state(ui_state_path(tmp_path / "db.json"), UiState(paper=last.id))
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        assert app.main_screen.current_paper.id == last.id
        assert cursor_row_on_screen(app.main_screen.paper_list)
        await pilot.resize_terminal(60, 12)
        await settle(pilot)
        assert cursor_row_on_screen(app.main_screen.paper_list)


async def test_the_palette_lists_quit_once(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await type_in_palette(pilot, "quit")
        from textual.command import CommandList

        shown = [str(option.prompt) for option in app.screen.query_one(CommandList).options]
        assert sum("Quit" in line for line in shown) == 1, shown  # before: readlist's and Textual's own


def test_the_readmes_table_of_keys_names_every_declared_key():
    """The README's table of keys is written by hand: every key ACTIONS declares is in it."""
    from pathlib import Path

    from readlist.tui.actions import ACTIONS

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Keys\n\n", 1)[1].split("\n\n", 1)[0]
    for action in ACTIONS:
        for key in action.display_keys.split():
            assert (f"`{key}`" if len(key) == 1 else key) in table, (action.action, key)


def test_every_key_the_readmes_table_names_is_declared_for_the_keys_and_the_help():
    """The other way round: the README names no key that ACTIONS (or the help's rows for the search bar and the
    list) does not declare, so it cannot promise a key the app lacks."""
    import re
    from pathlib import Path

    from readlist.tui.actions import ACTIONS
    from readlist.tui.screens.dialogs.help import EXTRA

    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Keys\n\n", 1)[1].split("\n\n", 1)[0]
    declared = {key for action in ACTIONS for key in action.display_keys.split()}
    declared |= {key for _, keys, _ in EXTRA for key in re.split(r"[ /]+", keys)}
    for row in table.splitlines()[2:]:
        keys = row.split("|")[1].replace("`", "")
        named = {key.rstrip(",") for key in keys.split() if key != "/"}  # "`g` `G` / Home End, PgUp PgDn"
        assert named <= declared, row


async def test_the_palette_finds_a_paper_by_the_words_the_search_bar_finds_it_by(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.main_screen.searcher.index is not None, "the search index")
        await type_in_palette(pilot, "zebra pde")  # "pde" is in the abstract only, and "Zebra" in the title
        assert "matched: zebra, pde" in screen_text(app)  # it says what it matched
        await pilot.press("enter")
        await settle(pilot)
        assert current_title(app).startswith("Zebra")  # before: no paper, the palette matched titles only


async def test_the_search_bar_opens_again_with_the_words_cleared_last_selected(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        search = app.main_screen.query_one(SearchBar)
        await pilot.press("slash", *"graph", "enter", "escape")  # Esc in the list clears the search
        await settle(pilot)
        assert search.value == "" and app.main_screen.paper_list.row_count == 5
        await pilot.press("slash")
        await settle(pilot)
        assert search.value == "graph"  # before: an empty bar
        assert app.main_screen.view.matches == 1
        await pilot.press("escape", "escape", "slash")  # cleared in the bar, left, opened again
        await settle(pilot)
        assert search.value == "graph" and search.has_focus
        await pilot.press(*"tab")  # typing replaces the words brought back
        await settle(pilot)
        assert search.value == "tab"
        assert app.main_screen.current_paper.text.startswith("We introduce TableBench")


async def test_a_60_by_20_detail_keeps_quit_in_the_footer_and_shows_more_abstract_than_related_papers(app):
    """At 60×20 the detail's footer lost "Quit" to Esc's key, and the abstract got three lines above five related."""
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        assert "q Quit" in lines[-1] and "esc List" in lines[-1]
        detail = app.main_screen.query_one(DetailPane)
        body, related = detail.query_one("#detail-body"), detail.query_one("#detail-related")
        assert related.region.height == 3
        assert body.region.height >= 11  # title, origin, ids and a blank, then six lines of abstract


async def test_moving_down_shows_each_paper_and_its_related_without_laying_the_screen_out(tmp_path, monkeypatch):
    # A layout pass costs the whole screen's: at 100k papers it was most of a navigation key's time (two per key,
    # the related papers' list emptied and filled again).
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_related(pilot)
        main = app.main_screen
        layouts = count_layouts(monkeypatch)
        for row, key in enumerate(["j", "j", "down", "j"], 1):
            await pilot.press(key)
            await wait_for_related(pilot)
            assert main.paper_list.cursor == row and main.current_paper.index == row + 1
            assert main.query_one(DetailPane).related_positions  # found again, for this paper
            assert current_title(app)[:30] in widget_text(app, "#detail-body")
        await pilot.press("pagedown")
        await wait_for_related(pilot)
        assert main.paper_list.cursor > 4 and current_title(app)[:30] in widget_text(app, "#detail-body")
        assert not layouts


async def test_the_detail_scrollbar_is_drawn_again_only_when_its_thumb_changes(tmp_path):
    long_abstract = " ".join(["Attention over long documents needs sparse patterns to scale."] * 60)
    text = PAPERS + "\n" + long_abstract + "\n"
    app = make_app(tmp_path, text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = app.main_screen.query_one(DetailBody)
        bar = body.vertical_scrollbar
        drawn: list[int] = []
        refresh = bar.refresh
        bar.refresh = lambda *args, **kwargs: (drawn.append(1), refresh(*args, **kwargs))[1]
        await pilot.press("j", "j", "j")  # short papers: the bar has no thumb on any of them
        await pilot.pause()
        assert "Reinforcement" not in body.plain and "TableBench" in body.plain
        assert drawn == []
        await pilot.press("j", "j")  # a paper longer than the pane: its thumb is drawn at once
        await pilot.pause()
        assert "sparse patterns" in body.plain
        assert drawn and bar.window_virtual_size == body.virtual_size.height > bar.window_size
        await pilot.press("k")  # and gone again on a short one
        await pilot.pause()
        assert "Reinforcement" in body.plain and bar.window_virtual_size == body.virtual_size.height
        assert bar.window_virtual_size <= bar.window_size


async def test_the_detail_scrollbar_keeps_what_it_drew_for_a_thumb_that_comes_back(tmp_path, monkeypatch):
    # Drawn again through Textual's widget drawing at each paper of another length (about 1 ms a paper at 100k
    # papers, where most lengths come back): a thumb in a place drawn before shows the lines drawn then.
    from textual.scrollbar import ScrollBarRender

    sentences = " ".join(["Attention over long documents needs sparse patterns to scale."] * 40)
    longer = " ".join(["Attention over long documents needs sparse patterns to scale."] * 70)
    text = f"Lengths\n\nAlpha. {sentences}\n\nBravo. {longer}\n\nGamma. {sentences}\n\nShort one.\n"
    app = make_app(tmp_path, text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = app.main_screen.query_one(DetailBody)
        bar = body.vertical_scrollbar
        drawn: list[int] = []
        render = ScrollBarRender.__rich_console__
        monkeypatch.setattr(
            ScrollBarRender, "__rich_console__", lambda self, *args: (drawn.append(1), render(self, *args))[1]
        )
        shown = {}
        for key, paper, new in [
            ("j", "Bravo.", True),
            ("j", "Gamma.", False),
            ("k", "Bravo.", False),
            ("j", "Gamma.", False),
        ]:
            drawn.clear()
            await pilot.press(key)
            await pilot.pause()
            assert f"\n{paper} Attention" in body.plain and bar.window_virtual_size > bar.window_size
            assert bool(drawn) == new, (key, paper)
            cells = screen_cells(app, bar.region)
            assert cells == [[(text, style) for text, style in line] for line in as_textual_draws(bar)], paper
            shown.setdefault(paper, cells)
            assert cells == shown[paper]
        assert shown["Gamma."] != shown["Bravo."]
        await pilot.press("j")  # a short paper: no thumb, drawn as Textual draws it
        await pilot.pause()
        assert screen_cells(app, bar.region) == as_textual_draws(bar)


async def test_scrolling_a_long_list_draws_its_scrollbar_again_only_when_its_thumb_moves(tmp_path):
    # Over thousands of rows the thumb moves by an eighth of a cell every few rows scrolled: drawing the whole bar
    # again at each one cost more than the row scrolled in.
    text = "Many\n\n" + "\n\n".join(f"Study number {n} of sparse attention in long documents." for n in range(3000))
    app = make_app(tmp_path, text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper_list = app.main_screen.paper_list
        bar = paper_list.vertical_scrollbar
        drawn: list[int] = []
        refresh = bar.refresh
        bar.refresh = lambda *args, **kwargs: (drawn.append(1), refresh(*args, **kwargs))[1]
        first = screen_cells(app, bar.region)
        height = paper_list.scrollable_content_region.height
        await pilot.press(*["j"] * height)  # the cursor on the bottom row: each key from here scrolls by one
        drawn.clear()
        for _ in range(40):
            await pilot.press("j")
            shown = screen_cells(app, bar.region)
            redrawn(bar)  # the bar drawn from scratch shows the same: it was never left behind
            await pilot.pause()
            assert screen_cells(app, bar.region) == shown
        assert paper_list.scroll_offset.y == 41
        assert 1 <= len(drawn) <= 8  # the thumb moved a few times in 40 rows scrolled, and was drawn then
        assert screen_cells(app, bar.region) != first


async def test_the_list_and_the_detail_reach_the_screen_as_textual_draws_them_without_its_styles_pass(
    tmp_path, monkeypatch
):
    # Textual's styles pass copied and styled each line again whenever it was shown, a row scrolled as much as a
    # new one: a third of the drawing at each key at 100k papers, for widgets it has nothing to add to.
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "j", "r", "v")  # a star, a status, a mark
        await settle(pilot)
        styled = count_styled_lines(monkeypatch)
        await pilot.press("j", "j", "pagedown", "k")
        await pilot.pause()
        main = app.main_screen
        body = main.query_one(DetailBody)
        assert not [widget for widget in styled if widget in (main.paper_list, body)]
        for widget in (main.paper_list, body, main.paper_list.vertical_scrollbar):
            assert as_drawn(widget) == as_textual_draws(widget)
        await pilot.press("slash", *"graph", "enter")  # the words found, highlighted in both
        await settle(pilot)
        assert main.view.search_text == "graph"
        for widget in (main.paper_list, body):
            assert as_drawn(widget) == as_textual_draws(widget)
        monkeypatch.undo()
        main.paper_list.styles.padding = (0, 1)  # a style the lines need framing for: Textual's own way
        await pilot.pause()
        assert as_drawn(main.paper_list) == as_textual_draws(main.paper_list)


async def test_the_list_highlights_the_cursors_row_and_shows_each_mark_at_once_after_every_key(tmp_path):
    # Rows are kept once drawn: the cursor leaving a row, a star or a mark must show in the frame of the key.
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main, paper_list = app.main_screen, app.main_screen.paper_list
        cursor = paper_list.get_component_rich_style("paper-list--cursor").bgcolor

        def rows() -> list[list[tuple[str, object]]]:
            return screen_cells(app, paper_list.content_region)

        def shown(row: int) -> str:
            return "".join(text for text, _ in rows()[row - int(paper_list.scroll_offset.y)])

        for keys in (["j"], ["j", "j"], ["pagedown"], ["k"], ["G"], ["g"], ["s"], ["v"], ["r"]):
            await pilot.press(*keys)
            await pilot.pause()
            highlighted = [n for n, cells in enumerate(rows()) if any(style.bgcolor == cursor for _, style in cells)]
            assert highlighted == [paper_list.cursor - int(paper_list.scroll_offset.y)], keys
            assert main.current_paper.title[:20] in shown(paper_list.cursor)
        # starred, marked (the cursor moved on), then reading: `r` acts on the marked paper
        assert shown(0).startswith("★◐▸") and shown(1).startswith(" ○ ")


def many_papers(count: int) -> str:
    """A list of `count` abstracts, some in other scripts, some long."""
    words = ["graph", "neural", "Straße", "naïve", "深層学習", "画像認識", "🚀", "e\u0301te\u0301", "models"]
    abstracts = [f"Study {n}: " + " ".join(words[(n + k) % 9] for k in range(3 + n % 40)) for n in range(count)]
    return "Many papers\n\n" + "\n\n".join(abstracts) + "\n"


async def test_rows_are_drawn_as_rich_draws_them_without_rendering_each_through_rich(tmp_path, monkeypatch):
    # A row's runs and styles are made by the list itself (rich's Text.render made each row's styles anew); the
    # segments must be exactly rich's: titles of wide, accented, combining and emoji characters, long and short,
    # stars, statuses, marks, tags, list names, search matches, the cursor's row, narrow and wide lists.
    app = make_app(tmp_path, many_papers(1500))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper_list = app.main_screen.paper_list
        titles = [
            "深層学習による画像認識の研究とその応用について",
            "Café résumé naïve — Über Straße",
            "e\u0301te\u0301 ok",
            "🚀 Rocket-fast LLMs 🤖 with emoji",
            "x" * 300,
            "Short",
            "Grâph nëural nétworks ✓ 图神经网络",
        ]
        statuses = ("unread", "reading", "read")

        def look(paper) -> RowLook:
            n = paper.index
            return RowLook(
                starred=n % 2 == 0,
                status=statuses[n % 3],
                tags=("ml", "graph-theory", "日本語")[: n % 4],
                title=titles[n % len(titles)] if n % 5 else None,
                marked=n % 7 == 0,
                source="a-very-long-list-name" if n % 11 == 0 else None,
            )

        def spans(shown: str) -> list[tuple[int, int]]:
            return [(0, 3), (2, 6), (len(shown) - 2, len(shown))] if len(shown) > 8 else []

        base, console = paper_list.style_of(""), app.console

        def as_rich_draws(row: int, width: int) -> Strip:
            text = paper_list.render_row(paper_list.position_at(row), width)
            if row == paper_list.cursor:
                text.stylize(paper_list.style_of("cursor"))
            segments = [Segment(seg.text, base + seg.style if seg.style else base) for seg in text.render(console)]
            return Strip(segments).adjust_cell_length(width, base)

        paper_list.look = look
        rows = range(paper_list.row_count)
        assert len(rows) == 1500
        for width, bylines, with_spans in ((118, True, True), (60, False, True), (39, True, False), (12, False, True)):
            paper_list.bylines, paper_list.spans = bylines, spans if with_spans else None
            paper_list.redraw()
            expected = [list(as_rich_draws(row, width)) for row in rows]
            monkeypatch.setattr(Text, "render", lambda *_: pytest.fail("a row rendered through rich"))
            assert [list(paper_list.row_line(row, width)) for row in rows] == expected, width
            monkeypatch.undo()


async def test_the_detail_pane_draws_its_lines_as_rich_draws_them_without_rendering_each_through_rich(
    tmp_path, monkeypatch
):
    # Its lines' runs and styles are made as the list's rows are (rich's Text.render made each line's styles anew,
    # about a third of drawing a new paper at each key); the segments must be exactly rich's: titles, marks, tags,
    # a note's Markdown, search matches, wide, accented and combining characters, wide and narrow panes.
    app = make_app(tmp_path, many_papers(40))
    note = (
        "# Heading *one*\n\nSome **bold** and `code` and a [link](https://example.org) "
        "naïve 深層学習.\n\n- item\n- **item** two\n\n> quoted _words_\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        pane, body = main.query_one(DetailPane), main.query_one(DetailBody)
        base, console = body.rich_style, app.console
        statuses = ("unread", "reading", "read")

        def spans(shown: str) -> list[tuple[int, int]]:
            return [(0, 5), (3, 9), (len(shown) - 4, len(shown))] if len(shown) > 12 else []

        for size, keys in (((120, 40), []), ((200, 50), []), ((100, 30), [">"] * 4)):  # the last, a narrow pane
            await pilot.resize_terminal(*size)
            await pilot.press(*keys)
            await pilot.pause()
            for n, paper in enumerate(main.papers.papers):
                look = RowLook(starred=n % 2 == 0, status=statuses[n % 3], tags=("ml", "日本語")[: n % 3])
                pane.show(paper, look, note if n % 3 else "", spans if n % 2 else None, possible="maybe" * (n % 2))
                width = body.scrollable_content_region.width
                monkeypatch.setattr(Text, "render", lambda *_: pytest.fail("a line rendered through rich"))
                drawn = [list(body.text_line(row, width)) for row in range(body.virtual_size.height)]
                monkeypatch.undo()
                expected = [
                    list(
                        Strip(
                            [Segment(seg.text, base + seg.style) for seg in line.render(console) if seg.text != "\n"]
                        ).adjust_cell_length(width, base)
                    )
                    for line in body._lines
                ]
                assert drawn == expected, (size, n)
        assert width < 40  # the narrow pane


async def test_the_detail_pane_wraps_a_plain_ascii_paper_where_rich_wraps_it_without_measuring_its_words(
    tmp_path, monkeypatch
):
    # rich measured every word of a new paper's text in cells: about half of wrapping it, at each key at 100k papers.
    import random

    import rich.text

    rng = random.Random(7)
    words = ["a", "graph", "end.", "(x)", "-", "https://example.org/" + "x" * 90, "x" * 30, "naïve", "深層", "\t"]
    abstracts = [
        " ".join(rng.choice(words[: 7 if n % 2 else 10]) for _ in range(rng.randint(1, 60))) + " " * (n % 3)
        for n in range(120)
    ]
    app = make_app(tmp_path, "Wrapping\n\n" + "\n\n".join(abstracts) + "\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        pane, body = main.query_one(DetailPane), main.query_one(DetailBody)
        measured: list[str] = []
        divide_line = rich.text.divide_line
        monkeypatch.setattr(
            rich.text, "divide_line", lambda line, *a, **k: (measured.append(line), divide_line(line, *a, **k))[1]
        )

        def spans(shown: str) -> list[tuple[int, int]]:
            return [(2, 9), (len(shown) - 6, len(shown) - 1)] if len(shown) > 12 else []

        for size, keys in (((120, 40), []), ((100, 30), [">"] * 4)):
            await pilot.resize_terminal(*size)
            await pilot.press(*keys)
            await pilot.pause()
            for n, paper in enumerate(main.papers.papers):
                measured.clear()
                pane.show(paper, RowLook(starred=n % 2 == 0), "", spans if n % 3 else None)
                width = max(body.scrollable_content_region.width - 1, 1)
                plain = [line for line in measured if line.isascii() and line.isprintable()]
                assert all(max(map(len, line.split())) > width for line in plain), plain  # only a word to fold
                by_rich = body._text.wrap(app.console, width, overflow="fold")
                assert [(line.plain, line.spans) for line in body._lines] == [
                    (line.plain, line.spans) for line in by_rich
                ]


def test_titles_are_cut_where_rich_cuts_them_and_a_long_plain_one_without_measuring_it(monkeypatch):
    def as_rich_cuts(text: str, cells: int) -> str:
        if cell_len(text) <= cells:
            return text
        return set_cell_size(text, max(cells - 1, 0)).rstrip() + "…"

    pieces = [
        "a",
        "Z",
        " ",
        "~",
        "é",
        "ß",
        "深",
        "🚀",
        "e\u0301",
        "\u200d",
        "\ufe0f",
        "👨\u200d👩",
        "…",
        "—",
        "\x7f",
        "α",
    ]
    rng = random.Random(20)
    texts = ["", "x" * 40, "Short", "A plain title that goes on …", "A title  with spaces   "]
    texts += [
        "".join(rng.choice(pieces[: rng.randint(4, len(pieces))]) for _ in range(rng.randint(0, 60)))
        for _ in range(3000)
    ]
    for text in texts:
        for cells in (-2, 0, 1, 2, 5, 8, 9, 20, 39, 80):
            assert fit(text, cells) == as_rich_cuts(text, cells), (text, cells)
    monkeypatch.setattr(paper_row, "cell_len", lambda *_: pytest.fail("a plain title measured"))
    assert fit("Graph neural networks for molecules, at scale and with guarantees …", 20) == "Graph neural networ…"


async def test_the_list_keeps_its_last_drawn_rows_when_it_has_drawn_too_many(tmp_path):
    # Past DRAWN_ROWS the oldest row goes: clearing them all made the next key draw a whole page again.
    app = make_app(tmp_path, many_papers(DRAWN_ROWS + 1))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper_list = app.main_screen.paper_list
        width = paper_list.scrollable_content_region.width
        for row in range(DRAWN_ROWS + 1):
            paper_list.row_line(row, width)
        kept = paper_list._drawn
        assert len(kept) == DRAWN_ROWS
        assert (paper_list.position_at(0), width, True) not in kept
        assert (paper_list.position_at(DRAWN_ROWS), width, False) in kept


async def test_going_back_to_a_paper_shows_it_without_wrapping_it_again_and_never_as_it_was_before_a_change(
    app, monkeypatch
):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        wrapped: list[str] = []
        wrap = detail_body.wrapped
        monkeypatch.setattr(
            detail_body, "wrapped", lambda text, *args: (wrapped.append(text.plain), wrap(text, *args))[1]
        )
        await pilot.press("j", "j", "k", "k")
        await pilot.pause()
        assert len(wrapped) == 2  # the two papers below, each once; back up, the lines kept
        assert "FastDiff" in widget_text(app, "#detail-body") and "☆ not starred" in widget_text(app, "#detail-body")
        await pilot.press("s", "j", "k")  # starred: the paper's text changed, wrapped anew
        await pilot.pause()
        assert "★ starred" in widget_text(app, "#detail-body") and "★ starred" in wrapped[-1]
        await pilot.press("slash", *"diffusion", "enter")  # its words highlighted: drawn anew too
        await settle(pilot)
        body = app.main_screen.query_one(DetailBody)
        assert "FastDiff" in body.plain and any(span.style == "reverse" for span in body._text.spans)
        assert as_drawn(body) == as_textual_draws(body)
        assert any("reverse" in str(style) for line in as_drawn(body) for _, style in line)


async def test_a_big_list_derives_the_next_pages_titles_before_a_page_key_draws_them_in_a_thread_of_its_own(
    tmp_path, monkeypatch
):
    # In a thread of the list's own: a worker of Textual's for each page key (its task, its run on asyncio's threads,
    # its changes of state sent to the screen) cost 0.7 ms of the UI's CPU at each PageDown at 100k papers.
    from textual.dom import DOMNode

    from readlist.tui.screens import searcher

    monkeypatch.setattr(searcher, "TITLES_AHEAD", 10)  # a big list: titles derived only for the rows it shows
    text = "Many\n\n" + "\n\n".join(f"Study number {n} of sparse attention in long documents." for n in range(200))
    app = make_app(tmp_path, text)
    workers: list[DOMNode] = []
    run_worker = DOMNode.run_worker
    monkeypatch.setattr(
        DOMNode, "run_worker", lambda node, *a, **k: (workers.append(node), run_worker(node, *a, **k))[1]
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper_list = app.main_screen.paper_list
        height = paper_list.scrollable_content_region.height
        papers = app.main_screen.papers.papers

        def derived(rows: range) -> bool:
            return all("title" in papers[paper_list.position_at(row)].__dict__ for row in rows)

        def below() -> range:
            top = int(paper_list.scroll_offset.y)
            return range(top + height, top + 2 * height)

        assert not derived(range(3 * height, 4 * height))  # far below: nothing derived there
        await wait_until(pilot, lambda: derived(below()), "the next page's titles")
        await pilot.press("pagedown", "pagedown")
        assert paper_list.scroll_offset.y == height - 1  # the cursor on the bottom row, a page further down
        assert not derived(range(4 * height, 5 * height))
        await wait_until(pilot, lambda: derived(below()), "the titles of the page after it")
        assert paper_list.cursor == 2 * (height - 1)
        assert f"Study number {2 * (height - 1)} " in app.main_screen.query_one(DetailBody).plain
        assert f"Study number {2 * (height - 1)} " in widget_text(app, "#list").splitlines()[-1]
        assert paper_list not in workers


async def test_a_long_paper_draws_only_the_lines_the_detail_pane_shows(tmp_path, monkeypatch):
    long_abstract = " ".join(f"Sentence {n} on attention over long documents with sparse patterns." for n in range(150))
    app = make_app(tmp_path, PAPERS + "\n" + long_abstract + "\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = app.main_screen.query_one(DetailBody)
        drawn: list[str] = []
        runs = detail_body.runs  # each line drawn is cut into its runs of one style
        monkeypatch.setattr(detail_body, "runs", lambda text, *args: (drawn.append(text.plain), runs(text, *args))[1])
        await pilot.press("G")
        await pilot.pause()
        assert body.virtual_size.height > 3 * body.size.height  # lines far below the pane
        shown = widget_text(app, "#detail-body")
        assert "Sentence 0 on" in shown and "Sentence 149 on" not in shown
        assert not any("Sentence 149 on" in line for line in drawn)  # never drawn: not on screen
        await pilot.press("tab", "end")  # scrolled to the end: drawn then
        await pilot.pause()
        assert "Sentence 149 on" in widget_text(app, "#detail-body")


async def test_the_lists_and_details_lines_reach_the_screen_beside_their_scrollbars_without_being_cut_again(
    tmp_path, monkeypatch
):
    # The screen cuts every line where a scrollbar covers it: cutting each of a new row's segments there again cost
    # as much as the rest of drawing it (a page key at 100k papers draws a page of new rows, and the detail anew).
    from textual.geometry import Region

    long_abstract = " ".join(f"Sentence {n} on naïve 深層学習 attention over long documents." for n in range(80))
    app = make_app(tmp_path, many_papers(300) + "\n" + long_abstract + "\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        paper_list, body = main.paper_list, main.query_one(DetailBody)
        cut: list[str] = []
        divide = Segment.divide
        monkeypatch.setattr(
            Segment,
            "divide",
            lambda segments, cuts: (cut.append("".join(s.text for s in segments)), divide(segments, cuts))[1],
        )
        for keys in (["pagedown"], ["pagedown", "j"], ["G"], ["pageup"], ["G"], ["k"]):
            await pilot.press(*keys)
            await pilot.pause()
            assert not [line for line in cut if "Study" in line or "Sentence" in line], keys
            for widget in (paper_list, body):  # the screen shows what Textual's own pass draws, the bar over its end
                region, width = widget.region, widget.scrollable_content_region.width
                shown = screen_cells(app, Region(region.x, region.y, width, region.height))
                assert shown == as_textual_draws(widget, width), keys
        assert body.vertical_scrollbar.display and paper_list.vertical_scrollbar.display  # both bars were there
