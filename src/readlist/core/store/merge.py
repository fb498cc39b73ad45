"""Merging two readlist databases (say a laptop's copy into this one), as a pure function.

Per paper and field the newer change wins: a field's time is its latest change in that side's
event log, or the annotation's `updated` when the side logged nothing for the paper or its log
does not account for the value (not what the latest logged change set, nor the default of a field
never logged): such a value came from a copy without a log (say migrated schema-1 data) or was
made by an earlier merge (a conflict mark). At equal times the unaccounted value wins, as the
merged one, so merging the same copy again keeps it. A note edited
on both sides keeps both texts, separated by a marked line, and the paper is tagged `conflict`.
A note that the history shows was replaced after it was written (what a later logged change
replaced, known by its digest) gives way to the other side's; an empty note never replaces a
written one unless the log shows it was cleared.
Events are united. The result does not depend on which side is "this" one, and merging the same
copy again changes nothing. What these rules read from each side's log is `merge_history`'s.

With a base (the copy both sides started from, as git gives its merge driver) the merge is three-way, as git's
is: a field one side left as it was in the base takes the other side's value, whatever the clocks say; tags
are the base's, less those either side took off, plus those either side added; and a note both sides edited
keeps the text they share once with both sides' edits (`note_merge`), falling back to both texts under a
divider only when the edits overlap.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any

from ..text.normalize import strip_control
from .annotation import Annotation, Event, cut_label
from .merge_history import (
    OLDEST,
    History,
    Logged,
    TagTimes,
    at_current_ids,
    canon,
    field_times,
    instant,
    read_history,
    renamed_ids,
    replaced_notes,
    set_at,
    tag_times,
    unaccounted,
)
from .note_edits import NOTE_SEPARATOR, digest, note_parts
from .note_merge import merge_note

MERGED_FIELDS = ("starred", "status", "tags", "title")  # the note has its own rule
CONFLICT_TAG = "conflict"


@dataclass(frozen=True)
class Change:
    """One field of one paper that the merge changes in this database."""

    paper: str
    field: str
    before: Any
    after: Any
    conflict: bool = False  # a note edited on both sides, joined by this merge

    def describe(self) -> str:
        if self.field == "note":
            if self.conflict:
                return "note: edited on both sides, both texts kept"
            earlier = NOTE_SEPARATOR in self.after  # joined by an earlier merge, on the other side
            return "note: replaced" + (" (by both texts of an earlier conflict)" if earlier else "")
        if self.field == "paper":
            note = self.after
            parts = ["starred"] if note.starred else []
            parts += [note.status] if note.status != "unread" else []
            parts += [f"tags {_show(note.tags)}"] if note.tags else []
            parts += ["a note"] if note.note.strip() else []
            parts += [f"own title {_title(note.title)}"] if note.title else []
            return "new here: " + (", ".join(parts) or "no marks")
        if self.field == "id":
            return f"re-attached from {self.before} (the paper's text changed)"
        if self.field == "title":  # None is the paper's own title, never shown as null
            if self.after is None:
                return "title: back to the paper's own"
            before = f" {_title(self.before)}" if self.before else ""
            return f"title{before} → {_title(self.after)}"
        return f"{self.field}: {_show(self.before)} → {_show(self.after)}"


@dataclass(frozen=True)
class MergeReport:
    changes: tuple[Change, ...]
    conflicts: tuple[str, ...]  # papers whose notes were edited on both sides
    events_added: int
    combined: tuple[tuple[str, int], ...] = ()  # (paper, records) where the other file held several for one paper
    resolutions: int = 0  # papers whose online lookup (`readlist resolve`) comes from the other file
    lists: int = 0  # paper files (see `lists`) known from the other file, or opened there last

    @property
    def changed(self) -> bool:
        return bool(self.changes or self.events_added or self.resolutions or self.lists)

    def lines(self, name: Callable[[str], str] = str) -> list[str]:
        """Each paper named by `name(id)` (its id, or the CLI's number and title), its changes indented below it;
        then the counts."""
        described: dict[str, list[str]] = defaultdict(list)
        for paper, n in self.combined:
            described[paper].append(f"{n} records of this paper in the other file, combined first")
        for change in self.changes:
            described[change.paper].append(change.describe())
        out = []
        for paper, changes in described.items():
            out += [name(paper), *(f"    {change}" for change in changes)]
        papers = len({c.paper for c in self.changes})
        found = f", {self.resolutions} paper(s) looked up online" if self.resolutions else ""
        found += f", {self.lists} list(s) opened there" if self.lists else ""
        out.append(
            f"{len(self.changes)} change(s) to {papers} paper(s), {len(self.conflicts)} note conflict(s), "
            f"{self.events_added} new event(s){found}"
        )
        return out


@dataclass(frozen=True)
class MergeResult:
    annotations: dict[str, Annotation]
    events: tuple[Event, ...]
    report: MergeReport


def _title(title: str) -> str:
    """A user's title as the log shows one: quoted, cut to 40 characters."""
    return repr(cut_label(strip_control(title), 40))


def _show(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(value) + "]"
    if isinstance(value, str) and value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _event_key(event: Event) -> str:
    doc = {f.name: getattr(event, f.name) for f in fields(event)}
    return json.dumps(doc, sort_keys=True, ensure_ascii=False, default=str)


def _follow(annotations: Mapping[str, Annotation], renames: Mapping[str, str]) -> dict[str, Annotation]:
    """Annotations keyed by current paper id; one whose new id this side already has stays put."""
    out: dict[str, Annotation] = {}
    for pid, note in annotations.items():
        new = renames.get(pid, pid)
        if new != pid and (new in annotations or new in out):
            new = pid
        out[new] = note if new == pid else replace(note, id=new)
    return out


def _tie_key(name: str, value: Any, unaccounted: bool) -> tuple[bool, bool, str]:
    """Orders two values changed at the same instant, the same way from either side.

    Equal times with different values mostly mean one side already merged the other: the value
    its log does not account for, or tags that carry the conflict mark, are the merged ones.
    """
    flagged = name == "tags" and CONFLICT_TAG in value
    return unaccounted, flagged, canon(value)


def _merge_tags(first: tuple[str, ...], second: tuple[str, ...], changes: TagTimes) -> tuple[str, ...]:
    """Tags of both sides (those of `first`, the side changed last, first): a tag only one side has was
    added there, and stays, unless the log says it was removed after it was last added."""
    both = {tag.casefold() for tag in first} & {tag.casefold() for tag in second}
    merged: dict[str, str] = {}
    for tag in (*first, *second):
        key = tag.casefold()
        added, removed = changes.get(key, (OLDEST, OLDEST))
        if key not in merged and (key in both or removed <= added):
            merged[key] = tag
    return tuple(merged.values())


def _merge_tags_from(base: tuple[str, ...], first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """Tags of both sides (those of `first` first) by their common base: a base tag either side took off is off."""
    held = {tag.casefold() for tag in base}
    off = held - {tag.casefold() for tag in first} | held - {tag.casefold() for tag in second}
    merged: dict[str, str] = {}
    for tag in (*first, *second):
        merged.setdefault(tag.casefold(), tag)
    return tuple(tag for key, tag in merged.items() if key not in off)


def _merge_note(
    a: str, b: str, ta: datetime, tb: datetime, replaced: Mapping[str, datetime], base: str | None = None
) -> tuple[str, bool]:
    """(merged note, whether both sides' edits had to be kept).

    With the `base` both started from, a side that left it as it was takes the other's text, and edits at separate
    places are both applied to it (the side changed first first). Else a text replaced by a logged change after it
    was written is superseded; the other side's text then stands (also when it is empty: the note was cleared on
    purpose).
    """
    if a == b:
        return a, False
    if base is not None:
        if base in (a, b):
            return (b if a == base else a), False
        first, second = sorted([(ta, a), (tb, b)])
        merged = merge_note(base, first[1], second[1])
        if merged is not None:
            return merged, False
    a_old, b_old = replaced.get(digest(a), OLDEST) > ta, replaced.get(digest(b), OLDEST) > tb
    if a_old != b_old:
        return (b, False) if a_old else (a, False)
    if not a.strip() or not b.strip():  # a blank note (a space, a line break) holds nothing to keep over the other
        return (a if a.strip() else b if b.strip() else a or b), False
    parts_a, parts_b = note_parts(a), note_parts(b)
    if set(parts_b) <= set(parts_a):
        return a, False
    if set(parts_a) <= set(parts_b):
        return b, False
    first, second = sorted([(ta, a, parts_a), (tb, b, parts_b)], key=lambda t: (t[0], t[1]))
    return NOTE_SEPARATOR.join(dict.fromkeys([*first[2], *second[2]])), True


def merge_annotation(
    a: Annotation,
    b: Annotation,
    times_a: Logged,
    times_b: Logged,
    replaced: Mapping[str, datetime],
    tag_changes: TagTimes | None = None,
    base: Annotation | None = None,
) -> tuple[Annotation, bool]:
    """The two records of one paper merged, by their common `base` where one is given (three-way); whether both
    notes had to be kept."""
    changes: dict[str, Any] = {}
    winners: dict[str, Annotation] = {}
    for name in MERGED_FIELDS:
        va, vb = getattr(a, name), getattr(b, name)
        if base is not None and va != vb and getattr(base, name) in (va, vb):  # changed on one side only
            winner = b if va == getattr(base, name) else a
        else:
            ta, tb = set_at(a, times_a, name), set_at(b, times_b, name)
            key_a = (ta, _tie_key(name, va, unaccounted(a, times_a, name)))
            key_b = (tb, _tie_key(name, vb, unaccounted(b, times_b, name)))
            winner = a if key_a >= key_b else b
        changes[name] = getattr(winner, name)
        winners[name] = winner
    loser = b if winners["tags"] is a else a
    if base is not None:
        changes["tags"] = _merge_tags_from(base.tags, winners["tags"].tags, loser.tags)
    else:
        changes["tags"] = _merge_tags(winners["tags"].tags, loser.tags, tag_changes or {})
    note_a, note_b = set_at(a, times_a, "note"), set_at(b, times_b, "note")
    note, conflict = _merge_note(a.note, b.note, note_a, note_b, replaced, None if base is None else base.note)
    changes["note"] = note
    if conflict and CONFLICT_TAG not in changes["tags"]:
        changes["tags"] = (*changes["tags"], CONFLICT_TAG)
    if changes["status"] != "read":
        changes["read_at"] = None
    elif a.status == b.status:  # read on both sides: when it was first read
        changes["read_at"] = min((t for t in (a.read_at, b.read_at) if t), key=instant, default=None)
    else:
        changes["read_at"] = winners["status"].read_at
    changes["created"] = min((t for t in (a.created, b.created) if t), key=instant, default=None)
    changes["updated"] = max((t for t in (a.updated, b.updated) if t), key=instant, default=None)
    kept = max((a, b), key=lambda r: (len(r.snippet), bool(r.sketch), r.snippet, r.sketch))  # one side's key whole
    changes["snippet"], changes["sketch"] = kept.snippet, kept.sketch
    return replace(a, **changes), conflict


def _join(records: Sequence[Annotation], history: History) -> tuple[Annotation, bool]:
    """Records combined into the first's id by the merge's rules, the first winning ties; whether two notes
    were both kept. Records of several ids (a paper's record and one made under its earlier id) read the
    notes replaced and the tags taken off on either."""
    if len(records) == 1:
        return records[0], False
    times, replaced, tag_changes = history
    ids = dict.fromkeys(record.id for record in records)
    notes: dict[str, datetime] = {}
    tags: TagTimes = {}
    for pid in ids:
        for text, moment in replaced.get(pid, {}).items():
            notes[text] = max(notes.get(text, OLDEST), moment)
        for tag, (added, removed) in tag_changes.get(pid, {}).items():
            seen = tags.get(tag, (OLDEST, OLDEST))
            tags[tag] = (max(seen[0], added), max(seen[1], removed))
    result, conflict = records[0], False
    for other in records[1:]:
        result, joined = merge_annotation(result, other, times, times, notes, tags)
        conflict = conflict or joined
    return result, conflict


def combine_duplicates(
    docs: Iterable[Mapping[str, Any]], events: Iterable[Event]
) -> tuple[dict[str, Annotation], dict[str, int]]:
    """One annotation per paper from a file's documents, oldest first, which may hold several for one paper (a
    hand-edited or concatenated file): those are combined by the merge's rules (newer field wins by the file's
    log, every note kept, tags united), never the last alone. Also how many records each such paper had."""
    groups: dict[str, list[Annotation]] = defaultdict(list)
    for doc in docs:
        groups[doc["id"]].append(Annotation.from_doc(doc))
    several = {paper: len(group) for paper, group in groups.items() if len(group) > 1}
    if not several:
        return {paper: group[0] for paper, group in groups.items()}, {}
    events = list(events)
    history = read_history(events, renamed_ids(events))
    return {paper: _join(group, history)[0] for paper, group in groups.items()}, several


def join_records(target: Annotation, other: Annotation, events: Iterable[Event]) -> tuple[Annotation, bool]:
    """Two records of one paper under two ids (say one kept under the paper's earlier id, annotated again
    after the paper's record moved to its new id) joined under `target`'s id by the merge's rules: the newer
    change of each field wins by the log (oldest first), both notes are kept, tags united. Whether both notes
    were kept (the result is then tagged `conflict`)."""
    return _join([target, other], read_history(at_current_ids(list(events)), {}))


def merge(
    local: Mapping[str, Annotation],
    local_events: Iterable[Event],
    other: Mapping[str, Annotation],
    other_events: Iterable[Event],
    base: Mapping[str, Annotation] | None = None,
) -> MergeResult:
    """Merge `other` into `local`; the report lists what changes in `local`. With `base`, the annotations both
    started from (a paper it lacks started with none), the merge is three-way."""
    local_events, other_events = list(local_events), list(other_events)
    united: dict[str, Event] = {}
    for event in [*local_events, *other_events]:
        united.setdefault(_event_key(event), event)
    # Oldest first; events of the same instant keep their order (this side's first): undo relies on it.
    events = tuple(sorted(united.values(), key=lambda e: instant(e.time)))
    renames = renamed_ids(events)
    originals = local
    local, other = _follow(local, renames), _follow(other, renames)
    based = None if base is None else _follow(base, renames)
    times_local, times_other = field_times(local_events, renames), field_times(other_events, renames)
    replaced = replaced_notes(events, renames)
    tag_changes = tag_times(events, renames)
    merged: dict[str, Annotation] = {}
    changes = [Change(new, "id", old, new) for old, new in renames.items() if old in originals and new not in originals]
    conflicts: list[str] = []
    for paper in sorted(set(local) | set(other)):
        mine, theirs = local.get(paper), other.get(paper)
        if mine is None:
            merged[paper] = theirs
            changes.append(Change(paper, "paper", None, theirs))
            continue
        if theirs is None:
            merged[paper] = mine
            continue
        start = None if based is None else based.get(paper) or Annotation(paper)
        result, conflict = merge_annotation(
            mine, theirs, times_local, times_other, replaced.get(paper, {}), tag_changes.get(paper, {}), start
        )
        merged[paper] = result
        if conflict:
            conflicts.append(paper)
        for name in (*MERGED_FIELDS, "note"):
            if getattr(mine, name) != getattr(result, name):
                changes.append(
                    Change(paper, name, getattr(mine, name), getattr(result, name), conflict and name == "note")
                )
    report = MergeReport(tuple(changes), tuple(conflicts), len(events) - len({_event_key(e) for e in local_events}))
    return MergeResult(merged, events, report)
