"""Backups beside the database: every one kept under its own name, however close together they are made."""

from __future__ import annotations

from datetime import UTC, datetime

from readlist.core.papers.reader import parse_text
from readlist.core.store import backups
from readlist.core.store.merge_file import merge_database
from readlist.core.store.store import Store

PAPERS = parse_text("One paper about graphs.\n\nA second paper about trees.\n\nA third about rivers.\n").papers
SAME_SECOND = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def test_two_merges_in_one_second_are_both_taken_back_in_turn(tmp_path):
    db = tmp_path / "db.json"
    clock = lambda: SAME_SECOND  # noqa: E731 - every backup named in the same instant
    Store(db, now=clock).update(PAPERS[0], starred=True)
    for n, paper in enumerate(PAPERS[1:], start=1):
        laptop = tmp_path / f"laptop{n}.json"
        Store(laptop, now=clock).update(paper, note=f"from laptop {n}")
        assert merge_database(db, laptop, now=clock).changed
    assert len([b for b in backups.backups(db) if b.name.endswith("-merge")]) == 2
    store = Store(db, now=clock)
    assert store.undo_merge() is not None  # the second merge
    assert [store.get(p.id).note for p in PAPERS] == ["", "from laptop 1", ""]
    assert store.undo_merge() is not None  # then the first: the state before both
    assert [store.get(p.id).note for p in PAPERS] == ["", "", ""] and store.get(PAPERS[0].id).starred
    undone = [b for b in backups.backups(db) if b.name.endswith("-merge-undone")]
    assert len(undone) == 2  # neither undo wrote over the other's copy


def test_backups_are_ordered_newest_first_across_old_and_new_names(tmp_path):
    db = tmp_path / "db.json"
    db.write_text("{}")
    old = tmp_path / "db.json.bak-20260301T115959Z-merge"
    old.write_text("{}")
    made = [backups.make_backup(db, SAME_SECOND, "merge") for _ in range(3)]
    assert backups.backups(db) == [*made[::-1], old]
    made += [backups.make_backup(db, SAME_SECOND, "merge") for _ in range(9)]
    assert len(set(made)) == 12  # none named like another, also once the oldest were pruned
    assert backups.backups(db) == made[::-1][: backups.KEEP]
