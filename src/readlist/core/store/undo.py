"""Undo on the file's log, and taking a merge back: the change that reverts a change group, what to say about it,
and the backup that takes a merge back.

Undo works on the file's log, not on this process's history: `Store.undo` reverts the newest change group in
the file that has not been undone yet, whichever process (CLI or TUI) made it (`changes.plan_undo` finds it). An
undo is itself logged (action "undo") and is not undone by the next undo, which goes one step further back;
re-attachments of moved papers are logged but not undoable. A note's change is logged as what changed
(`note_edits`), undone from the note as it is now.

`Store.replace_all` (what a merge uses) swaps every annotation and the whole log in one atomic write, after a
backup `NAME.bak-<time>-merge`. Undo does not reach across it: right after a merge `Store.undo` returns None
("nothing to undo"), because putting back the `before` values of changes logged earlier would overwrite what the
merge settled; changes made after the merge undo as usual. The merge itself is taken back by restoring that
backup: `Store.undo_merge` does it once nothing logged since the merge is left to undo (and the log was not
compacted since). Undo also stops below the entries dropped when the log is compacted (`compaction`, once it
holds over 10,000 entries).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from ..text.normalize import quoted, strip_control
from . import backups
from .annotation import Annotation, cut_label
from .changes import UNDO, Change, UndoPlan, iso, parse_iso
from .note_edits import compact, note_before


def undo_change(plan: UndoPlan, annotation_of: Callable[[str], Annotation], now: datetime) -> tuple[Change, list[str]]:
    """The change putting back the values the plan restores (`annotation_of(id)`: a record's annotation now),
    logged as an undo of the plan's group; and the papers whose note it leaves as it is, their note's text
    before the change being no longer in the log."""
    when, group = iso(now), uuid.uuid4().hex[:12]
    change = Change()
    kept_notes: list[str] = []
    for pid, fields in plan.restore.items():
        current = annotation_of(pid)
        if pid in plan.notes:
            note = note_before(current.note, plan.notes[pid])
            fields = fields if note is None else {**fields, "note": note}
            if note is None:
                kept_notes.append(pid)
        before = {key: list(current.tags) if key == "tags" else getattr(current, key) for key in fields}
        change.sets[pid] = {**fields, "updated": when}
        change.events.append(
            compact({"time": when, "paper": pid, "action": UNDO, "before": before, "after": dict(fields)})
            | {"group": group, "undoes": plan.group}
        )
    return change, kept_notes


def undone(plan: UndoPlan, name: Callable[[str], str], kept_notes: Sequence[str] = ()) -> str:
    """What was undone, in one line; a paper is named by `name(record id)`. `kept_notes`: the papers whose note
    the undo left as it is (see `undo_change`)."""
    first = plan.undone[0] if plan.undone else None
    if first is None:
        return "undid an empty change"
    if len(plan.restore) == 1:
        shown = cut_label(strip_control(name(next(iter(plan.restore)))))
        what = f"{first.describe()} on {quoted(shown)}"
    else:
        what = f"{first.describe()} on {len(plan.restore)} papers"
    if not kept_notes:
        return f"undid {what}"
    if all(event.changed == ["note"] for event in plan.undone):
        return f"cannot undo {what}: the note's text before it is no longer in the log, so the note stays as it is"
    return f"undid {what}, but not the note: its text before is no longer in the log"


def newest_merge_backup(path: Path, floor_time: str | None) -> Path | None:
    """The backup the newest merge made (`NAME.bak-<time>-merge`) when that merge is where undo stops (the undo
    floor, `floor_time`, is not newer): restoring the backup is how the merge is taken back."""
    floor = parse_iso(floor_time)
    merges = [backup for backup in backups.backups(path) if backup.name.endswith("-merge")]
    made = backups.time_of(merges[0], path) if merges else None
    if made is None or (floor is not None and floor > made):  # the floor is newer: a compaction's, a repair's
        return None
    return merges[0]
