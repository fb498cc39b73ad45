"""How the database file writes its documents small (schema 3), and reads them back as the store holds them.

- An annotation is written without the fields at their defaults (not starred, unread, no tags, no note, no
  title of the user's, no dates, no snippet or sketch), without `created` when it is `updated`, and (since schema
  4) a read paper without `read_at` when it is `updated` (one read at no known time says `"read_at":null`):
  reading a document fills in what it lacks (`Annotation.from_doc`), so the document means the same, at half
  the size for a paper only read.
- Consecutive log entries of one change that differ only in their paper (marking 100,000 papers read is
  100,000 such entries) are written as one document holding the first entry's id and `papers`, the papers in
  order: `"41":{"time":…,"action":"status","before":…,"after":…,"group":…,"papers":["a1…","b2…"]}` stands
  for entries 41, 42, … each with its `paper`. Reading unpacks it, so everything that reads the log (undo,
  merge, stats, compaction) sees one entry per paper as before; the entries of a run share their `before`
  and `after` values, which nothing changes in place (`note_edits.trim` replaces them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat
from typing import Any

RUN_KEYS = ("time", "paper", "action", "before", "after", "group")  # an entry holding only these can be in a run
PAPERS = "papers"

_DEFAULTS: dict[str, Any] = {
    "starred": False,
    "status": "unread",
    "tags": [],
    "note": "",
    "title": None,
    "created": None,
    "updated": None,
    "read_at": None,
    "snippet": "",
    "sketch": "",
}


class BadRun(ValueError):
    """A packed run of log entries that cannot be unpacked; the message says why in a few words."""


def packed_annotation(doc: dict[str, Any]) -> dict[str, Any]:
    """The annotation document without the fields at their defaults (its `id` and any unknown field kept), and
    without `created` when it is `updated` (a record changed once: reading takes `updated` for it)."""
    packed = {key: value for key, value in doc.items() if not _is_default(key, value)}
    if "created" in packed and packed["created"] == packed.get("updated"):
        del packed["created"]
    if packed.get("status") == "read":  # read when last changed (marking a list read): `read_at` left out, as
        if "read_at" not in packed:  # `created` is; read at no known time: said, so that it is not taken for that
            packed["read_at"] = None
        elif packed["read_at"] == packed.get("updated"):
            del packed["read_at"]
    return packed


def _is_default(key: str, value: Any) -> bool:
    if key not in _DEFAULTS:
        return False
    default = _DEFAULTS[key]
    return value is None if default is None else (type(value) is type(default) and value == default)


def runs(items: Iterable[tuple[str, dict]]) -> Iterator[list[tuple[str, dict]]]:
    """Log entries (doc id, document, in id order) cut into runs: entries with consecutive ids that differ only
    in their paper, each holding just the `RUN_KEYS`; an entry that cannot share a line is a run of one."""
    run: list[tuple[str, dict]] = []
    for doc_id, doc in items:
        if run and _continues(run[-1], doc_id, doc):
            run.append((doc_id, doc))
            continue
        if run:
            yield run
        run = [(doc_id, doc)]
    if run:
        yield run


def _continues(last: tuple[str, dict], doc_id: str, doc: dict) -> bool:
    last_id, last_doc = last
    if int(doc_id) != int(last_id) + 1 or not _packable(doc) or not _packable(last_doc):
        return False
    return all(doc[key] == last_doc[key] for key in RUN_KEYS if key != "paper")


def _packable(doc: dict) -> bool:
    return len(doc) == len(RUN_KEYS) and all(key in doc for key in RUN_KEYS) and isinstance(doc["paper"], str)


def packed_run(run: list[tuple[str, dict]]) -> dict[str, Any]:
    """The one document a run of two or more entries is written as (see the module docstring)."""
    first = run[0][1]
    return {key: first[key] for key in RUN_KEYS if key != "paper"} | {PAPERS: [doc["paper"] for _, doc in run]}


def unpack_events(table: dict[str, Any]) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The log with each packed run unpacked into its entries, in order, and the runs found (first id -> the
    ids of its entries). Raises BadRun for a run that is not a list of papers, or whose ids another entry has."""
    found = packed_runs(table)
    return (unpacked(table, found) if found else table), found


def packed_runs(table: dict[str, Any]) -> dict[str, list[str]]:
    """The packed runs of the log (first id -> the ids of its entries), checked as `unpack_events` unpacks them, no
    entry made. Raises BadRun for a run that is not a list of papers, or whose ids another entry has."""
    if not any(isinstance(doc, dict) and PAPERS in doc for doc in table.values()):
        return {}
    seen: set[str] = set()  # the ids of the entries before
    found: dict[str, list[str]] = {}
    for doc_id, doc in table.items():
        if not isinstance(doc, dict) or PAPERS not in doc:
            if doc_id in seen:
                raise BadRun(f"event {doc_id} is in a run of entries too")
            seen.add(doc_id)
            continue
        papers = doc[PAPERS]
        if (
            not (doc_id.isascii() and doc_id.isdigit())
            or not isinstance(papers, list)
            or not papers
            or not all(map(isinstance, papers, repeat(str)))  # each at C speed: 100,000 papers in a few ms
            or "paper" in doc
        ):
            raise BadRun(f"event {doc_id} is a run of entries without a list of papers")
        ids = list(map(str, range(int(doc_id), int(doc_id) + len(papers))))
        taken = seen.intersection(ids) or table.keys() & ids[1:]  # by entries before it, or others of the file
        if taken:
            raise BadRun(f"event {min(taken, key=int)} is in a run of entries too")
        seen.update(ids)
        found[doc_id] = ids
    return found


def unpacked(table: dict[str, Any], runs: dict[str, list[str]]) -> dict[str, Any]:
    """The log with these packed runs (`packed_runs`) unpacked into their entries, in order."""
    out: dict[str, Any] = {}
    for doc_id, doc in table.items():
        ids = runs.get(doc_id)
        if ids is None:
            out[doc_id] = doc
            continue
        shared = {key: value for key, value in doc.items() if key != PAPERS}
        out.update(zip(ids, _entries(shared, doc[PAPERS]), strict=True))
    return out


def _entries(shared: dict[str, Any], papers: list[str]) -> list[dict[str, Any]]:
    """The entries of a run, their keys in the order a log entry has them (so that each encodes as it would alone)."""
    if shared.keys() == _SHARED:  # as written: one dict display per entry (100,000 entries in 30 ms)
        time, action, before, after, group = (shared[key] for key in RUN_KEYS if key != "paper")
        return [
            {"time": time, "paper": paper, "action": action, "before": before, "after": after, "group": group}
            for paper in papers
        ]
    head = {key: shared[key] for key in RUN_KEYS[:1] if key in shared}
    rest = {key: value for key, value in shared.items() if key != "time"}
    return [head | {"paper": paper} | rest for paper in papers]


_SHARED = {key for key in RUN_KEYS if key != "paper"}
