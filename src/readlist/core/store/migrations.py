"""Schema migrations of the database file, one function per version step.

Schema 1 (readlist 0.0.x) kept one table `papers` with documents
`{"id", "starred", "status": "to-read"|"reading"|"done", "tags": "a, b", "note", "added", "modified"}`.
Schema 2 renames it `annotations`, stores tags as a list, uses `unread`/`reading`/`read`,
adds `created`/`updated`/`read_at`/`snippet`/`title`, and adds the `events` log.
Schema 3 writes documents small (annotations without their default fields, runs of log entries packed).
Schema 4 keeps of the abstract of a paper only given a status its opening and a sketch of its other words
(`annotation.reattach_key`) instead of its first 2,000 characters: a database of 100,000 read papers is a fifth
of the size.

A migration happens in memory; the file is written migrated (after a backup `NAME.bak-<time>-schema<N>` of
it as it was) in one atomic write, so a migration interrupted at any point leaves the old file as it was, and
the next start migrates it again.
"""

from __future__ import annotations

from collections.abc import Callable

from .annotation import OPENING_CHARS, normalize_tags, only_status, sketch_of
from .format import ANNOTATIONS, EVENTS, META, SCHEMA_VERSION, DamagedFile, check_current, schema_version

_V1_STATUS = {"to-read": "unread", "unread": "unread", "reading": "reading", "done": "read", "read": "read"}


def _v1_to_v2(data: dict) -> dict:
    papers = data.get("papers", {})
    annotations: dict[str, dict] = {}
    for doc_id, doc in papers.items():
        pid = doc.get("id")
        if not isinstance(pid, str) or not pid:
            raise DamagedFile(f"schema 1 file of the wrong shape (paper {doc_id} has no id)")
        status = _V1_STATUS.get(doc.get("status", "to-read"))
        if status is None:
            raise DamagedFile(f"schema 1 file of the wrong shape (paper {doc_id}: unknown status {doc['status']!r})")
        tags = doc.get("tags") or ""
        tags = tags.split(",") if isinstance(tags, str) else tags
        note = doc.get("note") or ""
        if not isinstance(tags, list) or not isinstance(note, str):
            raise DamagedFile(f"schema 1 file of the wrong shape (paper {doc_id}: tags or note)")
        modified = doc.get("modified") or doc.get("added")
        annotations[doc_id] = {
            "id": pid,
            "starred": bool(doc.get("starred", False)),
            "status": status,
            "tags": list(normalize_tags(tags)),
            "note": note,
            "title": None,
            "created": doc.get("added"),
            "updated": modified,
            "read_at": modified if status == "read" else None,
            "snippet": "",
        }
    out = {name: table for name, table in data.items() if name not in ("papers", META)}
    out[META] = {"1": {"schema_version": 2}}
    out[ANNOTATIONS] = annotations
    out.setdefault(EVENTS, {})
    return out


def _v2_to_v3(data: dict) -> dict:
    """Schema 3 writes documents small (see `packing`, which `format` applies when writing). Nothing else changes:
    the records and the log's entries are the same, packed when written."""
    next(iter(data[META].values()))["schema_version"] = 3
    return data


def _v3_to_v4(data: dict) -> dict:
    """The snippet of each record only given a status, longer than an opening, becomes its opening and the sketch of
    the rest (it was taken from the abstract the same way: `snippet_of`); a read record without `read_at` says it
    has none; the other records and the log are the same."""
    for doc in data.get(ANNOTATIONS, {}).values():
        if doc.get("status") == "read" and "read_at" not in doc:  # schema 3 left out a read_at of None: said now,
            doc["read_at"] = None  # as schema 4 leaves out one that is `updated`
        snippet = doc.get("snippet") or ""
        if len(snippet) > OPENING_CHARS and not doc.get("sketch") and only_status(doc):
            doc["sketch"], doc["snippet"] = sketch_of(snippet), snippet[:OPENING_CHARS]
    next(iter(data[META].values()))["schema_version"] = 4
    return data


MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}


def migrate(data: dict) -> tuple[dict, int]:
    """Bring decoded data to the current schema; returns (data, version it had). Raises DamagedFile."""
    start = version = schema_version(data)
    while version < SCHEMA_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
    if start < SCHEMA_VERSION:
        check_current(data)
    data.setdefault(ANNOTATIONS, {})
    data.setdefault(EVENTS, {})
    data.setdefault(META, {"1": {"schema_version": SCHEMA_VERSION}})
    return data, start
