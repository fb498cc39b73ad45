"""Conflict copies a file-sync tool leaves beside the database, named as each tool names them: merged once (with a
backup first), moved into merged/ (never deleted), nothing done on the next look; files of other names, and
copies that are no readlist database, left where they are."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from readlist.cli import cli
from readlist.core.papers.reader import parse_text
from readlist.core.store.conflict_copies import ConflictCopies, conflict_copies
from readlist.core.store.store import Store

TEXT = (
    "We study sparse attention for long documents and show that learned routing matches dense attention.\n\n"
    "A new benchmark for table question answering reveals that retrieval errors dominate model failures.\n\n"
    "Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.\n"
)

NAMES = {
    "Syncthing": "readlist.sync-conflict-20261204-101500-ABCDEF7.json",
    "Dropbox": "readlist (conflicted copy 2026-12-04).json",
    "Dropbox, a device": "readlist (Jane Doe's conflicted copy 2026-12-04).json",
    "Nextcloud": "readlist (conflicted copy 2026-12-04 101500).json",
    "ownCloud": "readlist_conflict-20261204-101500.json",
    "OneDrive": "readlist-DESKTOP-AB12CDE.json",
}
NOT_COPIES = [
    "readlist-backup.json",
    "readlist-OLD.json",
    "readlist-2024.json",
    "readlist (copy).json",
    "readlist.ui.json",
    "readlist.json.lock",
    "readlist.json.bak-20261204T101500.000000Z-merge",
    "readlist.json.corrupt-20261204T101500.000000Z",
    "notes.sync-conflict-20261204-101500-ABCDEF7.json",
    "readlist (Eve\nreadlist: Merged's conflicted copy 2026-12-04).json",  # no device is named over two lines
]


@pytest.fixture
def papers():
    return parse_text(TEXT).papers


@pytest.fixture
def machines(tmp_path, papers):
    """(this machine's database, a function writing the other machine's copy under a name): both start from one
    database with the first paper starred; then each marks another paper."""
    folder = tmp_path / "Sync"
    db = folder / "readlist.json"
    Store(db).update(papers[0], starred=True)
    other = tmp_path / "elsewhere" / "readlist.json"
    other.parent.mkdir()
    shutil.copyfile(db, other)
    Store(other).update(papers[1], status="read", tags=["tables"])
    Store(db).update(papers[2], status="reading")

    def copy_as(name: str):
        shutil.copyfile(other, folder / name)
        return folder / name

    return db, copy_as


@pytest.mark.parametrize("tool", list(NAMES))
def test_a_conflict_copy_is_merged_once_and_moved_into_merged(machines, papers, tool):
    db, copy_as = machines
    copy = copy_as(NAMES[tool])
    original = copy.read_bytes()
    store = Store(db)
    looks = ConflictCopies()
    outcome = looks.merge_into(store)
    assert outcome.changed and outcome.lines == []
    assert outcome.merged.startswith(f"Merged the {tool.split(',')[0]} conflict copy {copy.name!r} into readlist.json")
    for current in (store, Store(db)):  # here, and on disk
        assert current.get(papers[0].id).starred and current.get(papers[2].id).status == "reading"
        assert current.get(papers[1].id).status == "read" and current.get(papers[1].id).tags == ("tables",)
    assert not copy.exists() and (db.parent / "merged" / copy.name).read_bytes() == original
    assert list(db.parent.glob("readlist.json.bak-*-merge"))  # the database before the merge
    again = looks.merge_into(store)
    assert (again.merged, again.lines, again.changed) == (None, [], False)
    assert ConflictCopies().merge_into(Store(db)).said() == []  # a later start finds nothing either


def test_files_of_other_names_are_not_taken_for_conflict_copies(machines):
    db, copy_as = machines
    for name in NOT_COPIES:
        copy_as(name)
    assert conflict_copies(db) == []
    assert ConflictCopies().merge_into(Store(db)).said() == []
    assert all((db.parent / name).exists() for name in NOT_COPIES)


def test_a_name_taken_in_merged_gets_a_number_and_nothing_there_is_written_over(machines):
    db, copy_as = machines
    earlier = db.parent / "merged" / NAMES["Syncthing"]
    earlier.parent.mkdir()
    earlier.write_text("an earlier copy", encoding="utf-8")
    copy_as(NAMES["Syncthing"])
    ConflictCopies().merge_into(Store(db))
    assert earlier.read_text(encoding="utf-8") == "an earlier copy"
    assert (earlier.parent / NAMES["Syncthing"].replace(".json", "~2.json")).exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\x89PNG\r\n\x1a\n not a database", "not a readlist database"),
        (json.dumps({"meta": {"1": {"schema_version": 99}}, "annotations": {}, "events": {}}).encode(), "newer"),
    ],
)
def test_a_copy_that_cannot_be_merged_is_left_where_it_is_and_said_once(machines, content, said):
    db, _ = machines
    copy = db.parent / NAMES["Dropbox"]
    copy.write_bytes(content)
    before = db.read_bytes()
    looks, store = ConflictCopies(), Store(db)
    outcome = looks.merge_into(store)
    assert outcome.merged is None and len(outcome.lines) == 1
    assert str(copy) in outcome.lines[0] and said in outcome.lines[0] and "left where it is" in outcome.lines[0]
    assert looks.merge_into(store).said() == []  # said once
    assert copy.read_bytes() == content and db.read_bytes() == before and not (db.parent / "merged").exists()


def test_a_file_named_as_onedrive_names_copies_that_is_no_database_is_passed_over_in_silence(machines):
    db, _ = machines
    (db.parent / NAMES["OneDrive"]).write_text('{"settings": true}', encoding="utf-8")
    assert ConflictCopies().merge_into(Store(db)).said() == []
    assert (db.parent / NAMES["OneDrive"]).exists()


def test_a_command_merges_a_conflict_copy_at_start_saying_so_in_one_line_then_never_again(machines, tmp_path):
    db, copy_as = machines
    papers = tmp_path / "papers.txt"
    papers.write_text(TEXT, encoding="utf-8")
    copy_as(NAMES["Syncthing"])

    def listed():
        result = CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), "list", "--json"])
        assert result.exit_code == 0, result.output
        return result.stderr, json.loads(result.stdout)

    said, shown = listed()
    assert said.count("\n") == 1 and "Merged the Syncthing conflict copy" in said and "merged" in said
    assert [p["status"] for p in shown] == ["unread", "read", "reading"] and shown[0]["starred"]
    assert listed()[0] == ""


def test_a_copy_that_could_not_be_merged_for_now_is_said_once_and_merged_on_a_later_look(machines, monkeypatch):
    import readlist.core.store.conflict_copies as copies

    db, copy_as = machines
    copy = copy_as(NAMES["Syncthing"])
    merge_database = copies.merge_database

    def locked(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(copies, "merge_database", locked)
    looks, store = ConflictCopies(), Store(db)
    first = looks.merge_into(store)
    assert (
        first.merged is None and len(first.lines) == 1 and "(No space left on device); trying again" in first.lines[0]
    )
    assert looks.merge_into(store).said() == [] and copy.exists()  # said once
    monkeypatch.setattr(copies, "merge_database", merge_database)
    assert looks.merge_into(store).merged.startswith("Merged the Syncthing conflict copy") and not copy.exists()


def test_a_database_of_its_own_named_as_onedrive_names_copies_is_left_alone(machines, tmp_path):
    db, _ = machines
    papers = tmp_path / "papers.txt"
    papers.write_text(TEXT, encoding="utf-8")
    work = db.parent / "readlist-WORK.json"  # a second database, opened with --db: it has readlist's files beside it

    def run(database, *args):
        result = CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(database), *args])
        assert result.exit_code == 0, result.output
        return result

    run(db, "list")  # the paper file is remembered in the library of lists with its first opening
    run(work, "note", "#3", "--text", "work notes")
    before = db.read_bytes()
    assert run(db, "list").stderr == ""
    assert db.read_bytes() == before and not (db.parent / "merged").exists()
    assert json.loads(run(work, "list", "--json").stdout)[2]["note"] == "work notes"


def test_a_onedrive_copy_of_another_database_beside_it_is_left_to_that_database(machines, papers):
    db, _ = machines
    work = db.parent / "readlist-WORK.json"
    Store(work).update(papers[0], note="work notes")
    laptop = db.parent.parent / "work-laptop.json"
    shutil.copyfile(work, laptop)
    Store(laptop).update(papers[1], note="written on the laptop")
    copy = db.parent / "readlist-WORK-PC1.json"  # OneDrive's copy of readlist-WORK.json from the machine PC1
    shutil.copyfile(laptop, copy)
    before = db.read_bytes()
    assert ConflictCopies().merge_into(Store(db)).said() == [] and db.read_bytes() == before and copy.exists()
    assert ConflictCopies().merge_into(Store(work)).merged.startswith("Merged the OneDrive conflict copy")
    assert Store(work).get(papers[1].id).note == "written on the laptop"
