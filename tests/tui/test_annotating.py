"""Annotating from the keyboard: every change shows at once and lands in the store."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from readlist.core.store.annotation import cut_label
from readlist.core.store.drafts import Drafts
from readlist.core.store.store import Store
from readlist.tui.screens.dialogs.confirm import ConfirmScreen
from readlist.tui.screens.dialogs.help import HelpScreen
from readlist.tui.screens.dialogs.note import NoteScreen
from readlist.tui.screens.dialogs.progress import ProgressScreen
from readlist.tui.screens.dialogs.tags import TagsScreen, parse_tags
from readlist.tui.screens.dialogs.title import TitleScreen
from readlist.tui.widgets.detail import RelatedList
from readlist.tui.widgets.detail_body import DetailBody

from .conftest import (
    PAPERS,
    make_app,
    notifications,
    press_together,
    screen_text,
    settle,
    wait_for_related,
    wait_for_screen,
    wait_until,
)


def current(app):
    main = app.main_screen
    return main.current_paper, app.store.get(main.current_paper.id)


async def draft_kept(pilot, paper, text: str) -> None:
    """Wait until the note dialog, once typing rests, has kept `text` on disk as the paper's draft."""
    drafts = pilot.app.drafts
    await wait_until(pilot, lambda: (draft := drafts.load(paper.id)) and draft.text == text, f"the draft {text!r}")


async def test_star_toggles_and_shows_in_row_header_and_store(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        paper, note = current(app)
        assert note.starred
        assert "1 starred" in screen_text(app)
        assert "★" in app.main_screen.paper_list.render_line(0).text
        await pilot.press("s")
        await settle(pilot)
        assert not current(app)[1].starred
    assert not Store(tmp_path / "db.json").get(paper.id).starred


async def test_a_change_to_the_shown_paper_keeps_the_detail_scrolled_where_it_was(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 20)) as pilot:
        await settle(pilot)
        body = app.main_screen.query_one(DetailBody)
        body.scroll_to(y=4, animate=False, immediate=True)
        await pilot.press("s", "2")
        await settle(pilot)
        assert current(app)[1].starred and current(app)[1].status == "reading"
        assert body.scroll_offset.y == 4
        await pilot.press("j")
        await settle(pilot)
        assert body.scroll_offset.y == 0  # another paper starts at its top


async def test_status_keys(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        seen = []
        for _ in range(3):
            await pilot.press("r")
            await settle(pilot)
            seen.append(current(app)[1].status)
        assert seen == ["reading", "read", "unread"]
        await pilot.press("3")
        await settle(pilot)
        assert current(app)[1].status == "read"
        assert "1 read" in screen_text(app)
        await pilot.press("2")
        await settle(pilot)
        assert current(app)[1].status == "reading"
        await pilot.press("1")
        await settle(pilot)
        assert current(app)[1].status == "unread"
        paper = app.main_screen.current_paper
        await pilot.press("3")
        await settle(pilot)
    assert Store(tmp_path / "db.json").get(paper.id).status == "read"


async def test_note_modal_saves_with_ctrl_s(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"Read [/bold] later", "ctrl+s")
        await settle(pilot)
        assert current(app)[1].note == "Read [/bold] later"
        assert "Read [/bold] later" in screen_text(app)


async def test_a_note_typed_in_one_burst_is_saved_whole_by_the_ctrl_s_after_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        typed = ("Read [/bold] later, with care. " * 100).strip()  # ~3,000 characters, as a paste
        await press_together(pilot, *typed, "ctrl+s")
        assert app.screen is app.main_screen
        assert current(app)[1].note == typed


async def test_esc_right_after_a_burst_of_typing_in_a_note_asks_before_discarding_it(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await press_together(pilot, *"a draft", "escape")
        assert "Discard the changes" in screen_text(app)


async def test_a_note_changed_elsewhere_while_the_dialog_is_open_is_kept_beside_the_edit(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        Store(tmp_path / "db.json").set_note(paper, "IMPORTANT from another window")  # another process
        await pilot.press(*"mine", "ctrl+s")
        await settle(pilot)
        note = current(app)[1].note
        assert note.startswith("mine") and note.endswith("IMPORTANT from another window")
        assert any("both versions are kept" in n.message for n in notifications(app))
    assert Store(tmp_path / "db.json").get(paper.id).note == note


async def test_a_note_left_unsaved_when_the_terminal_closes_comes_back_next_time(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"half a thought")
        await draft_kept(pilot, paper, "half a thought")
    # the app ends with the dialog open and nothing saved, as when the terminal closes
    assert Store(tmp_path / "db.json").get(paper.id).note == ""
    again = make_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("Unsaved notes kept from last time" in n.message for n in notifications(again))
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert again.screen.text == "half a thought"
        await pilot.press(*" finished", "ctrl+s")
        await settle(pilot)
        assert current(again)[1].note == "half a thought finished"
    assert not list((tmp_path / "db.drafts").iterdir())  # saved: the draft is gone


async def test_a_note_the_database_cannot_take_now_keeps_its_draft(tmp_path):
    app = make_app(tmp_path)
    db = tmp_path / "db.json"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")  # the database exists
        await settle(pilot)
        db.chmod(0o444)  # and can no longer be written
        paper = app.main_screen.current_paper
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"only in memory", "ctrl+s")
        await settle(pilot)
        assert app.store.pending_error
        assert not any(n.message == "Note saved" for n in notifications(app))
    assert Drafts(tmp_path / "db.drafts").load(paper.id).text == "only in memory"


async def test_a_restored_draft_keeps_a_change_made_to_the_note_after_it(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        app.store.set_note(paper, "first line")
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press("end", *" and a draft")
        await draft_kept(pilot, paper, "first line and a draft")
    # the terminal closed with the dialog open; then a script appended to the note
    Store(tmp_path / "db.json").append_note(paper, "from a script")
    again = make_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert again.screen.text == "first line and a draft"
        await pilot.press("ctrl+s")
        await settle(pilot)
        note = current(again)[1].note
        assert note.startswith("first line and a draft") and note.endswith("first line\nfrom a script")
        assert any("both versions are kept" in n.message for n in notifications(again))


async def test_a_draft_follows_its_paper_when_the_papers_text_changes(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "n")  # starred: an annotation to re-attach
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"half a thought")
        await draft_kept(pilot, app.main_screen.current_paper, "half a thought")
    fixed = PAPERS.replace("needs four steps", "needs only four steps")
    again = make_app(tmp_path, fixed)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("Unsaved notes kept from last time" in n.message for n in notifications(again))
        assert again.main_screen.current_paper.text.startswith("We propose FastDiff")
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert again.screen.text == "half a thought"
    stranded = make_app(tmp_path, PAPERS.replace("We propose FastDiff", "Unrelated now:"))
    Drafts(tmp_path / "db.drafts").save(again.papers.papers[0].id, "left here", "")
    async with stranded.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert any("unsaved note(s) belong to papers not in this list" in n.message for n in notifications(stranded))


async def test_a_draft_another_running_readlist_is_writing_is_not_offered_here(tmp_path):
    import os

    app = make_app(tmp_path)
    paper = app.papers.papers[0]
    other = Drafts(tmp_path / "db.drafts", pid=os.getppid())  # a readlist still running, its dialog open
    other.save(paper.id, "typed in the other window", "")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not any("Unsaved notes" in n.message for n in notifications(app))
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        assert app.screen.text == ""
        await pilot.press("escape")
        await settle(pilot)
    assert other.load(paper.id).text == "typed in the other window"  # left to its owner


async def test_note_modal_escape_asks_before_discarding(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await wait_for_screen(pilot, NoteScreen)
        await pilot.press(*"draft", "escape")
        await wait_for_screen(pilot, ConfirmScreen)
        assert "Discard the changes" in screen_text(app)
        await pilot.press("n")  # no: keep editing
        await wait_for_screen(pilot, NoteScreen)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press("escape", "y")
        await settle(pilot)
        assert current(app)[1].note == ""


async def test_the_note_dialog_keeps_a_note_longer_than_a_note_may_be_open_and_says_so(app):
    from readlist.core.store.note_edits import MAX_NOTE_CHARS

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        line = "a line of a very long note\n"
        app.screen.query_one("#note-text").insert(line * (MAX_NOTE_CHARS // len(line)) + "x" * len(line))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)  # still open, the text in it
        assert len(app.screen.text) > MAX_NOTE_CHARS
        [told] = [n.message for n in notifications(app) if "at most" in n.message]
        size = f"{len(app.screen.text):,}"
        assert told == f"A note can hold at most 1,000,000 characters, this one would have {size}; shorten it to save"
        assert current(app)[1].note == ""


def use_editor(tmp_path, monkeypatch, program: str) -> None:
    """$EDITOR runs this Python `program` (the file to edit is its last argument); $VISUAL is unset."""
    script = tmp_path / "editor.py"
    script.write_text(program)
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)


async def test_external_editor_note(app, tmp_path, monkeypatch):
    use_editor(tmp_path, monkeypatch, "import sys\nopen(sys.argv[1], 'a').write('from the editor')\n")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert current(app)[1].note == "from the editor"


async def test_external_editor_note_in_the_locales_encoding_is_read_and_one_it_cannot_read_is_kept(
    app, tmp_path, monkeypatch
):
    import locale

    latin1 = "import sys, pathlib\npathlib.Path(sys.argv[-1]).write_bytes('café crème'.encode('latin-1'))\n"
    use_editor(tmp_path, monkeypatch, latin1)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(locale, "getencoding", lambda: "ISO-8859-1")
        await pilot.press("e")
        await settle(pilot)
        assert current(app)[1].note == "café crème"
        await pilot.press("j")
        monkeypatch.setattr(locale, "getencoding", lambda: "UTF-8")
        await pilot.press("e")
        await settle(pilot)
        assert current(app)[1].note == ""
        [told] = [n.message for n in notifications(app) if n.message.startswith("Cannot read the edited note")]
        assert "note unchanged" in told
        kept = Path(told.split()[-1])
        assert kept.read_bytes() == "café crème".encode("latin-1")  # what was typed is still there
        kept.unlink()


async def test_missing_editor_is_a_notification(app, monkeypatch):
    monkeypatch.setenv("EDITOR", "/nonexistent/editor")
    monkeypatch.delenv("VISUAL", raising=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert any("Cannot run editor" in n.message for n in notifications(app))
        assert current(app)[1].note == ""


async def test_unreadable_visual_is_a_notification_naming_it(app, monkeypatch):
    monkeypatch.setenv("VISUAL", "'unclosed")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert any(n.message.startswith("Cannot read $VISUAL") for n in notifications(app))
        assert current(app)[1].note == ""


async def test_tags_with_completion(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        assert isinstance(app.screen, TagsScreen)
        await pilot.press(*"diffusion theory", "enter")
        await settle(pilot)
        assert current(app)[1].tags == ("diffusion", "theory")
        assert "#diffusion" in app.main_screen.paper_list.render_line(0).text
        await pilot.press("j", "t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"diff", "right", "enter")
        await settle(pilot)
        assert current(app)[1].tags == ("diffusion",)


async def test_saving_tags_keeps_tags_added_elsewhere_while_the_dialog_was_open(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        app.store.update(paper, tags=["theory", "ml"])
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        Store(tmp_path / "db.json").change_tags(paper, ["fromcli"])  # `readlist tag '#1' +fromcli` meanwhile
        await pilot.press("end", "backspace", "backspace", "backspace", *"ML rl", "enter")  # ml -> ML, rl added
        await settle(pilot)
        assert current(app)[1].tags == ("theory", "fromcli", "ML", "rl")
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press("ctrl+u", *"rl", "enter")  # every tag the dialog showed removed
        await settle(pilot)
        assert current(app)[1].tags == ("rl",)


def test_typed_tags_are_normalised_like_the_store_does():
    assert parse_tags("#rl, theory  RL ML ml") == ["rl", "theory", "ML"]
    assert parse_tags('"two  words" "c,d" rl "open') == ["two words", "c,d", "rl", "open"]


async def test_tags_holding_a_space_or_a_comma_survive_the_dialog(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        app.store.update(paper, tags=["c,d", "two words"])  # as `readlist tag '#1' c,d 'two words'` makes them
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        assert app.screen.query_one("#tags-input").value == '"c,d" "two words" '
        await pilot.press("enter")  # saved unchanged
        await settle(pilot)
        assert current(app)[1].tags == ("c,d", "two words")
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"new", "enter")
        await settle(pilot)
        assert current(app)[1].tags == ("c,d", "two words", "new")


async def test_adding_a_tag_in_the_dialog_keeps_tags_holding_a_quote_or_a_leading_hash(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        made = ('say "hi"', 'a"b', "#x")  # as `readlist tag '#1' '+say "hi"' '+a"b' '+#x'` makes them
        app.store.update(app.main_screen.current_paper, tags=list(made))
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"new", "enter")
        await settle(pilot)
        assert current(app)[1].tags == (*made, "new")  # before: 'say', 'hi', 'a', 'b', 'x', 'new'


async def test_typing_in_the_tags_dialog_adds_to_the_tags_it_shows(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", *"alpha beta", "enter")
        await settle(pilot)
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"gamma", "enter")  # before: the shown tags were selected, and typing replaced them
        await settle(pilot)
        assert current(app)[1].tags == ("alpha", "beta", "gamma")


async def test_tags_that_do_not_fit_the_row_end_with_an_ellipsis(app):
    async with app.run_test(size=(70, 24)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"kolmogorov-arnold-networks reading-group-wednesday", "enter")
        await settle(pilot)
        row = app.main_screen.paper_list.render_line(0).text.rstrip()
        assert "#kolmogorov" in row and row.endswith("…")
        assert "#reading-group-wednesday" not in row


async def test_a_chinese_title_is_cut_by_screen_width_and_keeps_its_tag(app):
    from rich.cells import cell_len

    async with app.run_test(size=(70, 24)) as pilot:
        await settle(pilot)
        paper_list = app.main_screen.paper_list
        width = paper_list.scrollable_content_region.width
        await pilot.press("T")
        await wait_for_screen(pilot, TitleScreen)
        title = "深度强化学习中的探索方法与内在奖励设计以及稀疏奖励环境下的长期信用分配问题研究"
        await pilot.press("ctrl+u", *title, "enter")
        await pilot.press("t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"rl", "enter")
        await settle(pilot)
        row = paper_list.render_line(0).text.rstrip()
        assert "深度强化学习" in row and "…" in row and row.endswith("#rl")
        assert cell_len(row) <= width


async def test_undo_repeatedly(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s", "r")
        await settle(pilot)
        assert current(app)[1].starred and current(app)[1].status == "reading"
        await pilot.press("u")
        await settle(pilot)
        assert current(app)[1].status == "unread" and current(app)[1].starred
        await pilot.press("u")
        await settle(pilot)
        assert not current(app)[1].starred


async def test_mark_view_read_asks_and_undoes_as_one_step(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"models", "enter")
        await settle(pilot)
        in_view = app.main_screen.paper_list.row_count
        assert 0 < in_view < 5
        await pilot.press("R")
        await wait_for_screen(pilot, ConfirmScreen)
        assert f"Mark the {in_view} papers in this view as read?" in screen_text(app)
        await pilot.press("y")
        await settle(pilot)
        assert sum(n.status == "read" for n in app.store.all().values()) == in_view
        await pilot.press("u")
        await settle(pilot)
        assert sum(n.status == "read" for n in app.store.all().values()) == 0


async def test_mark_view_read_leaves_the_papers_missing_a_word(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"language tables", "enter")
        await settle(pilot)
        main = app.main_screen
        assert main.view.matches == 1 and main.view.partial >= 1
        await pilot.press("R")
        await wait_for_screen(pilot, ConfirmScreen)
        text = screen_text(app)
        assert "Mark the one paper matching the whole search as read?" in text
        assert "missing a word" in text
        await pilot.press("y")
        await settle(pilot)
        read = [pid for pid, note in app.store.all().items() if note.status == "read"]
        assert read == [main.papers.papers[main.paper_list.position_at(0)].id]


async def test_space_marks_read_and_moves_on_and_N_finds_next_unread(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first = app.main_screen.current_paper
        await pilot.press("space")
        await settle(pilot)
        assert app.store.get(first.id).status == "read"
        assert app.main_screen.paper_list.cursor == 1
        await pilot.press("space", "space")
        await settle(pilot)
        await pilot.press("g", "N")
        assert app.main_screen.paper_list.cursor == 3
        await pilot.press("G", "3", "N")  # the last paper read: N goes round to the first unread from the top
        await settle(pilot)
        assert app.main_screen.paper_list.cursor == 3
        assert any(n.message.startswith("No unread paper below") for n in notifications(app))


async def test_progress_screen(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3", "t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*"theory", "enter")
        await settle(pilot)
        await pilot.press("p")
        await wait_for_screen(pilot, ProgressScreen)
        text = screen_text(app)
        assert "Reading progress" in text and "5 papers" in text and "#theory" in text
        from textual.widgets import Sparkline

        assert sum(app.screen.query_one(Sparkline).data) == 1
        await pilot.press("escape")


async def test_external_change_is_noticed(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper = app.main_screen.current_paper
        other = Store(tmp_path / "db.json")
        other.toggle_star(paper)
        await app.poll_store()
        await settle(pilot)
        assert "1 starred" in screen_text(app)


async def test_damaged_database_is_a_sticky_notification(tmp_path):
    db = tmp_path / "db.json"
    db.write_text('{"annotations": {"1": ', encoding="utf-8")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        messages = [n for n in notifications(app)]
        assert messages and messages[0].severity == "error"
        assert messages[0].timeout > 3600
    assert any(Path(p).name.startswith("db.json.corrupt-") for p in map(str, tmp_path.iterdir()))


async def test_triage_in_unread_filter_keeps_the_place(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")  # unread
        await settle(pilot)
        await pilot.press("j", "j", "j")
        await settle(pilot)
        fourth, fifth = app.main_screen.paper_list.positions[3:5]
        await pilot.press("3")  # read: it leaves the unread view
        await settle(pilot)
        assert app.main_screen.paper_list.row_count == 18
        assert app.main_screen.paper_list.current == fifth
        await pilot.press("space")
        await settle(pilot)
        assert app.store.get(app.papers.papers[fifth].id).status == "read"
        assert app.main_screen.paper_list.cursor == 3
        assert fourth not in app.main_screen.paper_list.positions


async def test_keys_pressed_together_in_a_starred_view_each_act_on_the_paper_then_selected(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        first, second, third = app.papers.papers[:3]
        app.store.update_many([first, second, third], starred=True)
        await pilot.press("slash", *"is:starred", "enter")
        await settle(pilot)
        assert app.main_screen.paper_list.row_count == 3
        await press_together(pilot, "s", "s")  # each unstars the paper selected when it is handled
        assert [app.store.get(p.id).starred for p in (first, second, third)] == [False, False, True]
        assert app.main_screen.current_paper is third


async def test_space_pressed_twice_at_once_in_the_unread_view_reads_the_next_two_papers(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("f")  # unread
        await settle(pilot)
        first, second, third = app.main_screen.paper_list.positions[:3]
        await press_together(pilot, "space", "space")
        read = [pos for pos in (first, second, third) if app.store.get(app.papers.papers[pos].id).status == "read"]
        assert read == [first, second]
        assert app.main_screen.paper_list.current == third


async def test_giving_a_paper_its_own_title_shows_everywhere_and_can_be_undone(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        paper, _ = current(app)
        own = paper.title
        await pilot.press("T")
        await settle(pilot)
        assert isinstance(app.screen, TitleScreen)
        assert app.screen.query_one("#title-input").value == own  # starts from the title shown
        await pilot.press("ctrl+u", *"Four-step sampler [/bold] to reread", "enter")
        await settle(pilot)
        assert current(app)[1].title == "Four-step sampler [/bold] to reread"
        assert "Four-step sampler [/bold] to reread" in app.main_screen.paper_list.render_line(0).text
        assert screen_text(app).count("Four-step sampler [/bold] to reread") == 2  # the row and the detail
        await pilot.press("slash", *"title:reread", "enter")
        await settle(pilot)
        assert app.main_screen.view.matches == 1
        await pilot.press("slash", "escape", "escape")
        await settle(pilot)
        await pilot.press("T", "ctrl+u", "enter")  # empty: the paper's own title again
        await settle(pilot)
        assert current(app)[1].title is None
        assert own[:40] in app.main_screen.paper_list.render_line(0).text
        await pilot.press("u")  # undo brings the user's title back
        await settle(pilot)
        assert current(app)[1].title == "Four-step sampler [/bold] to reread"
    assert Store(tmp_path / "db.json").get(paper.id).title == "Four-step sampler [/bold] to reread"


async def test_undoing_a_title_names_the_paper_by_the_title_shown_after_the_undo(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        own = current(app)[0].title
        await pilot.press("T", "ctrl+u", *"X: my own title", "enter")
        await settle(pilot)
        notifications(app).clear()
        await pilot.press("u")
        await settle(pilot)
        [message] = [note.message for note in notifications(app)]
        assert message.startswith("Undid title → 'X: my own title' on '")
        assert message.endswith(f"on {cut_label(own)!r}")


async def test_a_title_dialog_cancelled_or_unchanged_writes_nothing(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("T", "x", "escape")
        await settle(pilot)
        await pilot.press("T", "enter")  # the same title as shown
        await settle(pilot)
        assert current(app)[1].title is None
    assert not (tmp_path / "db.json").exists() or Store(tmp_path / "db.json").get(current(app)[0].id).title is None


async def test_a_title_cut_short_is_edited_without_its_ellipsis(tmp_path):
    from textual.widgets import Input

    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        papers = app.main_screen.papers.papers
        cut = next(n for n, paper in enumerate(papers) if paper.title.endswith("…"))
        await pilot.press(*["j"] * cut, "T")
        await settle(pilot)
        assert app.screen.query_one(Input).value == papers[cut].title[:-1].rstrip()
        await pilot.press("enter")  # unchanged: still the paper's own title
        await settle(pilot)
        assert current(app)[1].title is None
        await pilot.press("T", "end", *" equations", "enter")
        await settle(pilot)
        assert current(app)[1].title == papers[cut].title[:-1].rstrip() + " equations"


async def test_related_labels_and_the_palette_follow_a_title_change_and_its_undo(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.palette_titles is not None
        related = app.related_index()
        b = next(p for p in range(1, len(main.papers.papers)) if 0 in [q for q, _ in related.related(p, k=5)])
        await pilot.press("T", "ctrl+u", *"My own name", "enter")  # paper 0, under the cursor
        await settle(pilot)
        await pilot.press("ctrl+p")  # the palette opened next is made again, with the new title
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.palette_titles[1][0] == "My own name"
        main.navigator.jump_to(b)
        await wait_for_related(pilot)
        options = main.query_one(RelatedList)

        def labels() -> str:
            return " | ".join(str(options.get_option_at_index(n).prompt) for n in range(options.option_count))

        assert "My own name" in labels()  # paper 0 among paper b's related papers
        await pilot.press("u")  # undo the title: paper b stays shown, its related list is relabelled
        await settle(pilot)
        assert main.current_paper is main.papers.papers[b]
        assert "My own name" not in labels()
        assert main.papers.papers[0].title[:30] in labels()
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.palette_titles[1][0] == main.papers.papers[0].title  # and the palette follows the undo


@pytest.mark.parametrize(
    ("opens", "closes"),
    [
        ("t", "enter"),
        ("t", "escape"),
        ("T", "enter"),
        ("s x", "enter"),  # a paper starred: x opens the dialog
        ("n", "ctrl+s"),
        ("R", "y"),
        ("question_mark", "escape"),
        ("p", "escape"),
    ],
)
async def test_a_key_pressed_twice_at_once_closes_only_the_dialog(app, opens, closes):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*opens.split())
        await settle(pilot)
        assert app.screen is not app.main_screen
        await press_together(pilot, closes, closes)
        assert app.screen is app.main_screen
        assert "papers" in screen_text(app)  # the list, not a blank screen
        await pilot.press("question_mark")
        await wait_for_screen(pilot, HelpScreen)
        assert isinstance(app.screen, HelpScreen)


async def test_completing_a_tag_that_holds_a_space_keeps_it_one_tag(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", *'ml "deep learning"', "enter")
        await settle(pilot)
        await pilot.press("j", "t")
        await wait_for_screen(pilot, TagsScreen)
        await pilot.press(*'"de', "right", "enter")  # before: completed unquoted, saved as "deep" and "learning"
        await settle(pilot)
        assert current(app)[1].tags == ("deep learning",)


@pytest.fixture
def only_vi(tmp_path, monkeypatch):
    """$VISUAL and $EDITOR unset, and a `vi` on the PATH that appends to the file it is given."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    vi = bin_dir / "vi"
    vi.write_text(f"#!{sys.executable}\nimport sys\nopen(sys.argv[-1], 'a').write('from vi')\n")
    vi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/nonexistent")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    return vi


async def test_e_without_an_editor_set_asks_before_opening_vi_and_says_how_to_choose_one(app, only_vi):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await wait_for_screen(pilot, ConfirmScreen)  # before: vi opened without a word
        question = app.screen.question
        assert "open the note in vi?" in question and "EDITOR=nano readlist" in question
        await pilot.press("n")
        await settle(pilot)
        assert current(app)[1].note == ""  # not opened
        await pilot.press("e")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert current(app)[1].note == "from vi"
        await pilot.press("j", "e")  # asked once a session
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert current(app)[1].note == "from vi"


async def test_e_without_an_editor_set_or_vi_says_how_to_choose_one(app, only_vi):
    only_vi.unlink()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        [told] = [n.message for n in notifications(app) if "not installed" in n.message]
        assert told.startswith("Neither $VISUAL nor $EDITOR is set and vi is not installed; note unchanged.")
        assert "EDITOR=nano readlist" in told
