"""The database written small (schema 3): annotations without their defaults, a change's log entries to many papers
on one line, a paper only marked read keeping its opening; a schema 2 file migrated without losing anything, also
when the migration is interrupted."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import parse_text, read_papers
from readlist.core.store import compaction
from readlist.core.store.annotation import OPENING_CHARS, Event, sketch_of, snippet_of
from readlist.core.store.store import Store


@pytest.fixture(scope="module")
def papers():
    return read_papers(bundled_papers()).papers


def events_on_disk(db) -> dict:
    return json.loads(db.read_text(encoding="utf-8"))["events"]


def test_marking_many_papers_read_is_one_line_of_the_log_and_reads_back_entry_by_entry(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    assert store.update_many(papers[:12], status="read") == 12
    (packed,) = events_on_disk(db).values()
    assert packed["papers"] == [paper.id for paper in papers[:12]] and "paper" not in packed
    reopened = Store(db)
    assert reopened.events() == store.events() and len(reopened.events()) == 12
    assert reopened.all() == store.all()
    assert reopened.undo() is not None  # the whole step, read back from the one line
    assert all(Store(db).get(paper.id).status == "unread" for paper in papers[:12])


def test_an_annotation_is_written_without_its_defaults_and_read_back_the_same(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_status(papers[0], "read")
    store.update(papers[1], starred=True, tags=["a"])
    docs = {doc["id"]: doc for doc in json.loads(db.read_text(encoding="utf-8"))["annotations"].values()}
    assert set(docs[papers[0].id]) == {"id", "status", "updated", "snippet", "sketch"}  # created, read_at: updated
    assert set(docs[papers[1].id]) == {"id", "starred", "tags", "updated", "snippet"}
    assert Store(db).all() == store.all()
    assert Store(db).get(papers[0].id).created == store.get(papers[0].id).updated


def test_a_paper_only_marked_read_keeps_its_abstract_and_is_found_again_by_it(tmp_path, papers):
    texts = [paper.text for paper in papers[:3]]
    before = parse_text("\n\n".join(texts))
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_status(before.papers[1], "read")
    store.toggle_star(before.papers[2])
    read, starred = store.get(before.papers[1].id), store.get(before.papers[2].id)
    assert (read.snippet, read.sketch) == (snippet_of(texts[1])[:OPENING_CHARS], sketch_of(snippet_of(texts[1])))
    assert (starred.snippet, starred.sketch) == (snippet_of(texts[2]), "")  # starred: the abstract's start
    texts[1] = texts[1][: len(texts[1]) // 2] + " (a typo fixed here)" + texts[1][len(texts[1]) // 2 :]
    after = parse_text("\n\n".join(texts))
    assert after.papers[1].id != before.papers[1].id
    reopened = Store(db)
    assert reopened.reconcile(after)[0].startswith("re-attached the annotations of #2")
    assert reopened.get(after.papers[1].id).status == "read"


def test_a_read_mark_does_not_move_to_another_paper_sharing_its_opening(tmp_path):
    shared = "We study how large language models follow instructions across many tasks and many languages, "
    shared += "with a benchmark of prompts written by hand. "
    first = (
        shared + "We find that models trained on translated data follow instructions worse in low-resource languages."
    )
    second = shared + "Our method distils a reward model from human rankings and improves win rates by eight points."
    db = tmp_path / "readlist.json"
    Store(db).set_status(parse_text(first).papers[0], "read")
    store = Store(db)
    store.reconcile(parse_text(second))  # the first paper left the list, the second came
    assert store.get(parse_text(second).papers[0].id).status == "unread"  # before: moved onto it, "read"
    assert [ann.status for ann in store.orphans()] == ["read"]  # kept under missing papers


def test_a_log_entry_changed_inside_a_run_writes_the_run_again(tmp_path, papers, monkeypatch):
    monkeypatch.setattr(compaction, "RECENT", 3)
    db = tmp_path / "readlist.json"
    start = datetime(2024, 1, 1, tzinfo=UTC)
    Store(db, now=lambda: start).update_many(papers[:10], status="reading")
    later = Store(db, now=lambda: start + timedelta(days=90))
    later.update_many(papers[:4], status="read")  # the first run's entries of these four are no longer needed
    for paper in papers[10:20]:  # enough changes for the log to be compacted
        later.toggle_star(paper)
    kept = [event for event in later.events() if event.action == "status" and event.before["status"] == "unread"]
    assert {event.paper for event in kept} == {paper.id for paper in papers[4:10]}
    assert Store(db).events() == later.events()
    assert Store(db).all() == later.all()


def test_a_run_whose_entries_another_entry_holds_is_a_damaged_file_set_aside(tmp_path, papers):
    db = tmp_path / "readlist.json"
    Store(db).update_many(papers[:3], status="read")
    data = json.loads(db.read_text(encoding="utf-8"))
    data["events"]["2"] = {"time": "2025-01-01T00:00:00Z", "paper": papers[5].id, "action": "star"}
    db.write_text(json.dumps(data), encoding="utf-8")
    store = Store(db)
    assert "was damaged (JSON of the wrong shape (event 2 is in a run of entries too))" in store.notices[0]
    assert list(tmp_path.glob("readlist.json.corrupt-*"))


def v2_file(tmp_path, papers):
    """A database as readlist wrote it before schema 3: every field of every annotation, the whole abstract's
    start as every snippet, one log entry a line; six papers marked read in one step, then one starred."""
    read, starred = "2025-06-01T10:00:00Z", "2025-06-02T09:00:00Z"
    annotations, events = {}, {}
    for n, paper in enumerate(papers[:6], start=1):
        annotations[str(n)] = {
            "id": paper.id,
            "starred": False,
            "status": "read",
            "tags": [],
            "note": "",
            "title": None,
            "created": read,
            "updated": read,
            "read_at": read,
            "snippet": snippet_of(paper.text),
        }
        events[str(n)] = {
            "time": read,
            "paper": paper.id,
            "action": "status",
            "before": {"status": "unread", "read_at": None},
            "after": {"status": "read", "read_at": read},
            "group": "a1b2c3d4e5f6",
        }
    annotations["1"] |= {"starred": True, "updated": starred}
    events["7"] = {
        "time": starred,
        "paper": papers[0].id,
        "action": "star",
        "before": {"starred": False},
        "after": {"starred": True},
        "group": "0f0e0d0c0b0a",
    }
    data = {"meta": {"1": {"schema_version": 2}}, "annotations": annotations, "events": events}
    db = tmp_path / "readlist.json"
    db.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return db, data


def test_a_schema_2_database_is_migrated_keeping_every_annotation_and_log_entry(tmp_path, papers):
    db, data = v2_file(tmp_path, papers)
    written = db.read_bytes()
    store = Store(db)
    assert store.notices == []
    (backup,) = tmp_path.glob("readlist.json.bak-*-schema2")
    assert backup.read_bytes() == written
    old = {doc["id"]: doc for doc in data["annotations"].values()}
    for pid, note in store.all().items():
        doc = old[pid]
        assert (note.starred, note.status, note.created, note.updated, note.read_at) == (
            doc["starred"],
            doc["status"],
            doc["created"],
            doc["updated"],
            doc["read_at"],
        )
        full = doc["snippet"]
        kept = (full, "") if note.starred else (full[:OPENING_CHARS], sketch_of(full))  # only read: opening, sketch
        assert (note.snippet, note.sketch) == kept
    logged = [Event.from_doc(doc) for _, doc in sorted(data["events"].items(), key=lambda item: -int(item[0]))]
    assert store.events() == logged  # what merge and undo read
    on_disk = json.loads(db.read_text(encoding="utf-8"))
    assert on_disk["meta"]["1"]["schema_version"] == 4 and len(on_disk["events"]) == 2
    assert db.stat().st_size < len(written) * 0.85  # without defaults, its log packed
    assert Store(db).events() == logged
    assert store.undo() is not None and not store.get(papers[0].id).starred
    assert store.undo() is not None and all(store.get(paper.id).status == "unread" for paper in papers[:6])


MIGRATE_AND_DIE = r"""
import os, sys
from pathlib import Path
from readlist.core.files import atomic
def die(*args):
    os._exit(9)  # killed after the migrated file was written in full, before it took the database's place
atomic.os.replace = die
from readlist.core.store.store import Store
Store(Path(sys.argv[1]))
"""


def test_a_migration_killed_before_it_is_in_place_loses_nothing_and_runs_again(tmp_path, papers):
    db, _ = v2_file(tmp_path, papers)
    written = db.read_bytes()
    died = subprocess.run([sys.executable, "-c", MIGRATE_AND_DIE, str(db)], capture_output=True, check=False)
    assert died.returncode == 9, died.stderr
    assert db.read_bytes() == written  # the schema 2 file, untouched
    store = Store(db)
    assert store.notices == []
    assert {note.id for note in store.all().values()} == {paper.id for paper in papers[:6]}
    assert len(store.events()) == 7
    assert json.loads(db.read_text(encoding="utf-8"))["meta"]["1"]["schema_version"] == 4
    assert not [path for path in tmp_path.iterdir() if path.name.endswith(".tmp")]


def test_a_tables_lines_joined_by_blocks_follow_every_change_to_the_table(monkeypatch):
    from readlist.core.store import blocks

    monkeypatch.setattr(blocks, "BLOCK", 3)
    table = {str(n): {"n": n} for n in range(1, 8)}
    joined = blocks.Blocks()

    def lines_of(docs: dict) -> list[bytes]:
        return [f'"{doc_id}":{doc["n"]}'.encode() for doc_id, doc in docs.items()]

    def written() -> bytes:
        return b",\n".join(joined.lines(table, lines_of))

    assert written() == b",\n".join(lines_of(table))
    steps = [
        lambda: table.update({"2": {"n": 20}}) or joined.changed("2"),  # changed in place
        lambda: table.pop("5") and joined.changed("5"),  # removed
        lambda: table.update({str(n): {"n": n} for n in range(8, 13)}),  # added at the end, over several blocks
        lambda: [table.pop(str(n)) and joined.changed(str(n)) for n in (1, 3, 4)],  # a block emptied
        lambda: table.update({"3": {"n": 3}}),  # an id removed, given again at the end
    ]
    for step in steps:
        step()
        assert written() == b",\n".join(lines_of(table))


def annotation_lines(db) -> dict[str, bytes]:
    """Each annotation's line in the file as written (without the comma joining it to the next), by paper id."""
    return {
        json.loads(line.split(b":", 1)[1])["id"]: line
        for line in (raw.rstrip(b",") for raw in db.read_bytes().split(b"\n"))
        if line.startswith(b'"') and b'"id":' in line and b'"time":' not in line
    }


@pytest.mark.parametrize("block", [3, 1024])
def test_a_write_after_opening_keeps_every_other_line_byte_for_byte(tmp_path, papers, monkeypatch, block):
    from readlist.core.store import blocks

    monkeypatch.setattr(blocks, "BLOCK", block)  # a few blocks of lines, or one
    db = tmp_path / "readlist.json"
    Store(db).update_many(papers[:10], status="read")
    Store(db).update(papers[3], note="kept as written", tags=["a"])
    raw = db.read_bytes()
    theirs = annotation_lines(db)[papers[5].id]
    db.write_bytes(raw.replace(theirs, theirs.replace(b'"status":"read"', b'"status": "read"')))  # written otherwise
    store = Store(db)
    for change in (
        lambda: store.update(papers[7], starred=True),  # changed in place: the first write after opening
        lambda: store.update(papers[12], starred=True),  # added at the end
        lambda: store.update(papers[1], tags=["x"]),  # another block, the next write
        lambda: Store(db).update(papers[8], note="from another opening"),
    ):
        before, events = annotation_lines(db), [line for line in db.read_bytes().split(b"\n") if b'"time":' in line]
        change()
        after = annotation_lines(db)
        changed = {pid for pid in after if before.get(pid) != after[pid]}
        assert len(changed) == 1 and after.keys() >= before.keys()
        assert all(after[pid] == line for pid, line in before.items() if pid not in changed)
        assert all(line.rstrip(b",") in db.read_bytes() for line in events)  # the log's lines too
        if block == 3 and changed == {papers[7].id}:  # the lines held: the changed block's, the one written otherwise
            assert len(store._file.records._storage._lines["annotations"]) <= 2 * block  # the others' the file's
            log = store._file.records._storage._blocks["events"].joined
            assert isinstance(log[0], memoryview)  # the log's first block written as read, not joined again
        store.reload_if_changed()
    assert b'"status": "read"' in annotation_lines(db)[papers[5].id]  # as its writer wrote it
    again = Store(db)
    assert [again.get(paper.id).starred for paper in papers[:9]] == [False] * 7 + [True, False]
    assert again.get(papers[8].id).note == "from another opening" and again.get(papers[1].id).tags == ("x",)
    assert again.get(papers[3].id).tags == ("a",) and again.get(papers[12].id).starred


def test_a_record_changed_again_after_reopening_keeps_when_it_was_made(tmp_path, papers):
    moments = iter(datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=n) for n in range(100))
    db = tmp_path / "readlist.json"
    Store(db, now=lambda: next(moments)).toggle_star(papers[0])  # written without created: it is updated
    Store(db, now=lambda: next(moments)).update(papers[0], tags=["later"])  # another command, a fresh read
    again = Store(db).get(papers[0].id)
    assert again.created == "2026-01-01T00:00:00Z" < again.updated  # before: created moved to the second change


def test_repairing_a_damaged_run_of_the_log_keeps_the_other_runs(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update_many(papers[:4], status="read")
    store.update_many(papers[4:7], starred=True)
    data = json.loads(db.read_text(encoding="utf-8"))
    last = max(data["events"], key=int)
    data["events"][last]["papers"] = "not a list"  # the second run damaged, the first whole
    db.write_text(json.dumps(data), encoding="utf-8")
    repaired = Store(db)
    assert any("a run of entries" in notice for notice in repaired.notices)
    kept = [event for event in repaired.events() if event.action != "star"]
    assert len(kept) == 4  # before: every run left out, the first's four entries too
    assert repaired.undo() is not None and repaired.get(papers[0].id).status == "unread"


def test_half_a_character_escaped_in_a_hand_made_database_is_written_back_as_it_was_read(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(papers[0], tags=["x"])
    store.toggle_star(papers[1])
    db.write_text(db.read_text(encoding="utf-8").replace('"x"', '"x\\udfff"'), encoding="utf-8")
    edited = Store(db)
    edited.toggle_star(papers[1])  # before: UnicodeEncodeError writing the file, a traceback
    edited.update(papers[0], note="hi")
    assert Store(db).get(papers[0].id).tags == ("x\udfff",) and Store(db).get(papers[0].id).note == "hi"


def test_an_opened_database_holds_no_copy_of_its_file_and_its_first_write_encodes_only_what_changed(
    tmp_path, papers, monkeypatch
):
    # The app keeps a database open for hours: with 100,000 annotations its file's bytes (28 MB) were held until the
    # first write, for the lines it reuses. They are read again from the file then.
    import tracemalloc

    from readlist.core.store import storage

    db = tmp_path / "readlist.json"
    first = Store(db)
    first.update_many(papers, status="read")
    for paper in papers[:12]:
        first.update(paper, note=f"notes on {paper.title} " * 20, tags=["kept"])
    size = db.stat().st_size
    tracemalloc.start()
    try:
        store = Store(db)
        held = [trace.size for trace in tracemalloc.take_snapshot().traces if trace.size >= size]
    finally:
        tracemalloc.stop()
    assert held == []
    encoded = []
    doc_line = storage.doc_line

    def counting(doc_id, doc):
        encoded.append(doc_id)
        return doc_line(doc_id, doc)

    monkeypatch.setattr(storage, "doc_line", counting)
    store.update(papers[15], starred=True)
    assert 1 <= len(encoded) <= 3  # its annotation and log entry (and the meta line), not the 19 others' and 31
    assert Store(db).all() == store.all() and Store(db).get(papers[15].id).starred


def test_a_log_left_packed_until_it_is_read_reads_and_writes_as_one_unpacked_at_once(tmp_path, papers, monkeypatch):
    from readlist.core.store import packing

    db = tmp_path / "readlist.json"
    Store(db).update_many(papers[:6], status="read")  # one packed run of six entries
    Store(db).toggle_star(papers[0])
    logged = Store(db).events()
    made = []
    entries = packing._entries
    monkeypatch.setattr(packing, "_entries", lambda shared, run: made.append(len(run)) or entries(shared, run))
    store = Store(db)
    store.reconcile(parse_text("\n\n".join(paper.text for paper in papers[:8])))
    assert store.get(papers[0].id).starred and len(store.all()) == 6
    assert made == []  # what a command that reads no log entry makes of the log: nothing
    assert store.events() == logged and made == [6]
    lines = [line.rstrip(b",") for line in db.read_bytes().split(b"\n") if b'"time":' in line]
    writer = Store(db)
    writer.toggle_star(papers[1])  # a change logged, the log as read written back
    assert all(line in db.read_bytes() for line in lines)
    assert Store(db).events()[1:] == logged and writer.undo() is not None
    assert not Store(db).get(papers[1].id).starred and Store(db).get(papers[5].id).status == "read"
