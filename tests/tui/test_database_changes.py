"""The TUI while another program changes its database: a newer readlist's file is never written over."""

from __future__ import annotations

import json

from .conftest import make_app, settle


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
        messages = [n.message for n in app._notifications]
        assert sum("written by a newer readlist" in m and "left as it is" in m for m in messages) == 1
        assert app.store.get(app.papers.papers[1].id).starred  # kept in memory


async def test_a_star_and_a_note_follow_annotations_another_readlist_re_attached(tmp_path):
    from click.testing import CliRunner
    from textual.widgets import TextArea

    from readlist.cli import cli
    from readlist.core.papers.reader import read_papers
    from readlist.core.store.store import Store
    from readlist.tui.app import ReadlistApp
    from readlist.tui.screens.dialogs.note import NoteScreen

    from .conftest import PAPERS

    papers_file, db = tmp_path / "papers.txt", tmp_path / "db.json"
    papers_file.write_text(PAPERS)
    app = ReadlistApp(read_papers(papers_file), db, cursor_blink=False)
    old = app.papers.papers[0]
    Store(db).set_note(old, "first thoughts")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        papers_file.write_text(PAPERS.replace("needs four steps", "needs only four steps"))  # a typo fixed
        listed = CliRunner().invoke(cli, ["--papers", str(papers_file), "--db", str(db), "list"])
        assert listed.exit_code == 0  # which re-attaches #1's note to its new id
        new_id = read_papers(papers_file).papers[0].id
        assert Store(db).get(new_id).note == "first thoughts"
        await app.poll_store()
        await pilot.press("s", "n")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        area = app.screen.query_one(TextArea)
        assert area.text == "first thoughts"  # the note as it is, not an empty one
        area.insert("\nmore")
        await pilot.press("ctrl+s")
        await settle(pilot)
    record = Store(db).get(new_id)
    assert record.starred and record.note == "first thoughts\nmore"
    assert Store(db).get(old.id).is_default  # nothing split off under the old id
