"""What the merge's rules read from a change log, per paper: when each field last changed and to what, which
note texts a later change replaced, and when each tag was last added and removed.

Each table is built from one log, oldest first, under the id each paper's record has now (`renames`: an old id
-> its record's current id, following logged re-attachments). A time missing or unreadable counts as the oldest.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from .annotation import Annotation, Event
from .changes import REATTACH, current_ids, follow_reattach, parse_iso
from .note_edits import digest, note_parts

OLDEST = datetime.min.replace(tzinfo=UTC)


def instant(time: str | None) -> datetime:
    """Comparable instant of an ISO-8601 string; missing or unreadable ones count as the oldest."""
    return parse_iso(time) or OLDEST


def renamed_ids(events: Iterable[Event]) -> dict[str, str]:
    """Old paper id -> current id, following logged re-attachments (a paper whose text changed); `events`
    oldest first."""
    return current_ids(reversed(list(events)))


def at_current_ids(events: Sequence[Event]) -> list[Event]:
    """The log (oldest first) with each entry under the id its record has now: a re-attachment takes the
    entries made before it to the new id, while those made later under the old id stay there (another record)."""
    renames: dict[str, str] = {}
    out: list[Event] = []
    for event in reversed(events):
        if event.action == REATTACH:
            follow_reattach(renames, event.before.get("id"), event.after.get("id"))
        paper = renames.get(event.paper, event.paper)
        out.append(event if paper == event.paper else replace(event, paper=paper))
    return out[::-1]


Logged = dict[str, dict[str, tuple[datetime, set[str]]]]  # paper -> field -> (latest change, values it set)


def canon(value: Any) -> str:
    """A field's value as text, equal for equal values (tags as a list or a tuple alike)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _logged(name: str, value: Any) -> str:
    """A field's value as `Logged` holds it: a note by its digest (a note edit holds no more of the note)."""
    return digest(value) if name == "note" and isinstance(value, str) else canon(value)


def _set_values(event: Event) -> list[tuple[str, str]]:
    """The fields a log entry set, with their values as `Logged` holds them."""
    values = [(name, _logged(name, value)) for name, value in event.after.items()]
    if event.note_edit and "note" not in event.after:
        values.append(("note", str(event.note_edit.get("is"))))
    return values


def field_times(events: Iterable[Event], renames: Mapping[str, str]) -> Logged:
    """paper -> field -> latest logged change and the values set then (key "": the latest event of any kind)."""
    times: Logged = defaultdict(dict)
    for event in events:
        moment = instant(event.time)
        per_paper = times[renames.get(event.paper, event.paper)]
        for name, value in (*_set_values(event), ("", "")):
            seen = per_paper.get(name)
            if seen is None or seen[0] < moment:
                per_paper[name] = (moment, {value})
            elif seen[0] == moment:
                seen[1].add(value)
    return times


def set_at(note: Annotation, times: Logged, name: str) -> datetime:
    """When the side set the field: its latest logged change, or `updated` for a value its log does not account for."""
    logged = times.get(note.id)
    if not logged:
        return instant(note.updated)
    moment = logged[name][0] if name in logged else OLDEST
    return max(moment, instant(note.updated)) if unaccounted(note, times, name) else moment


def unaccounted(note: Annotation, times: Logged, name: str) -> bool:
    """The value is not what the side's log says: not set by its latest logged change, nor a never-logged default."""
    value = getattr(note, name)
    logged = times.get(note.id, {}).get(name)
    if logged is None:
        return value != getattr(Annotation(note.id), name)
    return _logged(name, value) not in logged[1]


def replaced_notes(events: Iterable[Event], renames: Mapping[str, str]) -> dict[str, dict[str, datetime]]:
    """paper -> digest of a note text (or a conflict part of one) -> when a logged change last replaced it."""
    out: dict[str, dict[str, datetime]] = defaultdict(dict)
    for event in events:
        replaced = _replaced_digests(event)
        if replaced:
            moment = instant(event.time)
            per_paper = out[renames.get(event.paper, event.paper)]
            for text in replaced:
                if per_paper.get(text, OLDEST) < moment:
                    per_paper[text] = moment
    return out


def _replaced_digests(event: Event) -> set[str]:
    """Digests of the note a log entry replaced and of the texts a merge had joined into it; none when it did not
    change the note."""
    before, after = event.before.get("note"), event.after.get("note")
    if isinstance(before, str):  # the whole note, as earlier versions log it
        return {digest(text) for text in {before, *note_parts(before)}} if before != after else set()
    edit = event.note_edit
    if not edit or edit.get("was") == edit.get("is"):
        return set()
    parts = edit.get("parts")
    return {str(edit.get("was")), *(parts if isinstance(parts, list) else ())}


TagTimes = dict[str, tuple[datetime, datetime]]  # tag (case-folded) -> (last logged addition, last removal)


def tag_times(events: Iterable[Event], renames: Mapping[str, str]) -> dict[str, TagTimes]:
    """paper -> tag (case-folded) -> (when a logged change last added it, when one last removed it)."""
    out: dict[str, TagTimes] = defaultdict(dict)
    for event in events:
        before, after = event.before.get("tags"), event.after.get("tags")
        if not isinstance(before, list | tuple) or not isinstance(after, list | tuple):
            continue
        old, new = {str(t).casefold() for t in before}, {str(t).casefold() for t in after}
        moment, per_paper = instant(event.time), out[renames.get(event.paper, event.paper)]
        for tag in old ^ new:
            added, removed = per_paper.get(tag, (OLDEST, OLDEST))
            per_paper[tag] = (max(added, moment), removed) if tag in new else (added, max(removed, moment))
    return out


History = tuple[Logged, dict[str, dict[str, datetime]], dict[str, TagTimes]]  # field times, replaced notes, tags


def read_history(events: Sequence[Event], renames: Mapping[str, str]) -> History:
    """What the merge's rules read from one log (oldest first), per paper id: see `field_times`,
    `replaced_notes` and `tag_times`."""
    return field_times(events, renames), replaced_notes(events, renames), tag_times(events, renames)
