"""Changes to annotations as data: validating what the caller asked for, and planning an undo from the log."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ..text.normalize import strip_control
from .annotation import EDITABLE, STATUSES, Annotation, Event, normalize_tags
from .note_edits import note_size_error

UNDO, REATTACH, MOVE = "undo", "reattach", "move"  # MOVE: `readlist reattach`, annotations moved by hand
NOT_UNDOABLE = (UNDO, REATTACH)


@dataclass
class Change:
    """One persisted step: field values to set per paper id, ids to rename, log entries to append, what
    resolving found per paper id (a `Resolution.to_dict`, or None to drop it; never logged nor undone), and the
    paper files opened, by path (a `lists.KnownList` document, or None to forget it; never logged nor undone).

    Kept until it is on disk, and applied again on top of a fresh read when another process wrote first.
    """

    sets: dict[str, dict[str, Any]] = field(default_factory=dict)
    renames: list[tuple[str, str]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    resolutions: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    lists: dict[str, dict[str, Any] | None] = field(default_factory=dict)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(time: object) -> datetime | None:
    """The instant an ISO-8601 timestamp names (one without a zone is UTC, as `iso` writes); None if unreadable."""
    if not isinstance(time, str) or not time:
        return None
    try:
        moment = datetime.fromisoformat(time.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def clean_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Validate and normalise `starred`, `status`, `tags`, `note`, `title`. Raises ValueError or TypeError."""
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if key not in EDITABLE:
            raise TypeError(f"unknown annotation field {key!r} (expected one of {', '.join(EDITABLE)})")
        if key == "starred":
            out[key] = bool(value)
        elif key == "status":
            if value not in STATUSES:
                raise ValueError(f"unknown status {value!r} (expected {', '.join(STATUSES)})")
            out[key] = value
        elif key == "tags":
            if isinstance(value, str):
                raise TypeError("tags must be a list of names, not one string")
            out[key] = list(normalize_tags(valid_text(str(tag)) for tag in value))
        elif key == "note":
            out[key] = refuse_long(refuse_nul(valid_text(str(value or "")).rstrip()))
        else:
            title = " ".join(strip_control(valid_text(str(value))).split()) if value is not None else ""
            out[key] = title or None
    return out


NUL_IN_NOTE = "a note cannot hold a NUL character (\\0)"


def refuse_nul(note: str) -> str:
    """A note as given, unless it holds a NUL, which would be dropped on display (and so lost silently)."""
    if "\0" in note:
        raise ValueError(NUL_IN_NOTE)
    return note


def refuse_long(note: str) -> str:
    """A note as given, unless it is longer than a note may be (see note_edits.MAX_NOTE_CHARS)."""
    error = note_size_error(note)
    if error:
        raise ValueError(error)
    return note


def valid_text(text: str) -> str:
    """Text that can be saved: bytes that were not UTF-8 (kept as surrogates, as in a command's arguments)
    become U+FFFD."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def diff(current: Annotation, wanted: Mapping[str, Any], now: str) -> tuple[dict, dict]:
    """(before, after) of the fields that actually change; a status change carries `read_at` along."""
    before: dict[str, Any] = {}
    after: dict[str, Any] = {}
    for key, value in wanted.items():
        old = list(current.tags) if key == "tags" else getattr(current, key)
        if old != value:
            before[key], after[key] = old, value
    if "status" in after:
        new_read_at = now if after["status"] == "read" else None
        if new_read_at != current.read_at:
            before["read_at"], after["read_at"] = current.read_at, new_read_at
    return before, after


def action_for(after: Mapping[str, Any]) -> str:
    keys = [key for key in after if key in EDITABLE]
    if len(keys) != 1:
        return "update"
    if keys[0] == "starred":
        return "star" if after["starred"] else "unstar"
    return keys[0]


@dataclass(frozen=True)
class UndoPlan:
    group: str
    restore: dict[str, dict[str, Any]]  # paper id (after re-attachments) -> field values to put back
    undone: tuple[Event, ...]
    notes: dict[str, tuple[Event, ...]] = field(default_factory=dict)  # paper id -> its note's changes, newest first


def follow_reattach(renames: dict[str, str], old: object, new: object) -> None:
    """One logged re-attachment (old id -> new id), read going back through the log from the newest entry:
    the record then at `old` is the one now at new's id. `renames` maps old ids to the ids their records
    have now, also for a paper re-attached there and back (v1, v2, v1)."""
    if isinstance(old, str) and isinstance(new, str) and old != new:
        renames[old] = renames.get(new, new)


def current_ids(events_newest_first: Iterable[Any]) -> dict[str, str]:
    """Old paper id -> the id its record has now, from the re-attachments in a log (Events, newest first)."""
    renames: dict[str, str] = {}
    for event in events_newest_first:
        if event.action == REATTACH:
            follow_reattach(renames, event.before.get("id"), event.after.get("id"))
    return {old: new for old, new in renames.items() if old != new}


def plan_undo(events: Iterable[Mapping[str, Any]], papers: Container[str] | None = None) -> UndoPlan | None:
    """The newest change group in the log not undone yet, of the papers in `papers` when given (a group
    changing only papers of another list is left for that list). `events` are the log documents, newest first."""
    undone: set[str] = set()
    renames: dict[str, str] = {}
    target = None
    newest_first = list(events)
    for doc in newest_first:
        action = doc.get("action")
        if action == UNDO:
            undone.add(doc.get("undoes") or "")
        elif action == REATTACH:
            follow_reattach(renames, doc.get("before", {}).get("id"), doc.get("after", {}).get("id"))
        elif doc.get("group") not in undone and (
            papers is None or renames.get(doc.get("paper"), doc.get("paper")) in papers
        ):
            target = doc.get("group")
            break
    if target is None:
        return None
    group = [Event.from_doc(doc) for doc in reversed(newest_first) if doc.get("group") == target]
    group = [event for event in group if event.action not in NOT_UNDOABLE]
    restore: dict[str, dict[str, Any]] = {}
    notes: dict[str, tuple[Event, ...]] = {}
    for event in group:  # oldest first: the earliest `before` of a field wins
        pid = renames.get(event.paper, event.paper)
        fields = restore.setdefault(pid, {})
        for key, value in event.before.items():
            fields.setdefault(key, value)
        if "note" in event.changed:  # the note before is worked out from the note now (note_edits.note_before)
            notes[pid] = (event, *notes.get(pid, ()))
            fields.pop("note", None)
    return UndoPlan(group=target, restore=restore, undone=tuple(group), notes=notes)
