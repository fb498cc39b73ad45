"""A damaged database is never read as empty nor written over: it is moved aside and a backup restored."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from readlist.core.papers.paper import Paper
from readlist.core.store.store import Store

GOOD = json.dumps(
    {
        "meta": {"1": {"schema_version": 2}},
        "annotations": {"1": {"id": "aaaaaaaaaaaa", "starred": True, "status": "read", "tags": ["x"], "note": "n"}},
        "events": {},
    }
).encode()

DAMAGED = {
    "empty": b"",
    "whitespace": b"  \n\t \n",
    "truncated": GOOD[: len(GOOD) // 2],
    "trailing garbage": GOOD + b"\x00\x00garbage",
    "not utf-8": b'{"meta": "\xff\xfe"}',
    "wrong shape: table not an object": b'{"meta": {"1": {"schema_version": 2}}, "annotations": [1]}',
    "wrong shape: bad document": json.dumps(
        {"meta": {"1": {"schema_version": 2}}, "annotations": {"1": {"id": 7, "starred": "yes"}}}
    ).encode(),
    "wrong shape: no meta": b'{"annotations": {"1": {"id": "aaaaaaaaaaaa"}}}',
    "wrong shape: meta document not an object": b'{"meta": {"1": 5}, "annotations": {"1": {"id": "aaaaaaaaaaaa"}}}',
}
SALVAGED = {"wrong shape: no meta", "wrong shape: meta document not an object"}
FOREIGN = {  # not damage: somebody else's file, or a newer readlist's; left exactly as it is
    "text": b"starred: yes\nnote: hello\n",
    "a paper file": b"ICML 2025\n\nWe propose a method for graphs.\n",
    "a JSON list": b"[1, 2, 3]",
    "another program's JSON": b'{"name": "settings", "size": 3}',
    "JSON with comments": b'{\n  // an editor\'s settings\n  "editor.fontSize": 12\n}\n',
    "another program's JSON cut short": b'{"name": "settings", "size": ',
    "another program's JSON nested deeply": b'{"name": ' + b"[" * 100_000,
    "newer schema_version": json.dumps(
        {"meta": {"1": {"schema_version": 99}}, "annotations": {}, "events": {}, "future": {}}
    ).encode(),
}


def paper(n: int) -> Paper:
    return Paper(id=f"{n:012x}", index=n, text=f"An abstract about topic number {n} with enough words to identify it.")


def corrupt_files(db):
    return sorted(db.parent.glob(db.name + ".corrupt-*"))


@pytest.mark.parametrize("case", list(DAMAGED))
def test_damaged_file_is_moved_aside_with_its_bytes_and_never_overwritten(tmp_path, case):
    db = tmp_path / "readlist.json"
    original = DAMAGED[case]
    db.write_bytes(original)
    store = Store(db)
    assert len(store.notices) == 1
    assert "damaged" in store.notices[0] and "\n" not in store.notices[0]
    aside = corrupt_files(db)
    assert len(aside) == 1 and aside[0].read_bytes() == original
    assert aside[0].name in store.notices[0]
    if case in SALVAGED:  # what could be read of it is kept
        assert list(store.all()) == ["aaaaaaaaaaaa"] and "repaired it" in store.notices[0]
    else:
        assert store.all() == {}
    store.toggle_star(paper(1))  # writing afterwards leaves the damaged bytes alone
    assert aside[0].read_bytes() == original
    assert Store(db).get(paper(1).id).starred


def test_a_few_values_of_the_wrong_type_cost_only_those_values(tmp_path):
    db = tmp_path / "readlist.json"
    store = Store(db)
    for n in range(1, 9):
        store.update(paper(n), starred=True, note=f"note {n}", tags=["kept"])
    data = json.loads(db.read_text(encoding="utf-8"))
    docs = data["annotations"]
    docs["2"]["starred"], docs["3"]["note"], docs["4"]["status"] = "yes", None, "later"
    docs["5"]["tags"] = ["kept", 7]
    broken = json.dumps(data).encode()
    db.write_bytes(broken)
    store = Store(db)
    (notice,) = store.notices
    assert "damaged" in notice and "repaired it, leaving out starred of paper" in notice and "\n" not in notice
    assert "(annotation 2: starred is str)" in notice  # the first value of a wrong type, named
    assert corrupt_files(db)[0].read_bytes() == broken  # the original, as it was
    annotations = [store.get(paper(n).id) for n in range(1, 9)]
    assert [a.note for a in annotations] == ["note 1", "note 2", "", *(f"note {n}" for n in range(4, 9))]
    assert [a.starred for a in annotations] == [True, False, *[True] * 6]
    assert annotations[3].status == "unread" and all(a.tags == ("kept",) for a in annotations)
    assert Store(db).notices == []  # repaired on disk


@pytest.mark.parametrize("case", list(FOREIGN))
def test_a_file_that_is_no_readlist_database_of_this_version_is_left_alone(tmp_path, case):
    db = tmp_path / "readlist.json"
    db.write_bytes(FOREIGN[case])
    store = Store(db)
    assert store.blocked and "left as it is" in store.blocked and "\n" not in store.blocked
    store.toggle_star(paper(1))
    assert store.pending_error  # not saved, and said so
    store.reload_if_changed()  # the TUI's poll, and the retry
    store.flush()
    assert db.read_bytes() == FOREIGN[case] and corrupt_files(db) == []


def test_a_foreign_file_is_named_so_at_once_while_the_lock_cannot_be_taken(tmp_path, monkeypatch):
    import time

    from filelock import FileLock

    from readlist.core.store import opening as database

    monkeypatch.setattr(database, "LOCK_TIMEOUT", 1.5)
    db = tmp_path / "readlist.json"
    db.write_bytes(FOREIGN["text"])
    with FileLock(str(db) + ".lock"):  # another readlist busy with it, or a lock file that cannot be made
        start = time.monotonic()
        store = Store(db)
        assert time.monotonic() - start < 1.0
    assert "not a readlist database" in store.blocked and "locked" not in store.blocked
    assert db.read_bytes() == FOREIGN["text"]


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("meta", {"undo_floor": "x"}),
        ("event", {"group": [1]}),
        ("event", {"before": {"title": 5}}),
        ("event", {"time": 5}),
        ("event", {"before": {"starred": "yes"}}),
        ("event", {"after": {"status": "later"}}),
        ("event", {"before": {"stared": False}}),
        ("event", {"before": {"id": "0123456789ab"}}),
    ],
)
def test_a_hand_edited_log_or_counter_costs_only_that_entry_and_undo_stats_still_work(tmp_path, where, value):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.update(paper(1), starred=True)
    store.update(paper(2), note="kept")
    data = json.loads(db.read_text(encoding="utf-8"))
    (data["meta"]["1"] if where == "meta" else data["events"]["1"]).update(value)
    db.write_text(json.dumps(data), encoding="utf-8")
    store = Store(db)
    assert "repaired it" in store.notices[0]
    assert store.get(paper(2).id).note == "kept" and store.get(paper(1).id).starred
    if where == "meta":  # where undo may stop (say, at a merge) is not known: it stops at the repair
        assert store.undo() is None
    else:
        assert store.undo() is not None  # the note's change is still there to undo
    assert Store(db).notices == []


def test_newer_schema_notice_says_so(tmp_path):
    db = tmp_path / "readlist.json"
    db.write_bytes(FOREIGN["newer schema_version"])
    store = Store(db)
    assert "newer readlist (schema 99" in store.notices[0]


def test_a_pipe_or_device_at_the_database_path_is_neither_read_nor_replaced(tmp_path):
    import os

    db = tmp_path / "readlist.json"
    os.mkfifo(db)  # reading it would wait forever
    store = Store(db)
    assert "not a regular file" in store.blocked
    store.toggle_star(paper(1))
    assert db.is_fifo() and store.pending_error


def test_a_database_behind_a_symbolic_link_is_written_through_the_link(tmp_path):
    real = tmp_path / "synced" / "readlist.json"
    real.parent.mkdir()
    link = tmp_path / "readlist.json"
    link.symlink_to(real)
    Store(link).toggle_star(paper(1))
    assert link.is_symlink() and Store(real).get(paper(1).id).starred


def test_newest_good_backup_is_restored(tmp_path):
    db = tmp_path / "readlist.json"
    now = [datetime(2025, 7, 1, 9, 0, tzinfo=UTC)]
    store = Store(db, now=lambda: now[0])
    store.set_note(paper(1), "kept in the backup")
    now[0] += timedelta(hours=2)
    store.toggle_star(paper(2))  # backs up the file holding the note
    db.write_bytes(b'{"meta": {"1": {"schema_ver')
    reopened = Store(db, now=lambda: now[0])
    assert "restored the backup readlist.json.bak-" in reopened.notices[0]
    assert reopened.get(paper(1).id).note == "kept in the backup"
    assert corrupt_files(db)[0].read_bytes() == b'{"meta": {"1": {"schema_ver'


def test_damaged_backups_are_skipped(tmp_path):
    db = tmp_path / "readlist.json"
    db.with_name("readlist.json.bak-20250701T100000Z").write_bytes(GOOD)
    db.with_name("readlist.json.bak-20250701T110000Z").write_bytes(b"{broken")
    db.write_bytes(b"")
    store = Store(db)
    assert "bak-20250701T100000Z" in store.notices[0]
    assert store.get("aaaaaaaaaaaa").note == "n"


def test_damage_by_another_program_while_open_keeps_what_is_in_memory(tmp_path):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_note(paper(1), "precious")
    cut = db.read_bytes()[:40]  # readlist's own file, cut short
    db.write_bytes(cut)
    assert store.reload_if_changed()
    assert "damaged by another program" in store.notices[-1]
    assert corrupt_files(db)[0].read_bytes() == cut
    assert Store(db).get(paper(1).id).note == "precious"


NEWER = json.dumps(
    {"meta": {"1": {"schema_version": 99}}, "annotations": {"1": {"id": "000000000001", "note": "newer"}}}
).encode()


@pytest.mark.parametrize("replacement", [NEWER, b"another program's notes, in plain text\n"], ids=["newer", "foreign"])
def test_a_newer_or_foreign_file_put_in_place_while_open_is_left_exactly_as_it_is(tmp_path, replacement):
    db = tmp_path / "readlist.json"
    store = Store(db)
    store.set_note(paper(1), "older")
    swap = tmp_path / "swap"
    swap.write_bytes(replacement)
    swap.replace(db)  # atomically, as a newer readlist (or a sync tool) writes
    store.toggle_star(paper(2))
    for _ in range(3):  # the TUI's polls
        store.reload_if_changed()
        store.flush()
    assert db.read_bytes() == replacement and corrupt_files(db) == []
    assert store.pending_error and store.get(paper(2).id).starred  # kept in memory, said so
    assert sum("left as it is" in notice for notice in store.notices) == 1


def test_a_file_readlist_never_wrote_is_refused_untouched_even_by_list(tmp_path):
    import gzip

    from click.testing import CliRunner

    from readlist.cli import cli

    papers = tmp_path / "papers.txt"
    papers.write_text("A paper about graphs.\n")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10" + bytes(range(256))
    for name, content in (("picture.png", png), ("old.json.gz", gzip.compress(GOOD))):
        db = tmp_path / name
        db.write_bytes(content)
        result = CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), "list"])
        assert result.exit_code == 2
        assert result.output == f"readlist: {db}: not a readlist database (not UTF-8 text), left as it is\n"
        assert db.read_bytes() == content
        assert sorted(p.name for p in tmp_path.iterdir() if p.name != "home") == sorted(
            {"papers.txt", "picture.png", name}
        )


def with_backup(tmp_path):
    """A database whose backup beside it holds a note (made two hours before the file's last change)."""
    db = tmp_path / "readlist.json"
    now = [datetime(2025, 7, 1, 9, 0, tzinfo=UTC)]
    store = Store(db, now=lambda: now[0])
    store.set_note(paper(1), "kept in the backup")
    now[0] += timedelta(hours=2)
    store.toggle_star(paper(2))
    return db


RESTORED = "restored the backup readlist.json.bak-"
UNDER_A_BAD_ID = json.dumps({"id": paper(3).id, "note": "under a bad id"}).encode()
DEBRIS = {  # what the file holds: how it is repaired
    "NUL bytes": (b"\x00" * 4096, RESTORED),  # what a crash leaves where the data was not yet on disk
    "NUL bytes before the data": (b"\x00" * 64 + GOOD[:20], RESTORED),
    "100,000 nested brackets": (b'{"meta": {"1": {"schema_version": 2}}, "annotations": ' + b"[" * 100_000, RESTORED),
    "a 5,000-digit document id": (  # the annotation kept under a number TinyDB reads, the rest of the file too
        b'{"meta": {"1": {"schema_version": 2}}, "annotations": {"' + b"7" * 5000 + b'": ' + UNDER_A_BAD_ID + b"}}",
        "repaired it",
    ),
    "Arabic-Indic digits as an id": (
        '{"meta": {"1": {"schema_version": 2}}, "annotations": {"١٢": '.encode() + UNDER_A_BAD_ID + b"}}",
        "repaired it",
    ),
    "a 5,000-digit id in the meta table": (
        b'{"meta": {"' + b"7" * 5000 + b'": {"schema_version": 2}}, "annotations": {"1": ' + UNDER_A_BAD_ID + b"}}",
        "repaired it",
    ),
    "an event under Arabic-Indic digits": (  # a log entry's place is its number: left out
        '{"meta": {"1": {"schema_version": 2}}, "events": {"١": {}}, "annotations": {"1": '.encode()
        + UNDER_A_BAD_ID
        + b"}}",
        "repaired it, leaving out events document '١'",
    ),
}


@pytest.mark.parametrize("case", list(DEBRIS))
def test_crash_debris_and_hostile_shapes_in_our_file_are_set_aside_and_the_backup_restored(tmp_path, case):
    from click.testing import CliRunner

    from readlist.cli import cli

    content, outcome = DEBRIS[case]
    db = with_backup(tmp_path)
    db.write_bytes(content)
    reopened = Store(db)
    (notice,) = reopened.notices
    assert outcome in notice if outcome == RESTORED else notice.endswith(outcome), notice
    if outcome == RESTORED:
        assert reopened.get(paper(1).id).note == "kept in the backup"
        assert "holds only NUL bytes" in notice if not content.strip(b"\x00") else "empty" not in notice
    else:  # what can be read of it is kept, also an annotation under an id TinyDB cannot read
        assert reopened.get(paper(3).id).note == "under a bad id" and Store(db).notices == []
    assert corrupt_files(db)[0].read_bytes() == content
    other, mine = tmp_path / "other.json", tmp_path / "mine.json"
    other.write_bytes(content)
    merged = CliRunner().invoke(cli, ["--papers", str(db), "--db", str(mine), "merge", str(other)])
    assert not isinstance(merged.exception, Exception), merged.output
    if outcome == RESTORED:  # nothing of it can be read: refused
        assert merged.exit_code == 2 and merged.output.startswith(f"readlist: {other}: ")
        assert len(merged.output.splitlines()) == 1, merged.output
    else:  # what can be read of it is merged, as for any file set aside for a few bad values; what not, said
        assert merged.exit_code == 0 and Store(mine).get(paper(3).id).note == "under a bad id"
        said = [line for line in merged.stderr.splitlines() if "leaving out" in line]
        left_out = outcome.removeprefix("repaired it")  # ", leaving out events document '١'", or nothing
        assert len(said) == bool(left_out), merged.stderr
        assert all(line.startswith(f"readlist: {other} is damaged") and line.endswith(left_out) for line in said)


def test_a_link_into_a_folder_that_is_gone_never_makes_the_folder_and_writes_once_it_is_back(tmp_path):
    real = tmp_path / "unmounted" / "readlist.json"
    link = tmp_path / "readlist.json"
    link.symlink_to(real)
    store = Store(link)
    assert str(link) in store.blocked and str(real) in store.blocked
    store.toggle_star(paper(1))
    assert not store.reload_if_changed() and store.pending_error  # the terminal UI's poll, and the retry
    assert not real.parent.exists()
    real.parent.mkdir()
    assert store.flush() and Store(link).get(paper(1).id).starred


def test_a_json_error_is_worded_once(tmp_path):
    db = tmp_path / "readlist.json"
    db.write_bytes(b'{"meta": {"1": {"schema_version": 2}}, "annotations": {"1": {"note": "cut here')
    [notice] = Store(db).notices
    assert "(Unterminated string starting at line 1 column" in notice  # before: "starting at at line"


def three_records_of_one_paper() -> bytes:
    docs = {
        str(n): {
            "id": paper(1).id,
            "note": note,
            "tags": [tag],
            "starred": n == 3,
            "updated": f"2025-07-0{n}T10:00:00Z",
        }
        for n, (note, tag) in enumerate((("A", "x"), ("B", "y"), ("C", "z")), start=1)
    }
    docs["4"] = {"id": paper(2).id, "note": "other paper"}
    return json.dumps({"meta": {"1": {"schema_version": 2}}, "annotations": docs, "events": {}}).encode()


def test_several_records_of_one_paper_in_the_database_are_combined_and_said(tmp_path):
    db = tmp_path / "readlist.json"
    db.write_bytes(three_records_of_one_paper())
    store = Store(db)
    combined = store.get(paper(1).id)
    assert [part in combined.note for part in "ABC"] == [True, True, True]  # not "C" alone
    assert {"x", "y", "z"} <= set(combined.tags) and combined.starred
    assert store.get(paper(2).id).note == "other paper"
    assert len(store.notices) == 1 and f"several records of one paper: {paper(1).id} (3)" in store.notices[0]
    assert Store(db).get(paper(1).id).note == combined.note and not Store(db).notices  # written back once
    assert list(tmp_path.glob("readlist.json.bak-*-combined"))  # the file as it was


def test_merging_a_file_with_several_records_of_one_paper_keeps_them_all_and_says_so(tmp_path):
    from readlist.core.store.merge_file import merge_database

    other = tmp_path / "laptop.json"
    other.write_bytes(three_records_of_one_paper())
    report = merge_database(tmp_path / "readlist.json", other)
    note = Store(tmp_path / "readlist.json").get(paper(1).id).note
    assert [part in note for part in "ABC"] == [True, True, True]
    assert report.lines()[:2] == [paper(1).id, "    3 records of this paper in the other file, combined first"]
