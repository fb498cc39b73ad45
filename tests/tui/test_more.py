"""Search highlighting, related papers, export, missing papers and write failures, seen from the UI."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from readlist.core.store.store import Store
from readlist.tui.display import STICKY
from readlist.tui.screens.dialogs.confirm import ConfirmScreen
from readlist.tui.screens.dialogs.export import ExportScreen
from readlist.tui.screens.dialogs.note import NoteScreen
from readlist.tui.widgets.detail import DetailPane, RelatedList
from readlist.tui.widgets.detail_body import DetailBody
from readlist.tui.widgets.search_bar import SearchBar

from .conftest import (
    PAPERS,
    app_on_a_paper_file,
    make_app,
    notifications,
    run_from_palette,
    screen_text,
    settle,
    wait_for_related,
    wait_for_screen,
    wait_until,
    widget_text,
)


async def test_typing_filters_and_highlights_matches(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"dreamad")
        await settle(pilot)
        main = app.main_screen
        assert main.view.matches == 1
        row = main.paper_list.render_line(0)
        highlighted = "".join(seg.text for seg in row if seg.style and seg.style.underline)
        assert highlighted == "DReaMAD"
        body = main.query_one(DetailBody)
        spans = main.view.result.spans(body.plain)
        assert spans and all(body.plain[a:b].lower() == "dreamad" for a, b in spans)


async def test_typo_tolerant_search_from_the_bar(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"backdor detecton")
        await settle(pilot)
        assert app.main_screen.view.matches >= 1
        assert "BDetCLIP" in app.main_screen.current_paper.plain


async def test_a_new_search_selects_its_best_match_and_esc_in_the_list_clears_it(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("slash", *"language models")
        await settle(pilot)
        second = main.paper_list.position_at(1)
        best = main.paper_list.position_at(0)
        await pilot.press("ctrl+u", "escape")  # back to the whole list, then onto the second match
        await settle(pilot)
        main.paper_list.select_position(second)
        await pilot.press("slash", *"language models", "enter")
        await settle(pilot)
        assert main.current_paper is main.papers.papers[best]  # not the paper selected before
        assert main.paper_list.has_focus
        await pilot.press("escape")  # in the list: clears the search, keeps the paper
        await settle(pilot)
        assert main.view.search_text == "" and main.paper_list.row_count == len(main.papers.papers)
        assert main.current_paper is main.papers.papers[best]


async def test_a_damaged_database_notice_stays_until_esc_in_the_list_closes_it(tmp_path):
    (tmp_path / "db.json").write_text('{"meta": {"1": {"schema_version": 2}}, "annotations": [1]}')
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: notifications(app), "the notice of the damaged database")
        assert any("was damaged" in n.message for n in notifications(app))
        await pilot.press("escape")
        await settle(pilot)
        assert not notifications(app)


async def test_unclosed_quote_is_a_message_not_a_crash(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *'"four steps')
        await settle(pilot)
        assert app.main_screen.view.error
        assert "quote" in screen_text(app).lower()


async def test_related_papers_show_and_jump(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_related(pilot)
        related = app.main_screen.query_one(RelatedList)
        assert related.option_count == 5
        target = int(related.get_option_at_index(1).id)
        related.focus()
        await pilot.pause()
        assert related.highlighted == 0  # focused: the first one is marked
        related.highlighted = 1
        await pilot.press("enter")
        await settle(pilot)
        assert app.main_screen.paper_list.current == target


async def test_jumping_to_a_related_paper_outside_the_view_can_go_back_to_the_search(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("f", "slash", *"dreamad", "enter")  # the unread filter and a search: one paper
        await wait_for_related(pilot)
        came_from = main.current_paper
        related = main.query_one(RelatedList)
        target = int(related.get_option_at_index(0).id)
        assert main.paper_list.row_of(target) is None  # not in the view
        related.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert main.paper_list.current == target and main.view.search_text == "" and main.view.quick_filter == "all"
        told = [n.message for n in notifications(app)]
        assert any("Search 'dreamad' and the unread filter cleared" in m and "Esc" in m for m in told)
        main.paper_list.focus()
        await pilot.press("escape")
        await settle(pilot)
        assert main.view.search_text == "dreamad" and main.view.quick_filter == "unread"
        assert main.query_one(SearchBar).value == "dreamad"
        assert main.current_paper is came_from
        await pilot.press("escape", "escape")  # then Esc clears the search as before, and nothing comes back
        await settle(pilot)
        assert main.view.search_text == "" and main.view.quick_filter == "unread"


async def test_export_from_the_ui_writes_the_file_and_asks_before_overwriting(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")
        await wait_for_screen(pilot, ExportScreen)
        app.screen.query_one("#export-path").value = str(tmp_path / "readlist-notes.md")
        await pilot.press("down")  # JSON
        await pilot.click("#export-path")
        await pilot.press("enter")
        await settle(pilot)
        out = tmp_path / "readlist-notes.json"
        await wait_until(pilot, out.exists, f"the export written to {out}")
        data = json.loads(out.read_text())
        assert [p["starred"] for p in data["papers"]] == [True]
        out.write_text("keep me")
        await pilot.press("x")
        await wait_for_screen(pilot, ExportScreen)
        app.screen.query_one("#export-path").value = str(tmp_path / "readlist-notes.md")
        await pilot.press("down")
        await pilot.click("#export-path")
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmScreen)
        assert "exists. Overwrite it?" in widget_text(app, "#confirm-question")
        await pilot.press("n")
        await settle(pilot)
        assert out.read_text() == "keep me"


async def test_export_with_nothing_annotated_says_so_instead_of_writing_an_empty_file(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("x")
        said = "No annotated papers to export: star, tag or note one, or search to export the papers found"
        await wait_until(pilot, lambda: any(n.message == said for n in notifications(app)), "the notice")
        assert not isinstance(app.screen, ExportScreen)  # no dialog that would write a file of no papers
        await pilot.press("s", "x")  # one starred: the dialog opens
        await wait_for_screen(pilot, ExportScreen)


async def test_the_export_dialog_offers_every_format_and_writes_csl_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(tmp_path, bundled=True)  # the ICML 2025 list: its name is the papers' venue
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")
        await wait_for_screen(pilot, ExportScreen)
        path = app.screen.query_one("#export-path")
        directory = Path(path.value).parent
        assert directory.is_relative_to(tmp_path)  # the test's home, never the user's
        await pilot.press("down", "down", "down", "down")  # Markdown, JSON, CSV, BibTeX, CSL-JSON
        await wait_until(pilot, lambda: path.value.endswith(".csl.json"), "the path named for CSL-JSON")
        await pilot.press("up", "up", "up", "up")
        await wait_until(pilot, lambda: path.value.endswith("readlist-notes.md"), "the path named for Markdown")
        await pilot.press("down", "down", "down", "down")
        await wait_until(pilot, lambda: path.value == str(directory / "readlist-notes.csl.json"), "CSL-JSON again")
        await pilot.press("enter")
        out = directory / "readlist-notes.csl.json"
        await wait_until(pilot, out.exists, f"the export written to {out}")
        (item,) = json.loads(out.read_text(encoding="utf-8"))
        assert (item["type"], item["container-title"], item["issued"]) == (
            "paper-conference", "ICML", {"date-parts": [[2025]]}
        )  # fmt: skip
        said = "Exported 1 paper(s) to " + str(out) + " (1 paper(s) without a venue cited as ICML, 2025, from the "
        await wait_until(pilot, lambda: any(n.message.startswith(said) for n in notifications(app)), "the notice")


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("db.json", "the annotation database"),
        ("db.json.lock", "the annotation database's lock file"),
        ("db.json.bak-20250101T000000Z", "a copy of the annotation database kept beside it"),
        ("papers.txt", "the paper file being read"),
    ],
)
async def test_export_dialog_never_writes_over_readlists_own_files(app, tmp_path, name, what):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert (tmp_path / "db.json").exists()
        target = tmp_path / name
        if not target.exists():
            target.write_text("keep me")
        before = target.read_bytes()
        await pilot.press("x")
        await wait_for_screen(pilot, ExportScreen)
        app.screen.query_one("#export-path").value = str(target)
        await pilot.click("#export-path")
        await pilot.press("enter")
        await settle(pilot)
        assert "Overwrite it?" not in screen_text(app)  # no question a yes to would replace it
        assert any(n.message == f"{target}: is {what}; an export never writes over it" for n in notifications(app))
        assert target.read_bytes() == before


async def test_missing_papers_are_listed_under_is_missing(tmp_path):
    first = make_app(tmp_path)
    async with first.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("j", "s", "n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"keep this note", "ctrl+s")
        await settle(pilot)
    # The paper's text is gone from the file: its annotation must survive as missing.
    changed = PAPERS.replace(
        "Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy.",
        "An entirely different abstract about protein folding with diffusion.",
    )
    app = make_app(tmp_path, changed)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"is:missing")
        await settle(pilot)
        text = screen_text(app)
        assert "1 annotated paper(s) are in none of" in text
        assert "keep this note" in text and "reattach ID REF" in text and "Curvature rewiring" in text
    assert any(note.note == "keep this note" for note in Store(tmp_path / "db.json").all().values())


async def test_a_databases_paper_ids_reach_the_screen_without_their_escape_codes(tmp_path):
    from readlist.core.papers.reader import parse_text

    papers = parse_text(PAPERS, str(tmp_path / "papers.txt"))
    Store(tmp_path / "db.json").toggle_star(papers.papers[0])
    data = json.loads((tmp_path / "db.json").read_text())
    hostile = "ab12\x1b]0;owned\x07"  # an id that would retitle the terminal's window
    data["annotations"]["1"].update(id=hostile, snippet="A paper no longer in the list.", status="x")
    (tmp_path / "db.json").write_text(json.dumps(data))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        repaired = [n.message for n in notifications(app) if "leaving out status of paper" in n.message]
        assert repaired and "paper ab12\\x1b]0;owned\\x07 ('x')" in repaired[0], repaired
        await pilot.press("slash", *"is:missing")
        await settle(pilot)
        text = screen_text(app)
        assert "★○ ab12  A paper no longer" in text
        assert "\x1b" not in text + "".join(n.message for n in notifications(app))


TITLED = """Test list

FastDiff: four-step diffusion sampling
We propose FastDiff, a distilled diffusion sampler that needs four steps. Code: https://example.org/fastdiff

Curvature rewiring against over-squashing
Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy for it.

TableBench: reasoning over tables
We introduce TableBench, a benchmark for reasoning over tables with language models of all sizes.
"""


async def test_a_re_attached_paper_is_named_by_its_number_and_the_title_the_list_shows(tmp_path):
    from readlist.core.papers.reader import parse_text

    before = parse_text(TITLED, str(tmp_path / "papers.txt"))
    Store(tmp_path / "db.json").toggle_star(before.papers[1])
    app = make_app(tmp_path, TITLED.replace("as a remedy for it", "as a remedy"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.papers.papers[1]
        assert paper.id != before.papers[1].id and app.store.get(paper.id).starred
        told = [n.message for n in notifications(app)]
        assert any("re-attached the annotations of #2 'Curvature rewiring against over-squashing'" in m for m in told)


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


async def star_with_a_full_disk(app, pilot, monkeypatch):
    """Star the first paper while every atomic replace of the database fails; returns the real replace."""
    import readlist.core.files.atomic as storage

    real_replace = storage.os.replace
    await settle(pilot)
    monkeypatch.setattr(storage.os, "replace", full_disk)
    await pilot.press("s")
    await settle(pilot)
    return real_replace


async def test_write_failure_is_shown_kept_and_retried(app, tmp_path, monkeypatch):
    async with app.run_test(size=(120, 40)) as pilot:
        real_replace = await star_with_a_full_disk(app, pilot, monkeypatch)
        assert app.store.pending_error
        assert any("No space left" in n.message for n in notifications(app))
        assert "★" in app.main_screen.paper_list.render_line(0).text  # the change stays visible
        monkeypatch.setattr("os.replace", real_replace)
        await app.poll_store()
        await settle(pilot)
        assert app.store.pending_error is None
    paper_id = app.papers.papers[0].id
    assert Store(Path(tmp_path / "db.json")).get(paper_id).starred


async def test_quit_with_unsaved_changes_warns_first(app, monkeypatch):
    async with app.run_test(size=(120, 40)) as pilot:
        await star_with_a_full_disk(app, pilot, monkeypatch)
        await pilot.press("q")
        await settle(pilot)
        assert app.is_running
        assert any("would be lost" in n.message for n in notifications(app))
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


async def take_screenshot_from_the_palette(pilot) -> str:
    """Run the palette's Screenshot; the message it leaves once the file is written (or not)."""
    await run_from_palette(pilot, "Screenshot")
    await wait_until(pilot, lambda: notifications(pilot.app), "the screenshot's message")  # after a timer, a thread
    return [notification.message for notification in notifications(pilot.app)][-1]


@pytest.fixture
def no_downloads(tmp_path, monkeypatch):
    """A home without a downloads directory; the current directory is returned."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


async def test_the_palettes_screenshot_without_a_downloads_directory_is_saved_in_the_current_one(app, no_downloads):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        message = await take_screenshot_from_the_palette(pilot)
        saved = list(no_downloads.glob("*.svg"))
        assert len(saved) == 1 and str(saved[0]) in message


async def test_a_screenshot_that_cannot_be_saved_says_where_and_why(app, no_downloads):
    no_downloads.rmdir()  # no current directory either
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        message = await take_screenshot_from_the_palette(pilot)
        assert message.startswith(f"Screenshot not saved: {no_downloads.parent / 'home' / 'Downloads'}")
        assert message.endswith("cannot write (No such file or directory)")
        assert len(notifications(pilot.app)) == 1  # not also Textual's own 'Failed to save screenshot'


async def test_no_match_message_with_markup_characters_shows_literally(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"zzqx[/zzqy")
        await settle(pilot)
        assert "No papers match 'zzqx[/zzqy'" in screen_text(app)


async def test_ctrl_q_in_an_edited_note_asks_first(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n", *"precious", "ctrl+q")
        await wait_for_screen(pilot, ConfirmScreen)
        assert app.is_running
        assert "Discard the changes" in screen_text(app)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.store.get(app.main_screen.current_paper.id).note == "precious"


async def test_search_results_follow_tag_edits(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", *"zebrafish", "enter")
        await settle(pilot)
        await pilot.press("slash", *"zebrafish", "enter")
        await settle(pilot)
        assert app.main_screen.view.matches == 1
        await pilot.press("t", *["backspace"] * 9, *"other", "enter")
        await settle(pilot)
        assert app.main_screen.view.matches == 0


async def test_a_paper_file_changed_on_disk_is_told_once_with_the_advice_to_restart(tmp_path):
    from readlist.core.papers.reader import read_papers

    papers_file, app = app_on_a_paper_file(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("j", "s")
        await settle(pilot)
        starred = app.main_screen.current_paper
        await app.poll_store()
        assert not any("changed on disk" in n.message for n in notifications(app))
        # Another readlist reads the edited file: the starred paper's annotations move to its new id.
        papers_file.write_text(PAPERS.replace("as a remedy.", "as a remedy, with bounds."))
        other = Store(tmp_path / "db.json")
        [moved] = other.reconcile(read_papers(papers_file))
        assert moved.startswith("re-attached the annotations of #2")
        await app.poll_store()
        assert app.store.get(starred.id).starred  # this window, holding the old paper, follows it to its new id
        await app.poll_store()
        [told] = [n for n in notifications(app) if "changed on disk" in n.message]
        assert told.message == f"{papers_file} changed on disk; restart readlist to load it"
        assert told.timeout == STICKY  # stays until dismissed


async def test_export_dialog_survives_a_bare_directory_path(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")  # a paper to export
        await wait_for_screen(pilot, ExportScreen)
        app.screen.query_one("#export-path").value = "/"
        await pilot.press("down", "down")  # CSV
        await pilot.pause()
        assert app.is_running and app.screen.query_one("#export-path").value == "/"


async def test_related_titles_use_the_width_of_the_narrow_detail_view(tmp_path):
    from readlist.tui.widgets.detail import RelatedList

    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_related(pilot)
        await pilot.press("enter")
        await settle(pilot)
        related = app.main_screen.query_one(RelatedList)
        assert related.option_count == 5
        assert len(related.get_option_at_index(0).prompt.plain) > 40


async def test_the_detail_pane_fits_its_width_again_when_the_maximized_list_is_restored(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"Maximize")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert main.maximized is main.paper_list
        await pilot.press("j", "j")
        await wait_for_related(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert main.maximized is None
        paper = main.current_paper
        assert f"#{paper.index} · {paper.id}" in screen_text(app)  # the detail shows the paper, not a blank pane
        related = main.query_one(RelatedList)
        labels = [related.get_option_at_index(i).prompt.plain for i in range(related.option_count)]
        titles = [main.listed_title(app.papers.papers[pos]) for pos in main.query_one(DetailPane).related_positions]
        assert len(labels) == 5
        assert all(len(label) >= min(len(title), 60) for label, title in zip(labels, titles, strict=True))


async def test_on_a_narrow_screen_focus_stays_where_the_eye_is(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_related(pilot)
        await pilot.press("enter")  # the detail replaces the list
        await settle(pilot)
        related = app.main_screen.query_one(RelatedList)
        target = int(related.get_option_at_index(1).id)
        related.focus()
        related.highlighted = 1
        await pilot.press("enter")  # open a related paper: its detail is shown, and has the keyboard
        await settle(pilot)
        main = app.main_screen
        assert main.paper_list.current == target and main.has_class("show-detail")
        assert main.query_one(DetailBody).has_focus
        await pilot.press("escape")  # so Esc goes back to the list
        await settle(pilot)
        assert main.paper_list.has_focus and not main.has_class("show-detail")
        await pilot.resize_terminal(120, 40)
        await pilot.press("enter")  # wide: the detail gets the keyboard beside the list
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert isinstance(app.screen, NoteScreen)
        await pilot.resize_terminal(80, 24)  # narrow again while the dialog is open
        await pilot.press(*"x", "ctrl+s")
        await settle(pilot)
        assert not main.query_one(SearchBar).has_focus
        assert main.focused is main.navigator.visible_pane()


def focus_shown(app) -> bool:
    return all(node.display for node in app.focused.ancestors_with_self if hasattr(node, "display"))


async def test_on_a_narrow_screen_leaving_the_search_bar_never_focuses_the_hidden_list(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_related(pilot)
        await pilot.press("enter", "tab", "tab")  # the detail, its related papers, the search bar
        await settle(pilot)
        assert isinstance(app.focused, SearchBar)
        await pilot.press("escape")  # back to the detail shown
        await settle(pilot)
        assert isinstance(app.focused, DetailBody) and focus_shown(app)
        assert "esc List" in screen_text(app).splitlines()[-1]
        await pilot.press("escape")
        await settle(pilot)
        assert not app.main_screen.has_class("show-detail") and app.main_screen.paper_list.has_focus
        await pilot.press(
            "enter", "shift+tab", *"graph", "enter"
        )  # a search typed beside the detail: Enter shows the list
        await settle(pilot)
        assert not app.main_screen.has_class("show-detail")
        assert app.main_screen.paper_list.has_focus and focus_shown(app)
        await pilot.press("enter")
        await settle(pilot)
        app.main_screen.paper_list.focus()  # however focus gets there, it moves to the pane shown
        await settle(pilot)
        assert isinstance(app.focused, DetailBody)


async def test_the_footer_shows_the_palette_key_again_when_the_terminal_widens(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "^p palette" in screen_text(app).splitlines()[-1]
        await pilot.resize_terminal(90, 30)  # narrow: a compact footer, no room for the palette key
        await settle(pilot)
        assert "palette" not in screen_text(app).splitlines()[-1]
        await pilot.resize_terminal(120, 30)
        await settle(pilot)
        assert "^p palette" in screen_text(app).splitlines()[-1]


def test_palette_title_ranking_takes_each_word_fuzzily_and_in_any_order():
    from readlist.tui.commands import rank_titles

    titles = ["EffiR: Framework for efficient retrievers", "SlimInfer: faster inference", "Cube Bench: spatial tests"]
    assert [pos for pos, _ in rank_titles("retriever effir", titles)] == [0]
    assert rank_titles("slimnfer", titles)[0][0] == 1
    assert rank_titles("zzzz qqqq", titles) == []


async def test_a_paper_file_touched_without_change_raises_no_notice_and_a_removed_one_is_named_so(tmp_path):
    import os

    papers_file, app = app_on_a_paper_file(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.poll_store()  # as every few seconds after start
        later = papers_file.stat().st_mtime_ns + 5_000_000_000
        os.utime(papers_file, ns=(later, later))  # `touch`, or a save with nothing changed
        await app.poll_store()
        await app.poll_store()
        await pilot.pause()
        assert not any("on disk" in n.message for n in notifications(app))  # before: "changed on disk"
        papers_file.unlink()
        await app.poll_store()
        await pilot.pause()
        [told] = [n.message for n in notifications(app) if str(papers_file) in n.message]
        assert told == f"{papers_file} was removed; this window keeps the papers it read"


async def test_a_search_that_fails_is_one_notice_and_the_window_keeps_running(tmp_path, monkeypatch):
    from readlist.core.search.index import SearchIndex

    searched = SearchIndex.search

    def search(self, text, *args, **kwargs):
        if "boom" in text:
            raise OverflowError("unsigned short is\ngreater than \x1b[31mmaximum")  # as if quoting a paper
        return searched(self, text, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "search", search)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"boom")
        await settle(pilot)
        assert [n.message for n in notifications(app)] == [
            "The search stopped on an error (OverflowError: unsigned short is greater than maximum)"
        ]  # before: Textual's traceback, and the window closed
        await pilot.press("escape", "escape", "s")  # still running: the paper is starred
        await settle(pilot)
        assert app.store.get(app.papers.papers[0].id).starred
    assert app.return_code in (None, 0)


async def test_the_export_dialog_starts_on_the_formats_down_changes_one_and_enter_writes_into_documents(app, tmp_path):
    from readlist.core.export.formats import FORMATS

    documents = tmp_path / "home" / "Documents"
    documents.mkdir()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")
        await wait_for_screen(pilot, ExportScreen)
        path = app.screen.query_one("#export-path")
        assert path.value == str(documents / "readlist-notes.md")  # before: the current directory
        shown = widget_text(app, "#export-where").replace(" ", "")  # where it wraps, a space joins its lines
        assert f"Writes{documents / 'readlist-notes.md'}" == shown  # in full, however narrow the field
        text = widget_text(app, "#export-format")
        assert "● Markdown reading notes .md" in text and "○ JSON .json" in text  # named, the chosen one marked
        assert text.count("●") == 1 and text.count("○") == len(FORMATS) - 1
        assert "Enter writes the file" in screen_text(app)
        await pilot.press("down")  # before: the path field had the focus, and ↓ did nothing
        await pilot.pause()
        assert "● JSON .json" in widget_text(app, "#export-format")
        assert path.value == str(documents / "readlist-notes.json")
        await pilot.press("enter")  # on the format: before, nothing was written
        out = documents / "readlist-notes.json"
        await wait_until(pilot, out.exists, f"the export written to {out}")
        assert app.screen is app.main_screen
        assert [paper["starred"] for paper in json.loads(out.read_text())["papers"]] == [True]


async def test_the_export_dialog_fits_a_60_by_20_terminal(app):
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        await pilot.press("s", "x")  # a paper to export
        await wait_for_screen(pilot, ExportScreen)
        dialog = app.screen.query_one("#export-dialog").region
        assert dialog.right <= 60 and dialog.bottom <= 20, dialog  # before: 70 columns, past the right edge
        assert "Enter writes the file" in screen_text(app) and "BibTeX" in screen_text(app)
