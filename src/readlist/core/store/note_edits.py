"""A note's changes as the log keeps them, and how long a note may be.

A log entry that changes a note holds a note edit instead of the whole note before and after
(`before`/`after` hold the other fields):

    "note_edit": {"at": 120, "cut": "old middle", "put": "new middle", "was": DIGEST, "is": DIGEST}

The note before and the note after share their first `at` characters and their ends; `cut` is what
stood between them before, `put` what stands there after (an append is `put` alone, at the old end).
`was` and `is` are digests of the whole note before and after: undo checks the note it reverts is
the one the edit left, and a merge tells which note texts a change replaced by them (with `parts`,
the digests of the texts a merge joined into the note before, when it held several).

Entries written by earlier versions hold the note whole in `before`/`after`; both are read. The log
keeps at most LOGGED_NOTE_CHARS characters of note text per paper: older note edits lose `cut` and
`put` (and older whole notes become digests), so undo stops reverting that paper's note there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

NOTE_EDIT = "note_edit"  # a log entry's key for its note edit
MAX_NOTE_CHARS = 1_000_000  # about 1 MB: a note is saved, searched and shown whole
LOGGED_NOTE_CHARS = 2 * MAX_NOTE_CHARS  # the newest change replacing one longest note by another stays undoable
NOTE_SEPARATOR = "\n\n──────── conflicting edit (readlist merge) ────────\n\n"  # between the texts a merge joins


def note_size_error(note: str) -> str | None:
    """Why `note` cannot be saved for its length (one line), None when it can. White space at its end, which is
    not saved, does not count."""
    if len(note) <= MAX_NOTE_CHARS or len(note := note.rstrip()) <= MAX_NOTE_CHARS:
        return None
    return f"a note can hold at most {MAX_NOTE_CHARS:,} characters, this one would have {len(note):,}"


def note_parts(note: str) -> list[str]:
    """The texts a merge joined into a note (the note itself when it joined none)."""
    return [part for part in note.split(NOTE_SEPARATOR) if part.strip()]


def digest(note: str) -> str:
    """A short fingerprint of a note's whole text."""
    return hashlib.sha256(note.encode("utf-8", "surrogatepass")).hexdigest()[:32]


EMPTY_NOTE = digest("")


def edit_of(before: str, after: str) -> dict[str, Any]:
    """The note edit turning `before` into `after`."""
    start = _common_prefix(before, after)
    end = _common_prefix(before[start:][::-1], after[start:][::-1])
    cut, put = before[start : len(before) - end], after[start : len(after) - end]
    return {"at": start, "cut": cut, "put": put} | _digests(before, after)


def _digests(before: str, after: str) -> dict[str, Any]:
    out: dict[str, Any] = {"was": digest(before), "is": digest(after)}
    parts = note_parts(before)
    if len(parts) > 1:
        out["parts"] = [digest(part) for part in parts]
    return out


def _common_prefix(a: str, b: str) -> int:
    """How many first characters `a` and `b` share; compared a growing chunk at a time, not one by one."""
    size = min(len(a), len(b))
    low, step = 0, 256
    while low < size:
        high = min(low + step, size)
        if a[low:high] != b[low:high]:
            while high - low > 1:  # a[:low] is shared, a[low:high] is not
                middle = (low + high) // 2
                if a[low:middle] == b[low:middle]:
                    low = middle
                else:
                    high = middle
            return low
        low, step = high, step * 2
    return size


def compact(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry (a dict) with the note it changes, held whole in `before` and `after`, as a note edit."""
    before, after = entry.get("before", {}), entry.get("after", {})
    if "note" in after:
        entry[NOTE_EDIT] = edit_of(before.pop("note", ""), after.pop("note"))
    return entry


def revert(edit: Mapping[str, Any], note: str) -> str | None:
    """The note before `edit`, given the note after it; None when the edit's text is no longer kept, or
    `note` is not what the edit left (the note changed without a log entry since)."""
    at, cut, put = edit.get("at"), edit.get("cut"), edit.get("put")
    if not isinstance(at, int) or not isinstance(cut, str) or not isinstance(put, str):
        return None
    if digest(note) != edit.get("is"):
        return None
    before = note[:at] + cut + note[at + len(put) :]
    return before if digest(before) == edit.get("was") else None


def note_before(note: str, entries_newest_first: Iterable[Any]) -> str | None:
    """The note as it was before these log entries (Events, newest first) changed it, given the note now;
    None when it cannot be known exactly any more (see `revert`)."""
    for entry in entries_newest_first:
        if "note" in entry.before:  # written whole by an earlier version
            note = entry.before["note"]
        elif entry.note_edit:
            reverted = revert(entry.note_edit, note)
            if reverted is None:
                return None
            note = reverted
    return note


def changes_note(doc: Mapping[str, Any]) -> bool:
    """Whether a log document changes a note (in either form)."""
    return bool(doc.get(NOTE_EDIT)) or "note" in (doc.get("after") or {})


def logged_chars(doc: Mapping[str, Any]) -> int:
    """Characters of note text a log document holds."""
    edit, before, after = doc.get(NOTE_EDIT) or {}, doc.get("before") or {}, doc.get("after") or {}
    held = [edit.get("cut"), edit.get("put"), before.get("note"), after.get("note")]
    return sum(len(text) for text in held if isinstance(text, str))


def trim(doc: dict[str, Any]) -> None:
    """Leave only the digests of the note texts a log document holds (the document changed in place, what it
    holds replaced, not changed: a change waiting to be saved may share it)."""
    before, after = doc.get("before") or {}, doc.get("after") or {}
    edit = doc.get(NOTE_EDIT)
    if isinstance(after.get("note"), str):
        old = before.get("note")
        edit = _digests(old if isinstance(old, str) else "", after["note"])
        doc["before"] = {key: value for key, value in before.items() if key != "note"}
        doc["after"] = {key: value for key, value in after.items() if key != "note"}
    if isinstance(edit, dict):
        doc[NOTE_EDIT] = {key: value for key, value in edit.items() if key not in ("at", "cut", "put")}
