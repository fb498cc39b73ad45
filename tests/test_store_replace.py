"""The file's one-document-per-line layout, `Store.replace_all` (what a merge writes through), the
undo floor it sets, and compaction of the change log."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from readlist.core.papers.reader import parse_text
from readlist.core.store import compaction as log_compaction
from readlist.core.store import format
from readlist.core.store.annotation import Annotation, Event
from readlist.core.store.format import split_lines
from readlist.core.store.merge_file import merge_database
from readlist.core.store.store import Store

ABSTRACTS = [
    "We study sparse attention for long documents and show that a learned routing matches dense attention.",
    "A new benchmark for table question answering reveals that retrieval errors dominate model failures.",
    "Diffusion policies for robot grasping transfer from simulation when trained with randomised friction.",
]


@pytest.fixture
def papers():
    return parse_text("\n\n".join(ABSTRACTS)).papers


def test_each_document_is_one_line_and_a_hand_edited_file_still_opens(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(papers[0], note='line one\nline two with "quotes" and },"9":{ braces')
    store.toggle_star(papers[1])
    text = db.read_text(encoding="utf-8")
    assert split_lines(text) is not None
    assert (
        len(text.splitlines()) == 2 + 3 * 2 + 1 + 2 + 2
    )  # { }, 3 tables' header and closer, meta, 2 papers, 2 entries
    # Re-indented by hand (another layout): read as plain JSON, and written back one document per line.
    db.write_text(json.dumps(json.loads(text), indent=2), encoding="utf-8")
    again = Store(db)
    assert again.get(papers[0].id).note.startswith("line one\nline two")
    again.toggle_star(papers[2])
    assert split_lines(db.read_text(encoding="utf-8")) is not None
    assert Store(db).get(papers[1].id).starred and Store(db).get(papers[2].id).starred


def test_the_first_write_after_opening_reuses_the_other_documents_text(tmp_path, papers):
    db = tmp_path / "readlist.json"
    Store(db).update(papers[0], note="café", tags=["x"])
    Store(db).toggle_star(papers[1])
    db.write_text(db.read_text(encoding="utf-8").replace("café", "caf\\u00e9"), encoding="utf-8")  # same JSON value
    Store(db).toggle_star(papers[2])  # a fresh process: the first write after opening
    text = db.read_text(encoding="utf-8")
    assert "caf\\u00e9" in text  # that line was copied, not encoded again
    assert Store(db).get(papers[0].id).note == "café" and Store(db).get(papers[2].id).starred


def test_the_first_write_after_opening_reads_the_file_no_more(tmp_path, papers, monkeypatch):
    db = tmp_path / "readlist.json"
    Store(db).update(papers[0], note="café", tags=["x"])
    Store(db).set_status(papers[1], "read")
    store = Store(db)  # a fresh process: its lines were cut from the file as it was read

    def read_again(*args):
        raise AssertionError("the file's lines were parsed again")

    monkeypatch.setattr(format, "split_lines", read_again)
    monkeypatch.setattr(format.orjson, "loads", read_again)
    store.toggle_star(papers[2])
    monkeypatch.undo()
    assert split_lines(db.read_bytes()) is not None
    again = Store(db)
    assert again.get(papers[0].id).note == "café" and again.get(papers[1].id).status == "read"
    assert again.get(papers[2].id).starred


def test_a_command_that_only_reads_never_parses_the_file_line_by_line(tmp_path, papers, monkeypatch):
    db = tmp_path / "readlist.json"
    Store(db).update(papers[0], note="café", tags=["x"])
    Store(db).set_status(papers[1], "read")

    def line_by_line(*args):
        raise AssertionError("the file was parsed line by line")

    monkeypatch.setattr(format, "split_lines", line_by_line)
    store = Store(db)
    store.reconcile(parse_text("\n\n".join(ABSTRACTS)))
    assert [note.status for note in store.get_many(papers)] == ["unread", "read", "unread"]
    assert store.get(papers[0].id).note == "café"


def test_a_hand_made_line_holding_two_documents_is_not_kept_as_one(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(papers[0], note="first")
    store.update(papers[1], note="second")
    lines = db.read_text(encoding="utf-8").split("\n")
    first = next(n for n, line in enumerate(lines) if '"first"' in line)
    assert lines[first].endswith(",") and '"second"' in lines[first + 1]
    # Two documents on one line and a line break inside the second: still the same JSON.
    lines[first : first + 2] = [lines[first] + lines[first + 1].replace('"note":', '"note":\n', 1)]
    db.write_text("\n".join(lines), encoding="utf-8")
    Store(db).toggle_star(papers[2])
    again = Store(db)
    assert [again.get(p.id).note for p in papers] == ["first", "second", ""] and again.get(papers[2].id).starred
    assert split_lines(db.read_bytes()) is not None  # written back one document per line


def test_replace_all_backs_up_replaces_and_leaves_nothing_to_undo(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.toggle_star(papers[0])
    store.set_status(papers[1], "read")
    with store.locked():
        notes = store.all()
        events = store.events()[::-1]
        notes[papers[1].id] = replace(notes[papers[1].id], note="from the laptop")
        notes[papers[2].id] = Annotation(papers[2].id, tags=("new",))
        store.replace_all(notes, events, reason="merge")
    assert [p.name for p in tmp_path.glob("readlist.json.bak-*") if p.name.endswith("-merge")]
    other = Store(db)  # another process sees the replacement
    assert other.get(papers[1].id).note == "from the laptop" and other.get(papers[2].id).tags == ("new",)
    assert other.get(papers[0].id).starred and len(other.events()) == 2
    assert store.undo() is None and other.undo() is None  # the star and status before it stay
    other.toggle_star(papers[0])
    assert "unstar" in (store.undo() or "")  # changes after the replacement undo as usual
    assert store.get(papers[0].id).starred
    assert store.undo() is None


def test_replace_all_refuses_invalid_annotations_and_writes_nothing(tmp_path, papers):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.toggle_star(papers[0])
    before = db.read_bytes()
    with pytest.raises(ValueError):
        store.replace_all([Annotation(papers[0].id, status="skimmed")], [])
    assert db.read_bytes() == before and store.get(papers[0].id).starred


def test_merge_writes_through_the_store_and_a_dry_run_writes_nothing(tmp_path, papers):
    laptop, desk = tmp_path / "laptop.json", tmp_path / "desk.json"
    Store(laptop).update(papers[0], note="laptop note")
    desk_store = Store(desk)
    desk_store.toggle_star(papers[1])
    before = desk.read_bytes()
    assert merge_database(desk, laptop, dry_run=True).changed
    assert desk.read_bytes() == before and not list(tmp_path.glob("desk.json.bak-*"))
    merge_database(desk, laptop)
    assert desk_store.reload_if_changed()  # a running readlist notices the merged file
    assert desk_store.get(papers[0].id).note == "laptop note"
    assert split_lines(desk.read_text(encoding="utf-8")) is not None
    assert desk_store.undo() is None
    assert not merge_database(desk, laptop).changed


def test_a_merge_is_taken_back_only_when_nothing_since_is_left_to_undo(tmp_path, papers):
    desk, laptop = tmp_path / "desk.json", tmp_path / "laptop.json"
    Store(laptop).update(papers[0], note="laptop note")
    assert merge_database(desk, laptop).changed and Store(desk).undo_merge() is None  # no file before: no backup
    desk.unlink()
    store = Store(desk)
    store.toggle_star(papers[1])
    merge_database(desk, laptop)
    store.toggle_star(papers[2])  # a paper of another list: this list's undo leaves it
    assert store.undo(frozenset([papers[0].id, papers[1].id])) is None
    assert store.undo_merge() is None and store.get(papers[0].id).note == "laptop note"
    assert "star" in (store.undo() or "")
    data = json.loads(desk.read_text(encoding="utf-8"))
    data["meta"]["1"]["undo_floor"] += 1  # as a compaction of the log would: changes below it are out of reach
    desk.write_text(json.dumps(data), encoding="utf-8")
    assert store.undo_merge() is None
    data["meta"]["1"]["undo_floor"] -= 1
    desk.write_text(json.dumps(data), encoding="utf-8")
    other = Store(desk)
    assert other.undo_merge() is not None
    assert store.reload_if_changed() and not store.get(papers[0].id).note and store.get(papers[1].id).starred
    assert not store.get(papers[2].id).starred and store.undo_merge() is None


def test_two_merges_are_taken_back_newest_first(tmp_path, papers):
    desk, laptop, tablet = tmp_path / "desk.json", tmp_path / "laptop.json", tmp_path / "tablet.json"
    Store(laptop).update(papers[0], note="laptop note")
    Store(tablet).update(papers[1], note="tablet note")
    moments = iter(datetime(2025, 7, 1, hour, tzinfo=UTC) for hour in range(24))  # backups are named by the second
    store = Store(desk, now=lambda: next(moments))
    store.toggle_star(papers[2])
    merge_database(desk, laptop, now=lambda: next(moments))
    merge_database(desk, tablet, now=lambda: next(moments))
    assert store.undo_merge() is not None and store.get(papers[0].id).note and not store.get(papers[1].id).note
    assert store.undo_merge() is not None and not store.get(papers[0].id).note and store.get(papers[2].id).starred
    assert store.undo_merge() is None and "star" in (store.undo() or "")


def _log(n: int, start: datetime) -> dict[str, dict]:
    """n log entries: paper i % 50 starred and unstarred in turn, one change group each."""
    out = {}
    for i in range(1, n + 1):
        paper, on = f"{i % 50:012x}", bool(i // 50 % 2)
        time = start.replace(second=i % 60, minute=i // 60 % 60, hour=i // 3600).strftime("%Y-%m-%dT%H:%M:%SZ")
        out[str(i)] = {"time": time, "paper": paper, "action": "star", "before": {}, "after": {"starred": on}}
        out[str(i)]["group"] = f"g{i}"
    return out


def test_compaction_keeps_recent_entries_and_each_fields_latest_change():
    start = datetime(2024, 1, 1, tzinfo=UTC)
    events = _log(12_000, start)
    events["3"] = {"time": "2024-01-01T00:00:03Z", "paper": "abc", "action": "reattach", "after": {"id": "abc"}}
    events["4"]["after"] = {"status": "read"}  # a read long ago: not needed for the stats of today
    drop, floor = log_compaction.plan(events, datetime(2025, 1, 1, tzinfo=UTC))
    assert floor == 12_000 - log_compaction.RECENT
    kept = set(events) - drop
    assert {str(i) for i in range(floor + 1, 12_001)} <= kept
    assert "3" in kept and "4" in kept  # a re-attachment; the only logged status change of its paper
    assert "5" not in kept  # a star long superseded


def test_the_store_compacts_a_long_log_and_undo_stops_below_it(tmp_path, papers):
    db = tmp_path / "readlist.json"
    Store(db).toggle_star(papers[0])
    data = json.loads(db.read_text(encoding="utf-8"))
    data["events"] = _log(log_compaction.RECENT * 2 + 5, datetime(2024, 1, 1, tzinfo=UTC))
    db.write_text(json.dumps(data), encoding="utf-8")
    store = Store(db)
    store.toggle_star(papers[1])
    events = store.events()
    assert len(events) < log_compaction.RECENT + 100
    assert events[0].paper == papers[1].id
    for _ in range(3):
        assert store.undo() is not None
    assert all(isinstance(e, Event) for e in Store(db).events())
