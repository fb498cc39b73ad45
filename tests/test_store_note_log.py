"""A note's changes in the log: what changed, not the whole note twice; undone exactly; bounded per note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from readlist.core.papers.reader import parse_text
from readlist.core.store.note_edits import LOGGED_NOTE_CHARS, MAX_NOTE_CHARS, edit_of, revert
from readlist.core.store.store import Store

ABSTRACTS = [
    "We study sparse attention for long documents and show that a learned routing matches dense attention.",
    "A new benchmark for table question answering reveals that retrieval errors dominate model failures.",
]


@pytest.fixture
def papers():
    return parse_text("\n\n".join(ABSTRACTS)).papers


def store_in(tmp_path) -> tuple[Store, Path]:
    return Store(tmp_path / "notes.json"), tmp_path / "notes.json"


def long_note(size: int, seed: str = "a") -> str:
    line = f"{seed} line of a long note, with ünïcode and 中文 in it\n"
    return (line * (size // len(line) + 1))[:size].rstrip() + "."


def test_appending_to_a_long_note_grows_the_database_by_about_what_was_appended(tmp_path, papers):
    store, db = store_in(tmp_path)
    store.set_note(papers[0], long_note(900_000))
    size = db.stat().st_size
    for word in ("x", "y", "z"):
        store.append_note(papers[0], word)
    assert store.get(papers[0].id).note.endswith(".\nx\ny\nz")
    # Each append logs what it added and two digests, not the 900,000-character note before and after it.
    assert db.stat().st_size - size < 3 * 1000


def test_undo_after_compact_changes_restores_each_note_exactly(tmp_path, papers):
    store, db = store_in(tmp_path)
    versions = [
        "",
        "First thoughts.",
        "First thoughts.\nMore: 中文 and 🎉.",
        "Second thoughts.\nMore: 中文 and 🎉.",
        "Second thoughts.\nMore: 中文 and 🎉.\n\n- a list",
        "",
        long_note(5000),
        long_note(5000).replace("long", "short", 3),
    ]
    for note in versions[1:]:
        store.update(papers[0], note=note, starred=len(note) % 2 == 0)
    log = json.loads(db.read_text())["events"]
    assert not any("note" in entry["before"] or "note" in entry["after"] for entry in log.values())
    assert "Second thoughts" not in json.dumps(log[max(log, key=int)], ensure_ascii=False)  # a replaced line, only
    for note in reversed(versions[:-1]):
        assert store.undo().startswith("undid")
        assert Store(db).get(papers[0].id).note == note
    assert store.undo() is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_a_note_edit_reverts_to_the_note_before_exactly(before, after):
    assert revert(edit_of(before, after), after) == before


def test_a_note_edit_does_not_revert_a_note_it_did_not_leave():
    edit = edit_of("one two three", "one 2 three")
    assert revert(edit, "one 2 three") == "one two three"
    assert revert(edit, "one 2 three!") is None  # changed since without a log entry: never guessed at


def old_format_database(papers) -> dict:
    """A database as readlist wrote it before note edits: each note change logs the note whole, before and after."""
    pid = papers[0].id
    events = [
        ("2025-07-01T10:00:00Z", "", "first version", "g1"),
        ("2025-07-01T10:05:00Z", "first version", "first version\nand a second line", "g2"),
    ]
    return {
        "meta": {"1": {"schema_version": 2}},
        "annotations": {
            "1": {"id": pid, "starred": False, "status": "unread", "tags": [], "title": None}
            | {"note": "first version\nand a second line", "created": "2025-07-01T10:00:00Z"}
            | {"updated": "2025-07-01T10:05:00Z", "read_at": None, "snippet": ""}
        },
        "events": {
            str(n): {"time": time, "paper": pid, "action": "note", "before": {"note": old}, "after": {"note": new}}
            | {"group": group}
            for n, (time, old, new, group) in enumerate(events, start=1)
        },
    }


def test_log_entries_that_hold_the_whole_note_still_undo(tmp_path, papers):
    db = tmp_path / "notes.json"
    db.write_text(json.dumps(old_format_database(papers)))
    store = Store(db)
    store.append_note(papers[0], "a third line")  # a note edit on top of the old entries
    assert store.undo().startswith("undid note")
    assert store.get(papers[0].id).note == "first version\nand a second line"
    assert store.undo().startswith("undid note")
    assert store.get(papers[0].id).note == "first version"
    assert store.undo().startswith("undid note")
    assert store.get(papers[0].id).note == ""


def test_the_log_keeps_a_bounded_amount_of_one_notes_text_and_undo_says_where_it_stops(tmp_path, papers):
    store, db = store_in(tmp_path)
    size = MAX_NOTE_CHARS * 3 // 5
    for n in range(6):  # each replaces the whole note: its text before and after are logged
        store.set_note(papers[0], long_note(size, seed=str(n)))
    store.set_note(papers[1], "a short note of another paper")
    log = json.loads(db.read_text())["events"]
    texts = sum(len(entry.get("note_edit", {}).get(key, "")) for entry in log.values() for key in ("cut", "put"))
    assert texts <= LOGGED_NOTE_CHARS
    per_char = len(long_note(size).encode()) / size  # in UTF-8
    assert db.stat().st_size < per_char * (size + LOGGED_NOTE_CHARS) + 50_000
    store.undo()  # the other paper's note
    assert store.undo().startswith("undid note on")
    assert store.get(papers[0].id).note == long_note(size, seed="4")
    said = store.undo()
    assert said.startswith("cannot undo note on") and "no longer in the log" in said
    assert store.get(papers[0].id).note == long_note(size, seed="4")  # left as it is, never guessed


def test_a_note_longer_than_the_limit_is_refused_and_the_note_kept(tmp_path, papers):
    store = store_in(tmp_path)[0]
    store.set_note(papers[0], "short")
    with pytest.raises(ValueError, match="at most 1,000,000 characters, this one would have 1,000,001"):
        store.set_note(papers[0], "x" * (MAX_NOTE_CHARS + 1))
    store.set_note(papers[1], "y" * MAX_NOTE_CHARS + "\n\n")  # white space at the end is not kept: it fits
    with pytest.raises(ValueError, match="would have 1,000,002"):
        store.append_note(papers[1], "z")  # on a line of its own
    assert store.get(papers[0].id).note == "short"
    assert len(store.get(papers[1].id).note) == MAX_NOTE_CHARS
