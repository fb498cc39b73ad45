"""The annotation store: stars, statuses, tags and notes of papers, saved on every change.

This is the API the CLI and the TUI use. How each change reaches the disk safely (file lock, atomic
writes, retries, damaged files, backups) is `database.DatabaseFile`'s job; `Store` turns calls into
validated changes with log entries, reads annotations back, undoes, and re-attaches moved papers.

Undo works on the file's log, not on this process's history: `undo()` reverts the newest change
group in the file that has not been undone yet, whichever process (CLI or TUI) made it. An undo is
itself logged (action "undo") and is not undone by the next `undo()`, which goes one step further back;
re-attachments of moved papers are logged but not undoable. A note's change is logged as what changed
(`note_edits`), undone from the note as it is now.

`replace_all` (what a merge uses) swaps every annotation and the whole log in one atomic write,
after a backup `NAME.bak-<time>-merge`. Undo does not reach across it: right after a merge
`undo()` returns None ("nothing to undo"), because putting back the `before` values of changes
logged earlier would overwrite what the merge settled; changes made after the merge undo as
usual. The merge itself is taken back by restoring that backup: `undo_merge()` does it once
nothing logged since the merge is left to undo (and the log was not compacted since). Undo also
stops below the entries dropped when the log is compacted (`log_compaction`, once it holds over
10,000 entries).

A paper of the list given to `reconcile` whose record another readlist re-attached to an id this list does
not hold (the paper file edited while this list was open, or another paper file holding the paper's next
version; see `reconcile.followed_records`) is read and changed there: `get`, `all` and every change reach
the record under its new id, shown under the paper's id here, so nothing is split between the two ids.
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..papers.paper import Paper, PaperList
from ..text.normalize import quoted, strip_control
from . import backups
from .annotation import EDITABLE, STATUSES, Annotation, Event, cut_label, snippet_of
from .changes import MOVE, UNDO, Change, action_for, clean_changes, diff, iso, parse_iso, plan_undo, refuse_long
from .database import DatabaseFile
from .merge import join_records
from .note_edits import NOTE_EDIT, compact, note_before
from .reconcile import carried, followed_records, held_elsewhere, papers_file, reconcile_change

NOTE_JOIN = "\n\n--- changed elsewhere while this note was being edited: ---\n"

__all__ = ["STATUSES", "Annotation", "Event", "Store"]


def _utcnow() -> datetime:
    return datetime.now(UTC)


class Store:
    """Annotations of papers, persisted on every change. Safe to call from several threads."""

    def __init__(self, path: Path | str, *, now: Callable[[], datetime] | None = None):
        self.path = Path(path).expanduser()
        self._now = now or _utcnow
        self._lock = threading.RLock()
        self._paper_ids: frozenset[str] | None = None
        self._file = DatabaseFile(self.path, self._now, self._lock)
        self._all: tuple[int, dict[str, Annotation]] | None = None  # (revision, every annotation)
        self._moved: tuple[int, frozenset[str] | None, dict[str, str]] | None = None  # (revision, list, followed)
        self._counts: tuple[int, Container[str], tuple[int, int, int]] | None = None  # (revision, papers, counts)
        self.notices: list[str] = self._file.notices  # one line each: damaged file moved aside, unreadable file

    def tell_when_waiting(self, callback: Callable[[str], None]) -> None:
        """`callback(message)` when a change waits more than a moment for another readlist's write."""
        self._file.on_wait = callback

    @property
    def blocked(self) -> str | None:
        """Why the database file cannot be used (unreadable, not a readlist database, from a newer readlist)."""
        return self._file.blocked

    @property
    def pending_error(self) -> str | None:
        """Why the last write failed, while changes wait in memory; None when everything is on disk."""
        return self._file.pending_error

    def flush(self) -> bool:
        """Retry writing changes that failed to save. True when everything is on disk."""
        return self._file.flush()

    def reload_if_changed(self) -> bool:
        """True when another process changed the file since we last read it (and we now show its data)."""
        return self._file.reload_if_changed()

    # ----- reading annotations ----------------------------------------------------------------------

    def get(self, paper_id: str) -> Annotation:
        with self._lock:
            record = self._followed().get(paper_id, paper_id)
            doc = self._file.records.doc(record)
            if doc is None:
                return Annotation(paper_id)
            note = Annotation.from_doc(doc)
            return note if record == paper_id else replace(note, id=paper_id)

    def all(self) -> dict[str, Annotation]:
        """Every annotation by paper id (a record followed from a paper of the list under that paper's id).
        Built once per change (search asks on every keystroke)."""
        with self._lock:
            records = self._records()
            for pid, record in self._followed().items():
                records[pid] = replace(records.pop(record), id=pid)
            return records

    def _records(self) -> dict[str, Annotation]:
        """Every record by its own id."""
        with self._lock:
            revision = self._file.records.revision
            if self._all is None or self._all[0] != revision:
                self._all = (
                    revision,
                    {pid: Annotation.from_doc(doc) for pid, doc in self._file.records.docs().items()},
                )
            return dict(self._all[1])

    def shown_as(self) -> dict[str, str]:
        """Records shown under another id: record id -> the paper of the list given to `reconcile` whose
        annotations it holds (see the module docstring)."""
        with self._lock:
            return {record: pid for pid, record in self._followed().items()}

    def _followed(self) -> dict[str, str]:
        """Papers of the list given to `reconcile` whose record another readlist re-attached to an id the list
        does not hold: paper id -> the record's id (see the module docstring). Worked out once per change."""
        with self._lock:
            revision, paper_ids = self._file.records.revision, self._paper_ids
            moved = self._moved
            if moved is None or moved[0] != revision or moved[1] is not paper_ids:
                followed = {}
                if paper_ids is not None:
                    followed = followed_records(paper_ids, self._file.records.doc, self._file.records.reattach_docs())
                moved = self._moved = (revision, paper_ids, followed)
            return moved[2]

    def counts(self, paper_ids: Container[str]) -> tuple[int, int, int]:
        """(read, reading, starred) over the annotations of these papers, read straight from the documents;
        counted once per change (the header asks after every search result too)."""
        with self._lock:
            revision = self._file.records.revision
            cached = self._counts
            if cached is not None and cached[0] == revision and cached[1] is paper_ids:
                return cached[2]
            read = reading = starred = 0
            shown = self.shown_as()  # a followed record counts as its paper
            for doc in self._file.records.doc_values():
                pid = doc.get("id")
                if pid in paper_ids or (pid in shown and shown[pid] in paper_ids):
                    status = doc.get("status")
                    read += status == "read"
                    reading += status == "reading"
                    starred += bool(doc.get("starred"))
            self._counts = (revision, paper_ids, (read, reading, starred))
        return read, reading, starred

    def events(self, limit: int | None = None) -> list[Event]:
        """The change log, newest first."""
        with self._lock:
            return [Event.from_doc(doc) for doc in self._file.records.event_docs(limit)]

    def tag_counts(self) -> dict[str, int]:
        with self._lock:
            counts = Counter(tag for doc in self._file.records.docs().values() for tag in doc.get("tags", ()))
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold())))

    def orphans(self) -> list[Annotation]:
        """Annotations (with something set) of papers not in the list last given to `reconcile`."""
        with self._lock:
            if self._paper_ids is None:
                return []
            return [ann for pid, ann in self.all().items() if pid not in self._paper_ids and not ann.is_default]

    # ----- changing annotations ---------------------------------------------------------------------

    def _changes_for(self, items: Iterable[tuple[Paper, dict[str, Any]]]) -> Change | None:
        now, group = iso(self._now()), uuid.uuid4().hex[:12]
        change = Change()
        followed = self._followed()
        for paper, wanted in items:
            current = self.get(paper.id)
            before, after = diff(current, wanted, now)
            if not after:
                continue
            fields = {**after, "updated": now}
            record = followed.get(paper.id, paper.id)
            text = getattr(paper, "text", "")
            if text and record == paper.id and snippet_of(text) != current.snippet:  # a followed record has its own
                fields["snippet"] = snippet_of(text)
            change.sets[record] = fields
            change.events.append(
                compact({"time": now, "paper": record, "action": action_for(after), "before": before, "after": after})
                | {"group": group}
            )
        return change if change.sets else None

    def update(self, paper: Paper, **changes: Any) -> Annotation:
        """Set any of `starred`, `status`, `tags`, `note`, `title`; logs the change and saves it."""
        wanted = clean_changes(changes)
        return self._update_from(paper, lambda current: wanted)

    def _update_from(self, paper: Paper, wanted: Callable[[Annotation], dict[str, Any]]) -> Annotation:
        """Change one paper with values computed from its current annotation, read after catching up."""
        self._file.commit(lambda: (None, self._changes_for([(paper, wanted(self.get(paper.id)))])))
        return self.get(paper.id)

    def update_many(self, papers: Sequence[Paper], **changes: Any) -> int:
        """The same change to many papers as one undoable step; returns how many papers changed."""
        wanted = clean_changes(changes)
        unique = list({paper.id: paper for paper in papers}.values())

        def build():
            change = self._changes_for((paper, wanted) for paper in unique)
            return (len(change.sets) if change else 0), change

        return self._file.commit(build)

    def move_annotations(self, old_id: str, paper: Paper) -> tuple[Annotation, bool]:
        """Move everything the user set on a missing paper (`old_id`, not in the list) to `paper`: by hand, what
        `reconcile` does when it recognises a paper. When `paper` has annotations of its own, the two are joined
        by the merge's rules (the newer change of each field wins, both notes are kept, tags united). One
        undoable step; the read date goes along. Returns the paper's annotation and whether both notes were
        kept (it is then tagged `conflict`). Raises ValueError when there is nothing to move."""
        conflict = False

        def build():
            nonlocal conflict
            source, target = self.get(old_id), self.get(paper.id)
            if source.is_default:
                raise ValueError(f"{old_id}: no annotations to move")
            record = self._followed().get(paper.id, paper.id)
            joined = source
            if not target.is_default:
                history = [Event.from_doc(doc) for doc in reversed(self._file.records.event_docs())]
                joined, conflict = join_records(replace(target, id=record), source, history)
            moved = {key: value for key, value in carried(joined).items() if key in EDITABLE}
            cleared = {key: value for key, value in carried(Annotation(old_id)).items() if key in EDITABLE}
            change = self._changes_for([(paper, moved), (_Missing(old_id), cleared)])
            if change is not None and joined.status == "read" and joined.read_at not in (None, target.read_at):
                _read_then(change, record, target.read_at, joined.read_at)
            for event in change.events if change is not None else ():  # logged as a move, on both papers
                event["action"] = MOVE
            return None, change

        self._file.commit(build)
        return self.get(paper.id), conflict

    def toggle_star(self, paper: Paper) -> Annotation:
        return self._update_from(paper, lambda current: {"starred": not current.starred})

    def set_status(self, paper: Paper, status: str) -> Annotation:
        return self.update(paper, status=status)

    def cycle_status(self, paper: Paper) -> Annotation:
        """unread -> reading -> read -> unread."""
        return self._update_from(
            paper, lambda current: {"status": STATUSES[(STATUSES.index(current.status) + 1) % len(STATUSES)]}
        )

    def set_note(self, paper: Paper, note: str) -> Annotation:
        return self.update(paper, note=note)

    def edit_note(self, paper: Paper, base: str, text: str) -> tuple[Annotation, bool]:
        """Store `text`, a note the user edited starting from `base`. When the stored note changed meanwhile
        (in another window or process), neither version is lost: the edit comes first, then the other
        version under a marker line. Returns the annotation and whether the two versions were joined."""
        joined = False

        def wanted(current: Annotation) -> dict[str, Any]:
            nonlocal joined
            mine = clean_changes({"note": text})["note"]
            joined = current.note not in (base.rstrip(), mine)
            if joined and current.note:
                mine = refuse_long(f"{mine}{NOTE_JOIN}{current.note}" if mine else current.note)
            return {"note": mine}

        return self._update_from(paper, wanted), joined

    def append_note(self, paper: Paper, text: str) -> Annotation:
        """Add a paragraph to the end of a paper's note, as one step with reading it (no change in between is lost)."""
        extra = clean_changes({"note": text})["note"]
        return self._update_from(
            paper, lambda current: {"note": refuse_long(f"{current.note}\n{extra}") if current.note else extra}
        )

    def change_tags(self, paper: Paper, added: Iterable[str], removed: Iterable[str] = ()) -> Annotation:
        """Add and remove tags (case-insensitively), as one step with reading the current ones."""
        gone = {tag.casefold() for tag in removed}

        def wanted(current: Annotation) -> dict[str, Any]:
            kept = [tag for tag in current.tags if tag.casefold() not in gone]
            return clean_changes({"tags": [*kept, *added]})

        return self._update_from(paper, wanted)

    def undo(
        self, papers: Container[str] | None = None, name_of: Callable[[str], str | None] | None = None
    ) -> str | None:
        """Revert the newest change group in the file not undone yet (of the papers in `papers`, the ids of
        the list shown, when given); a one-line description naming the paper by `name_of(id)` (the title
        shown, asked once the change is undone), or None."""

        def build():
            kept_notes.clear()
            shown = self.shown_as()
            ours = papers
            if papers is not None and shown:  # a change to a followed record is this list's too
                ours = _Either(papers, {record for record, pid in shown.items() if pid in papers})
            plan = plan_undo(self._file.records.undoable_event_docs(), ours)
            if plan is None:
                return None, None
            now, group = iso(self._now()), uuid.uuid4().hex[:12]
            change = Change()
            for pid, fields in plan.restore.items():
                current = self.get(pid)
                if pid in plan.notes:
                    note = note_before(current.note, plan.notes[pid])
                    fields = fields if note is None else {**fields, "note": note}
                    if note is None:
                        kept_notes.append(pid)
                before = {key: list(current.tags) if key == "tags" else getattr(current, key) for key in fields}
                change.sets[pid] = {**fields, "updated": now}
                change.events.append(
                    compact({"time": now, "paper": pid, "action": UNDO, "before": before, "after": dict(fields)})
                    | {"group": group, "undoes": plan.group}
                )
            return plan, change

        kept_notes: list[str] = []  # papers whose note before the change is no longer known
        plan = self._file.commit(build)
        if plan is None:
            return None
        first = plan.undone[0] if plan.undone else None
        if first is None:
            return "undid an empty change"
        if len(plan.restore) == 1:
            # Named now, by the title it shows after the undo: an undone title is not the paper's name.
            pid = next(iter(plan.restore))
            pid = self.shown_as().get(pid, pid)
            name = (name_of(pid) if name_of else None) or self.get(pid).label()
            what = f"{first.describe()} on {quoted(cut_label(strip_control(name)))}"
        else:
            what = f"{first.describe()} on {len(plan.restore)} papers"
        if not kept_notes:
            return f"undid {what}"
        if all(event.changed == ["note"] for event in plan.undone):
            return f"cannot undo {what}: the note's text before it is no longer in the log, so the note stays as it is"
        return f"undid {what}, but not the note: its text before is no longer in the log"

    def undo_merge(self) -> Path | None:
        """Take back the newest merge when it is the newest change left: nothing logged since it is left to
        undo, by any list. The database goes back to the backup the merge made (restored under the lock, in one
        atomic write); the merged one is kept as `NAME.bak-<time>-merge-undone`, returned. None when the merge
        cannot be taken back so (then `merge_backup` may name the backup to copy by hand).
        Raises filelock.Timeout or OSError when nothing was restored."""
        return self._file.restore_replaced(lambda docs: plan_undo(docs) is None)

    def merge_backup(self) -> Path | None:
        """The backup the newest merge made (`NAME.bak-<time>-merge`) when that merge is where undo stops,
        nothing logged before it being undoable: restoring the backup is how the merge is taken back."""
        with self._lock:
            path, floor = self._file.path, parse_iso(self._file.records.floor_time())
        merges = [backup for backup in backups.backups(path) if backup.name.endswith("-merge")]
        made = backups.time_of(merges[0], path) if merges else None
        if made is None or (floor is not None and floor > made):  # the floor is newer: a compaction's, a repair's
            return None
        return merges[0]

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the database lock, caught up with the file, so that what is read inside (`all`, `events`)
        is what a `replace_all` inside replaces. Raises filelock.Timeout or OSError."""
        with self._file.locked():
            yield

    def replace_all(
        self,
        annotations: Mapping[str, Annotation] | Iterable[Annotation],
        events: Iterable[Event | dict],
        *,
        reason: str = "replace",
    ) -> None:
        """Replace every annotation and the whole log (oldest first) at once; see the module docstring.

        `reason` names the backup taken first (`NAME.bak-<time>-<reason>`). Nothing is undoable across it.
        Raises ValueError for invalid annotations; OSError or filelock.Timeout when nothing was written.
        """
        notes = annotations.values() if isinstance(annotations, Mapping) else annotations
        docs = [note.to_doc() for note in notes]
        self._file.replace(docs, [_event_doc(event) for event in events], reason)

    def reconcile(self, papers: PaperList, quiet_repeats: bool = False) -> list[str]:
        """Re-attach annotations whose paper text changed (new id); keep the rest as orphans. Never deletes.

        With `quiet_repeats`, orphans already reported for this list (a search found nothing for them
        before) go unmentioned: a script running one command after another hears of them once."""
        by_id, here = papers.by_id, papers_file(papers)
        messages: list[str] = []

        def build():
            self._paper_ids = frozenset(by_id)
            held = held_elsewhere(self._file.records.reattach_docs(), here)
            change, said = reconcile_change(self._records(), papers, self._now(), quiet_repeats, held, self._followed())
            messages.extend(said)
            return None, change

        self._file.commit(build) if self._needs_reconcile(by_id) else self._remember(by_id)
        return messages

    def _needs_reconcile(self, by_id: dict[str, Paper]) -> bool:
        with self._lock:
            return any(
                pid not in by_id or doc.get("snippet") != snippet_of(by_id[pid].text)
                for pid, doc in self._file.records.docs().items()
            )

    def _remember(self, by_id: dict[str, Paper]) -> None:
        with self._lock:
            self._paper_ids = frozenset(by_id)


def _read_then(change: Change, record: str, before: str | None, read_at: str) -> None:
    """Annotations moved onto `record` were read at `read_at`, not now: so its record and log say (undo puts
    `before` back)."""
    if record not in change.sets:  # nothing else changed there: it keeps its own date
        return
    change.sets[record]["read_at"] = read_at
    for event in change.events:
        if event["paper"] == record:
            event["before"].setdefault("read_at", before)
            event["after"]["read_at"] = read_at


def _event_doc(event: Event | dict) -> dict:
    if isinstance(event, dict):
        return dict(event)
    doc = {"time": event.time, "paper": event.paper, "action": event.action}
    doc |= {"before": dict(event.before), "after": dict(event.after), "group": event.group}
    if event.undoes is not None:
        doc["undoes"] = event.undoes
    if event.papers_file is not None:
        doc["papers_file"] = event.papers_file
    if event.note_edit:
        doc[NOTE_EDIT] = dict(event.note_edit)
    return doc


class _Either:
    """The ids in either of two collections."""

    def __init__(self, first: Container[str], second: Container[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, item: object) -> bool:
        return item in self.first or item in self.second


class _Missing:
    """A paper known only by its id: one no longer in the list."""

    text = ""

    def __init__(self, paper_id: str) -> None:
        self.id = paper_id
