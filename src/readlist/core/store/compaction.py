"""Keeping the change log from growing without limit, without losing what the log is read for.

The log is rewritten on every save, so it should not grow forever. Once it holds more than
2 x RECENT entries, and RECENT entries were added since the last compaction (so this runs once
per RECENT changes, not on every save), the older entries are dropped except those still needed:

- the newest RECENT entries (widened to whole change groups): what `undo` walks through; entries
  below them are put under the undo floor, so undo never reaches a group it only sees in part;
- status changes and undos of the last STATS_DAYS days: `stats` counts papers read per day;
- re-attachments: a merge follows them from a paper's old id to its new one;
- for each paper and field, the entries of its latest logged change: a merge takes a field's
  time from them (an annotation whose fields have no logged change counts as older).

What is lost is older history: `readlist log` shows less, and an old note text that another copy
still holds is no longer known to have been replaced, so merging that copy keeps both texts.

Note texts are kept apart from that: past the newest LOGGED_NOTE_CHARS characters of note text a
paper's entries hold, its older entries keep only the digests of their notes (`note_edits.trim`),
checked whenever a note changes, and for every paper when the log is compacted.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from .changes import parse_iso
from .note_edits import LOGGED_NOTE_CHARS, NOTE_EDIT, logged_chars

RECENT = 5000
STATS_DAYS = 32


def due(count: int, compacted: int) -> bool:
    """Whether a log of `count` entries, `compacted` long after the last compaction, is compacted now."""
    return count > 2 * RECENT and count >= compacted + RECENT


@lru_cache(maxsize=4096)
def _moment(time: str) -> datetime:
    return parse_iso(time) or datetime.min.replace(tzinfo=UTC)


def plan(events: Mapping[str, dict], now: datetime) -> tuple[set[str], int]:
    """(ids of the entries to drop, the new undo floor: entries with ids up to it are not undoable)."""
    ids = sorted(events, key=int)
    if len(ids) <= RECENT:
        return set(), 0
    start = len(ids) - RECENT
    group = events[ids[start]].get("group")
    while start > 0 and group and events[ids[start - 1]].get("group") == group:
        start -= 1
    floor = int(ids[start]) - 1
    latest: dict[tuple[str, str], tuple[datetime, list[str]]] = {}
    for doc_id in ids:
        doc = events[doc_id]
        moment = _moment(doc.get("time", ""))
        for field in [*(doc.get("after") or {}), *(["note"] if doc.get(NOTE_EDIT) else [])]:
            key = (doc.get("paper", ""), field)
            best = latest.get(key)
            if best is None or best[0] < moment:
                latest[key] = (moment, [doc_id])
            elif best[0] == moment:
                best[1].append(doc_id)
    keep = {doc_id for _, kept in latest.values() for doc_id in kept}
    recent_since = now - timedelta(days=STATS_DAYS)
    drop = set()
    for doc_id in ids[:start]:
        doc = events[doc_id]
        action, after = doc.get("action"), doc.get("after") or {}
        if doc_id in keep or action == "reattach":
            continue
        if (action == "undo" or "status" in after) and _moment(doc.get("time", "")) >= recent_since:
            continue
        drop.add(doc_id)
    return drop, floor


def note_texts_to_trim(events: Mapping[str, dict], papers: Container[str] | None = None) -> list[str]:
    """Ids of the log entries (of these papers, when given) holding note text past the newest LOGGED_NOTE_CHARS
    characters of their paper's."""
    held: dict[str, int] = {}
    out = []
    for doc_id in sorted(events, key=int, reverse=True):
        doc = events[doc_id]
        paper = doc.get("paper", "")
        if papers is not None and paper not in papers:
            continue
        size = logged_chars(doc)
        if size:
            held[paper] = held.get(paper, 0) + size
            if held[paper] > LOGGED_NOTE_CHARS:
                out.append(doc_id)
    return out
