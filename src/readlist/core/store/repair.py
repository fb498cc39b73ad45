"""Repairing a damaged database file: what can be salvaged of it (only the values of the wrong shape left
out), else the newest good backup, takes its place; the damaged file is moved aside, never deleted.

`salvage` also serves merge, which merges what can be read of a damaged other file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..files.atomic import atomic_write_bytes
from . import backups
from .annotation import STATUSES
from .format import (
    ANNOTATIONS,
    EVENTS,
    FIELD_TYPES,
    META,
    META_COUNTERS,
    PACKED_SINCE,
    SCHEMA_VERSION,
    DamagedFile,
    cut_key,
    decode,
    encode,
    good_event,
    is_doc_id,
)
from .migrations import migrate
from .packing import PAPERS, BadRun, unpack_events


@dataclass(frozen=True)
class Repair:
    """What `repair` did: where the damaged file went, how it ended, and whether a file now takes its place."""

    moved: Path
    outcome: str
    written: bool


def repair(path: Path, now: datetime) -> Repair:
    """Move a damaged file aside and write what can be salvaged of it, else the newest good backup, in its place."""
    moved = backups.move_aside(path, now)
    try:
        salvaged = salvage(moved.read_bytes())
    except Exception:  # a shape salvage did not foresee: the backup, as for any damage
        salvaged = None
    found = None if salvaged else backups.newest_good(path, _is_good)
    if salvaged:  # a few values of the wrong type: everything else is kept as it is
        data, dropped = salvaged
        atomic_write_bytes(path, [encode(data)])
        outcome = f"repaired it, leaving out {listed(dropped)}" if dropped else "repaired it"
        return Repair(moved, outcome, written=True)
    if found:
        atomic_write_bytes(path, found[1])
        outcome = f"restored the backup {found[0].name} (changes made after it are only in the moved file)"
        return Repair(moved, outcome, written=True)
    return Repair(moved, "found no backup, so started an empty database", written=False)


def _is_good(raw: bytes) -> bool:
    try:
        migrate(decode(raw))
    except DamagedFile:
        return False
    return True


def salvage(raw: bytes) -> tuple[dict[str, dict], list[str]] | None:
    """A file of this schema that parses but has documents of the wrong shape (a value of the wrong type,
    an unknown status, a malformed event), with only those values or documents left out: the data and what
    was left out, in a few words each. None when the damage is not of that kind (the file does not parse,
    has no schema version, or another schema). An annotation under a document id TinyDB cannot read (5,000
    digits, '١٢') is kept under a new one, since the id means nothing to readlist; what is returned decodes."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get(ANNOTATIONS), dict):
        return None
    dropped: list[str] = []
    meta = _salvage_meta(data.get(META), dropped)
    if meta is None:
        return None
    out: dict[str, dict] = {META: meta}
    unnumbered: list[dict] = []  # annotations under an id TinyDB cannot read
    for name, table in data.items():
        if name == META:
            continue
        if not isinstance(table, dict):
            dropped.append(f"table {name!r}")
            continue
        out[name] = {}
        if name == EVENTS:
            table = _unpacked(table, dropped)
        for doc_id, doc in table.items():
            renumber = name == ANNOTATIONS and not is_doc_id(doc_id)
            if not (is_doc_id(doc_id) or renumber) or not isinstance(doc, dict):
                dropped.append(f"{name} document {cut_key(doc_id)!r}")
                continue
            kept = _salvage_annotation(doc, cut_key(doc_id), dropped) if name == ANNOTATIONS else doc
            if name == EVENTS and not good_event(doc):
                kept = None
                dropped.append(f"event {doc_id}")
            if kept is not None and renumber:
                unnumbered.append(kept)
            elif kept is not None:
                out[name][doc_id] = kept
    out.setdefault(ANNOTATIONS, {})
    free = max(map(int, out[ANNOTATIONS]), default=0) + 1
    out[ANNOTATIONS].update((str(free + n), doc) for n, doc in enumerate(unnumbered))
    out.setdefault(EVENTS, {})
    if any(part.startswith(("meta", "the meta")) for part in dropped):  # the undo floor is not known: none
        floor = max((int(doc_id) for doc_id in out[EVENTS]), default=0)  # of the changes before can be undone
        meta_doc = next(iter(out[META].values()))
        meta_doc["undo_floor"] = max(floor, meta_doc.get("undo_floor", 0))
        meta_doc.setdefault("events_compacted", len(out[EVENTS]))
    try:
        decode(encode(out))  # what a repair writes must open
    except DamagedFile:
        return None
    return out, dropped


def listed(parts: list[str], shown: int = 3) -> str:
    """What `salvage` left out, in one line: the first few, and how many more."""
    more = f" and {len(parts) - shown} more" if len(parts) > shown else ""
    return ", ".join(parts[:shown]) + more


def _salvage_meta(meta: Any, dropped: list[str]) -> dict[str, dict] | None:
    """The meta table, its counters checked; one made anew when it is unreadable (the annotations are the
    schema's own, or this would not be reached); None for another schema's file."""
    docs = list(meta.values()) if isinstance(meta, dict) else []
    version = docs[0].get("schema_version") if len(docs) == 1 and isinstance(docs[0], dict) else None
    if type(version) is int and not PACKED_SINCE - 1 <= version <= SCHEMA_VERSION:
        return None  # a newer readlist's, or one of schema 1 to migrate: not ours to patch (2's documents are 3's)
    if type(version) is not int:
        dropped.append("the meta table (made anew)")
        return {"1": {"schema_version": SCHEMA_VERSION}}
    doc = dict(docs[0])
    for key in META_COUNTERS:
        if key in doc and type(doc[key]) is not int:
            dropped.append(f"meta {key}")
            del doc[key]
    doc_id = next(iter(meta))
    return {doc_id if is_doc_id(doc_id) else "1": doc}  # an id TinyDB cannot read: the one it would give


def _unpacked(events: dict, dropped: list[str]) -> dict:
    """The log with its packed runs of entries unpacked (see `packing`); a run that cannot be is left out, alone."""
    try:
        return unpack_events(events)[0]
    except BadRun:
        pass
    runs = {doc_id: doc for doc_id, doc in events.items() if isinstance(doc, dict) and PAPERS in doc}
    out = {doc_id: doc for doc_id, doc in events.items() if doc_id not in runs}
    for doc_id, doc in runs.items():
        try:
            entries = unpack_events({doc_id: doc})[0]
        except BadRun:
            entries = None
        if entries is None or out.keys() & entries.keys():  # not a run, or its ids are another entry's
            dropped.append(f"events {doc_id} on (a run of entries)")
            continue
        out.update(entries)
    return out


def _salvage_annotation(doc: dict, doc_id: str, dropped: list[str]) -> dict | None:
    if not isinstance(doc.get("id"), str) or not doc["id"]:
        dropped.append(f"annotation {doc_id} (no paper id)")
        return None
    kept = {}
    for key, value in doc.items():
        types = FIELD_TYPES.get(key)
        if types is not None and not isinstance(value, types):
            dropped.append(f"{key} of paper {doc['id']} ({type(value).__name__})")
        elif key == "status" and value not in STATUSES:
            dropped.append(f"status of paper {doc['id']} ({value!r})")
        elif key == "tags" and not all(isinstance(tag, str) for tag in value):
            kept[key] = [tag for tag in value if isinstance(tag, str)]
            dropped.append(f"a tag of paper {doc['id']}")
        else:
            kept[key] = value
    return kept
