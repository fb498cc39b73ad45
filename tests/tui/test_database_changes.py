"""The TUI while another program changes its database: a newer readlist's file is never written over, and a
paper whose annotations another readlist re-attached is followed to its new id."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store
from readlist.tui.screens.dialogs.note import NoteScreen

from .conftest import PAPERS, app_on_a_paper_file, make_app, notifications, settle, wait_until


async def test_a_newer_readlists_file_put_in_place_while_open_is_left_alone_by_polls_and_keys(tmp_path):
    app = make_app(tmp_path)
    db = tmp_path / "db.json"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")  # the file now exists
        await settle(pilot)
        newer = json.dumps({"meta": {"1": {"schema_version": 99}}, "annotations": {}, "events": {}}).encode()
        swap = tmp_path / "swap"
        swap.write_bytes(newer)
        swap.replace(db)
        for _ in range(2):  # polls, with nothing pressed
            await app.poll_store()
        await pilot.press("j", "s")
        await settle(pilot)
        await app.poll_store()
        assert db.read_bytes() == newer and not list(tmp_path.glob("db.json.corrupt-*"))
        messages = [n.message for n in notifications(app)]
        assert sum("written by a newer readlist" in m and "left as it is" in m for m in messages) == 1
        assert app.store.get(app.papers.papers[1].id).starred  # kept in memory


async def test_a_paper_edited_while_open_and_re_attached_by_another_readlist_is_starred_and_noted_there(tmp_path):
    papers_file, app = app_on_a_paper_file(tmp_path)
    db = tmp_path / "db.json"

    def readlist(*args):
        return CliRunner().invoke(cli, ["--papers", str(papers_file), "--db", str(db), *args])

    assert readlist("note", "#2", "--text", "first thoughts").exit_code == 0
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.poll_store()  # the note was written after the window read the database
        await pilot.press("j")
        await settle(pilot)
        # A typo fixed in #2, and another readlist reading the file moves the note to the paper's new id.
        papers_file.write_text(PAPERS.replace("as a remedy.", "as a remedy, with bounds."))
        assert "re-attached the annotations of #2" in readlist("list").stderr
        await app.poll_store()
        await pilot.press("s", "n")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen) and app.screen.text == "first thoughts"  # before: empty
        await pilot.press(*" and more", "ctrl+s")
        await settle(pilot)
    new = read_papers(papers_file).papers[1]
    store = Store(db)
    assert store.get(new.id).starred and store.get(new.id).note == "first thoughts and more"
    assert len(store.all()) == 1  # nothing under the old id


async def test_conflict_copies_a_sync_tool_leaves_are_merged_at_start_and_on_a_poll_each_said_once(tmp_path):
    app = make_app(tmp_path)
    db = tmp_path / "db.json"
    first, second, third = app.papers.papers[:3]
    Store(db).update(first, starred=True)
    other = tmp_path / "elsewhere.json"
    shutil.copyfile(db, other)
    Store(other).update(second, status="read")
    shutil.copyfile(other, tmp_path / "db.sync-conflict-20261204-101500-ABCDEF7.json")

    def merged_notices() -> list[str]:
        return [n.message for n in notifications(app) if n.message.startswith("Merged ")]

    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: merged_notices(), "the copy there at start merged")
        assert app.store.get(second.id).status == "read" and app.store.get(first.id).starred
        Store(other).update(third, note="written on the laptop")
        shutil.copyfile(other, tmp_path / "db (conflicted copy 2026-12-04).json")
        await app.poll_store()
        await settle(pilot)
        assert app.store.get(third.id).note == "written on the laptop"
        assert "the Dropbox conflict copy" in merged_notices()[-1]
        await app.poll_store()  # nothing left to merge: nothing more said
        assert len(merged_notices()) == 2
    assert sorted(p.name for p in (tmp_path / "merged").iterdir()) == [
        "db (conflicted copy 2026-12-04).json",
        "db.sync-conflict-20261204-101500-ABCDEF7.json",
    ]
