"""Schema migrations from the v1 fixture, and the backups kept around them and around routine writes."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.paper import Paper
from readlist.core.papers.reader import read_papers
from readlist.core.store.format import decode
from readlist.core.store.store import Store

FIXTURE = Path(__file__).parent / "fixtures" / "db-v1.json"


def v1_db(tmp_path) -> Path:
    db = tmp_path / "readlist.json"
    shutil.copyfile(FIXTURE, db)
    return db


def test_v1_file_is_migrated_on_open(tmp_path):
    db = v1_db(tmp_path)
    store = Store(db)
    assert store.notices == []
    first = store.get("fd5d0f582aa4")
    assert (first.starred, first.status, first.tags) == (True, "read", ("llm", "systems"))
    assert first.note == "Read with the team.\n\n- check the 70B numbers"
    assert (first.created, first.updated, first.read_at) == (
        "2025-03-01T10:00:00Z",
        "2025-03-04T18:30:00Z",
        "2025-03-04T18:30:00Z",
    )
    assert store.get("4d8f0a1d15d3").status == "reading"
    assert store.get("0123456789ab").status == "unread"
    data = json.loads(db.read_text(encoding="utf-8"))
    assert data["meta"]["1"]["schema_version"] == 4
    assert "papers" not in data and set(data["annotations"]) == {"1", "2", "3"}


def test_migration_keeps_a_backup_of_the_v1_bytes(tmp_path):
    db = v1_db(tmp_path)
    Store(db)
    backups = list(tmp_path.glob("readlist.json.bak-*-schema1"))
    assert len(backups) == 1
    assert backups[0].read_bytes() == FIXTURE.read_bytes()


def test_migrated_file_reopens_without_migrating_again(tmp_path):
    db = v1_db(tmp_path)
    Store(db).toggle_star(Paper(id="4d8f0a1d15d3", index=2, text="x"))
    again = Store(db)
    assert again.get("4d8f0a1d15d3").starred
    assert len(list(tmp_path.glob("readlist.json.bak-*"))) == 1


def test_reconcile_fills_snippets_of_migrated_annotations_and_lists_the_missing_one(tmp_path):
    db = v1_db(tmp_path)
    papers = read_papers(bundled_papers())
    store = Store(db)
    messages = store.reconcile(papers)
    assert messages == [f"1 annotated paper(s) are not in {papers.name}; kept under missing papers"]
    assert store.get("fd5d0f582aa4").snippet.startswith("With the rapid expansion")
    assert [ann.id for ann in store.orphans()] == ["0123456789ab"]
    assert Store(db).get("0123456789ab").note == "paper no longer in the list"


def test_at_most_one_routine_backup_per_hour_and_five_kept(tmp_path):
    db = tmp_path / "readlist.json"
    now = [datetime(2025, 7, 1, 0, 0, tzinfo=UTC)]
    store = Store(db, now=lambda: now[0])
    paper = Paper(id="aaaaaaaaaaaa", index=1, text="x")
    store.toggle_star(paper)
    for _ in range(3):  # within the same hour
        now[0] += timedelta(minutes=10)
        store.toggle_star(paper)
    assert len(list(tmp_path.glob("readlist.json.bak-*"))) == 1
    for _ in range(8):
        now[0] += timedelta(minutes=61)
        store.toggle_star(paper)
    backups = sorted(tmp_path.glob("readlist.json.bak-*"))
    assert len(backups) == 5
    assert backups[-1].name == "readlist.json.bak-20250701T083800.000000Z"
    for backup in backups:
        decode(backup.read_bytes())  # every backup is a good version
