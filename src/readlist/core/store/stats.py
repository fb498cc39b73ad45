"""Reading progress: counts by status, papers read per day, and per-tag progress."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta, tzinfo
from typing import Any

from ..papers.paper import Paper
from .changes import parse_iso

DAYS = 30


@dataclass(frozen=True)
class Stats:
    """The figures shown by `readlist stats` and the progress screen (over the papers in the list)."""

    total: int
    unread: int
    reading: int
    read: int
    starred: int
    noted: int
    read_per_day: tuple[int, ...]  # DAYS counts, oldest first, the last one is `today`
    tags: tuple[tuple[str, int, int], ...]  # (tag, papers, papers read), most used first
    today: date

    @property
    def read_last_30_days(self) -> int:
        return sum(self.read_per_day)

    def to_dict(self) -> dict[str, Any]:
        start = self.today - timedelta(days=len(self.read_per_day) - 1)
        return {
            "total": self.total,
            "unread": self.unread,
            "reading": self.reading,
            "read": self.read,
            "starred": self.starred,
            "noted": self.noted,
            "read_per_day": [
                {"date": (start + timedelta(days=n)).isoformat(), "read": count}
                for n, count in enumerate(self.read_per_day)
            ],
            "tags": [{"tag": tag, "papers": count, "read": done} for tag, count, done in self.tags],
        }


def _event_day(time: str, tz: tzinfo | None) -> date | None:
    moment = parse_iso(time)
    return None if moment is None else moment.astimezone(tz).date()


def read_per_day(events: Iterable[Any], today: date, days: int = DAYS, tz: tzinfo | None = None) -> tuple[int, ...]:
    """Distinct papers marked read on each of the last `days` days (oldest first); `events` newest first.

    An event counts when its `after` sets the status to read, unless it was undone or is itself an undo,
    or the paper was no longer read at the end of that day (read by a slip of the key, then set back).
    Days are calendar days in `tz` (default: the local time zone), so `today` should be given in the same zone.
    """
    first = today - timedelta(days=days - 1)
    # oldest first; the log (newest first) records whole seconds, so reversing it first keeps the order of
    # changes made within one second
    events = sorted(reversed(list(events)), key=lambda event: getattr(event, "time", ""))
    undone = {getattr(e, "undoes", None) for e in events if e.action == "undo"} - {None, ""}
    seen: dict[date, set[str]] = defaultdict(set)
    last_status: dict[tuple[date, str], str] = {}  # the paper's status at the end of each day it changed
    for event in events:
        after = getattr(event, "after", None) or {}
        day = _event_day(getattr(event, "time", ""), tz)
        if day is None or "status" not in after or getattr(event, "group", "") in undone or event.action == "move":
            continue  # a move (`readlist reattach`) carries a reading over; it is not one
        last_status[day, event.paper] = after["status"]
        if after["status"] == "read" and event.action != "undo" and first <= day <= today:
            seen[day].add(event.paper)  # an undo that brings "read" back restores an earlier reading
    return tuple(
        sum(last_status[day, paper] == "read" for paper in seen[day])
        for day in (first + timedelta(days=n) for n in range(days))
    )


def compute_stats(
    papers: Sequence[Paper],
    annotations: Mapping[str, Any],
    events: Iterable[Any],
    today: date,
    *,
    tz: tzinfo | None = None,
) -> Stats:
    """Progress over `papers`; annotations of papers no longer in the list are left out."""
    counts = {"unread": 0, "reading": 0, "read": 0}
    starred = noted = 0
    tag_total: dict[str, int] = defaultdict(int)
    tag_read: dict[str, int] = defaultdict(int)
    for paper in papers:
        note = annotations.get(paper.id)
        status = getattr(note, "status", "unread")
        counts[status if status in counts else "unread"] += 1
        if note is None:
            continue
        starred += bool(note.starred)
        noted += bool(note.note.strip())
        for tag in dict.fromkeys(note.tags):
            tag_total[tag] += 1
            tag_read[tag] += status == "read"
    tags = sorted(tag_total, key=lambda tag: (-tag_total[tag], tag))
    return Stats(
        total=len(papers),
        unread=counts["unread"],
        reading=counts["reading"],
        read=counts["read"],
        starred=starred,
        noted=noted,
        read_per_day=read_per_day(events, today, tz=tz),
        tags=tuple((tag, tag_total[tag], tag_read[tag]) for tag in tags),
        today=today,
    )


def progress_bar(done: int, total: int, width: int = 30) -> str:
    """A text bar `width` cells wide: full cells for the done share, light shade for the rest."""
    if width <= 0:
        return ""
    filled = 0 if total <= 0 else round(width * min(max(done, 0), total) / total)
    if 0 < done < total:
        filled = min(max(filled, 1), width - 1)  # some progress shows; not done never looks full
    return "█" * filled + "░" * (width - filled)
