"""The annotation store: stars, statuses, tags and notes of papers, saved on every change.

This is the API the CLI and the TUI use. How each change reaches the disk safely (file lock, atomic
writes, retries, damaged files, backups) is `database.DatabaseFile`'s job; `Store` turns calls into
validated changes with log entries, reads annotations back, undoes, and re-attaches moved papers.
How undo and taking back a merge work is told in `undo`; which record a paper of the list is read and
changed under (its own, or the one another readlist re-attached its annotations to) in `listing`; the paper
files opened with the database, and what they make of missing papers, in `lists`.
"""

from __future__ import annotations

import os
import stat
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from itertools import filterfalse
from pathlib import Path
from typing import Any

from ..papers.formats import _no_collection
from ..papers.paper import Paper, PaperList
from ..resolve.records import Resolution
from .annotation import STATUSES, Annotation, Event, key_kept, renewed_key
from .changes import Change, action_for, clean_changes, diff, iso, plan_undo, refuse_long
from .database import DatabaseFile
from .listing import Listing
from .lists import KnownList, Progress, changed, held_by_others, key_for, newest, opened, progress, read_lists
from .note_edits import compact
from .reconcile import Missing, held_elsewhere, logged_as_move, moving, papers_file, reconcile_change
from .resolutions import Forgotten, read_found, read_resolutions
from .undo import newest_merge_backup, undo_change, undone

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
        self._file = DatabaseFile(self.path, self._now, self._lock)
        self._listing = Listing(self._file.records)  # the annotations as the list given to `reconcile` shows them
        self.notices: list[str] = self._file.notices  # one line each: damaged file moved aside, unreadable file
        self._resolutions: tuple[int, dict[str, Resolution]] | None = None  # read at this revision of the records
        self._lists: tuple[int, dict[str, KnownList]] | None = None  # read at this revision of the lists
        self._opened: dict[str, dict] = {}  # the list opened, to remember with the first change (no file yet)

    @property
    def file_path(self) -> Path:
        """The database file itself: the file a symbolic link given as its path points to."""
        return self._file.path

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
            return self._listing.get(paper_id)

    def get_many(self, papers: Iterable[Paper]) -> list[Annotation]:
        """Each paper's annotation, in order: `get` of every paper of a list at once, the lock taken once."""
        with self._lock, _no_collection():  # 100,000 annotations that live on: no collector pass over them
            return self._listing.get_many([paper.id for paper in papers])

    def all(self) -> dict[str, Annotation]:
        """Every annotation by paper id (a record followed from a paper of the list under that paper's id).
        Built once per change (search asks on every keystroke)."""
        with self._lock:
            return self._listing.all()

    def worded(self) -> dict[str, Annotation]:
        """The annotations holding words a search reads (a note, tags, a title of the user's own), by paper id, as
        `all` gives them; the others, marks alone, only `is:` reads."""
        with self._lock:
            return self._listing.worded()

    def shown_as(self) -> dict[str, str]:
        """Records shown under another id: record id -> the paper of the list given to `reconcile` whose
        annotations it holds (see `listing`)."""
        with self._lock:
            return self._listing.shown_as()

    def counts(self, paper_ids: Container[str]) -> tuple[int, int, int]:
        """(read, reading, starred) over the annotations of these papers, read straight from the documents;
        counted once per change (the header asks after every search result too)."""
        with self._lock:
            return self._listing.counts(paper_ids)

    def events(self, limit: int | None = None) -> list[Event]:
        """The change log, newest first."""
        with self._lock:
            return [Event.from_doc(doc) for doc in self._file.records.event_docs(limit)]

    def tag_counts(self) -> dict[str, int]:
        with self._lock:
            counts = Counter(tag for doc in self._file.records.docs().values() for tag in doc.get("tags", ()))
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold())))

    def orphans(self) -> list[Annotation]:
        """Annotations (with something set) of papers not in the list last given to `reconcile`, nor in another
        known list whose file still exists (see `lists`)."""
        with self._lock:
            return self._listing.orphans()

    def resolutions(self) -> dict[str, Resolution]:
        """What `readlist resolve` found (or did not), by paper id; read again only after a change to them (not to
        annotations: the terminal UI asks on every paper shown, and 10,000 take 0.4 s to read)."""
        with self._lock:
            records = self._file.records
            if self._resolutions is None or self._resolutions[0] != records.resolved_revision:
                self._resolutions = (records.resolved_revision, read_resolutions(records.resolution_docs()))
            return self._resolutions[1]

    def found(self) -> dict[str, Resolution | Forgotten]:
        """The resolutions and the notes of lookups forgotten, by paper id: what merging weighs."""
        with self._lock:
            return read_found(self._file.records.resolution_docs())

    def lists(self) -> dict[str, KnownList]:
        """The paper files opened with this database, by path; read again only after a change to them."""
        with self._lock:
            records = self._file.records
            if self._lists is None or self._lists[0] != records.lists_revision:
                self._lists = (records.lists_revision, read_lists(records.list_docs().values()))
            return self._lists[1]

    def last_list(self) -> KnownList | None:
        """The list opened last, whether its file exists or not."""
        return newest(self.lists())

    def progress(self) -> list[tuple[KnownList, Progress]]:
        """Each known list with its figures, the one opened last first."""
        with self._lock:
            docs = self._file.records.docs()
            known = sorted(self.lists().values(), key=lambda k: k.last_opened, reverse=True)
            return [(each, progress(each, docs)) for each in known]

    def forget_list(self, path: str) -> bool:
        """Drop a list from the library (its papers' annotations stay: missing, unless another list holds them).
        False when no list is known by this path."""

        def build():
            known = path in self._file.records.list_docs()
            return known, (Change(lists={path: None}) if known else None)

        return self._file.commit(build)

    # ----- changing annotations ---------------------------------------------------------------------

    def _changes_for(self, items: Iterable[tuple[Paper, dict[str, Any]]]) -> Change | None:
        now, group = iso(self._now()), uuid.uuid4().hex[:12]
        change = Change()
        for paper, wanted in items:
            current = self.get(paper.id)
            before, after = diff(current, wanted, now)
            if not after:
                continue
            fields = {**after, "updated": now}
            record = self._listing.record_of(paper.id)
            text = getattr(paper, "text", "")
            key = renewed_key(replace(current, **after), text) if text and record == paper.id else None
            if key is not None:  # a followed record has its own
                fields |= key
            change.sets[record] = fields
            change.events.append(
                compact({"time": now, "paper": record, "action": action_for(after), "before": before, "after": after})
                | {"group": group}
            )
        if not change.sets:
            return None
        change.lists, self._opened = self._opened, {}  # the list opened before the database was made
        return change

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
        return self._update_many_from(papers, lambda current: wanted)

    def _update_many_from(self, papers: Sequence[Paper], wanted: Callable[[Annotation], dict[str, Any]]) -> int:
        """Change many papers, each with values computed from its current annotation, as one undoable step."""
        unique = list({paper.id: paper for paper in papers}.values())

        def build():
            change = self._changes_for((paper, wanted(self.get(paper.id))) for paper in unique)
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
            record = self._listing.record_of(paper.id)

            def history() -> list[Event]:
                return [Event.from_doc(doc) for doc in reversed(self._file.records.event_docs())]

            moved, cleared, joined, conflict = moving(source, target, record, history)
            change = self._changes_for([(paper, moved), (Missing(old_id), cleared)])
            return None, logged_as_move(change, record, target, joined)

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
        return self._update_from(paper, _tags_changed(added, removed))

    def change_tags_many(self, papers: Sequence[Paper], added: Iterable[str], removed: Iterable[str] = ()) -> int:
        """Add and remove tags of many papers, each keeping its other tags, as one undoable step; returns how many
        papers changed."""
        return self._update_many_from(papers, _tags_changed(added, removed))

    def keep_resolutions(self, resolutions: Iterable[Resolution]) -> None:
        """Save what resolving found for these papers (each replacing the paper's earlier one), in one write.
        Not logged: undo leaves it (`forget_resolution` drops one)."""
        docs = {resolution.paper_id: resolution.to_dict() for resolution in resolutions}
        if docs:
            self._file.commit(lambda: (None, Change(resolutions=docs)))

    def forget_resolution(self, paper_id: str) -> Resolution | None:
        """Drop what resolving found for the paper, so its fields are the file's again; the dropped one, or None.
        A note of when takes its place, so that a merge with a copy still holding it does not bring it back."""

        def build():
            dropped = self.resolutions().get(paper_id)
            doc = self._file.records.resolution_docs().get(paper_id)
            if doc is None or isinstance(self.found().get(paper_id), Forgotten):
                return dropped, None
            # one that does not read back goes too
            return dropped, Change(resolutions={paper_id: Forgotten(paper_id, iso(self._now())).to_dict()})

        return self._file.commit(build)

    def undo(
        self, papers: Container[str] | None = None, name_of: Callable[[str], str | None] | None = None
    ) -> str | None:
        """Revert the newest change group in the file not undone yet (of the papers in `papers`, the ids of
        the list shown, when given); a one-line description naming the paper by `name_of(id)` (the title
        shown, asked once the change is undone), or None."""

        kept_notes: list[str] = []  # papers whose note before the change is no longer known

        def build():
            ours = None if papers is None else self._listing.ours(papers)  # a followed record's change is ours
            plan = plan_undo(self._file.records.undoable_event_docs(), ours)
            if plan is None:
                return None, None
            change, kept = undo_change(plan, self.get, self._now())
            kept_notes[:] = kept
            return plan, change

        def name(record: str) -> str:
            # Named now, by the title it shows after the undo: an undone title is not the paper's name.
            pid = self.shown_as().get(record, record)
            return (name_of(pid) if name_of else None) or self.get(pid).label()

        plan = self._file.commit(build)
        return None if plan is None else undone(plan, name, kept_notes)

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
            floor_time = self._file.records.floor_time()
        return newest_merge_backup(self._file.path, floor_time)

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
        resolutions: Iterable[Resolution | Forgotten] | None = None,
        lists: Iterable[KnownList] | None = None,
    ) -> None:
        """Replace every annotation and the whole log (oldest first) at once; see `undo` for what undo then does.
        Also what resolving found, when `resolutions` are given, and the lists known, when `lists` are (else those
        held are kept).

        `reason` names the backup taken first (`NAME.bak-<time>-<reason>`). Nothing is undoable across it.
        Raises ValueError for invalid annotations; OSError or filelock.Timeout when nothing was written.
        """
        notes = annotations.values() if isinstance(annotations, Mapping) else annotations
        docs = [note.to_doc() for note in notes]
        logged = [dict(event) if isinstance(event, dict) else event.to_doc() for event in events]
        found = None if resolutions is None else [resolution.to_dict() for resolution in resolutions]
        known = None if lists is None else [each.to_doc() for each in lists]
        self._file.replace(docs, logged, reason, found, known)

    def reconcile(self, papers: PaperList, quiet_repeats: bool = False) -> list[str]:
        """Re-attach annotations whose paper text changed (new id); keep the rest as orphans. Never deletes.

        With `quiet_repeats`, orphans already reported for this list (a search found nothing for them
        before) go unmentioned: a script running one command after another hears of them once."""
        by_id, here = papers.by_id, papers_file(papers)
        messages: list[str] = []

        def build():
            key, elsewhere = self._remember(papers, here)
            held = held_elsewhere(self._file.records.reattach_docs(), here)
            followed = self._listing.followed()
            change, said = reconcile_change(
                self._listing.records(), papers, self._now(), quiet_repeats, held, followed, elsewhere
            )
            messages.extend(said)
            if key is not None:
                listed = self._list_opened(papers, key)
                if listed is not None:
                    change = change or Change()
                    change.lists[key] = listed
            return None, change

        with self._lock:
            key, elsewhere = self._remember(papers, here)
            needed = self._needs_reconcile(by_id, elsewhere)
            listed = None if key is None else self._list_opened(papers, key)
        if needed or (listed is not None and self._may_write()):
            self._file.commit(build)
        elif listed is not None and not self._file.path.exists():  # reading papers never makes a database: the
            self._opened = {key: listed}  # list is remembered with the first change
        return messages

    def _may_write(self) -> bool:
        """Whether the database may be written only to remember a list: it exists, is not left alone, and is not
        made read-only (a mode honoured as every write does, even where root could write)."""
        try:
            mode = self._file.path.stat().st_mode
        except OSError:
            return False
        return not self.blocked and bool(mode & stat.S_IWUSR) and os.access(self._file.path, os.W_OK)

    def _needs_reconcile(self, by_id: dict[str, Paper], elsewhere: frozenset[str]) -> bool:
        """Whether a record is lost (in no list whose file exists) or its paper's snippet is to be renewed. Records
        whose key is kept whatever the text (most of them) are passed over at C speed: 100,000 in about 40 ms."""
        records = self._file.records
        if not (records.paper_ids() - by_id.keys()).issubset(elsewhere):
            return True
        docs = records.doc_values()  # not `docs()`: a mapping of 100,000 made for nothing
        for doc in filterfalse(key_kept, docs):
            paper = by_id.get(doc["id"])
            if paper is not None and renewed_key(doc, paper.text) is not None:
                return True
        return False

    def _remember(self, papers: PaperList, here: str | None) -> tuple[str | None, frozenset[str]]:
        """Hold the list as the one shown; its key in the library (None: not read from a file) and the ids other
        lists whose files exist hold (never missing here). Call holding the lock."""
        lists = self.lists()
        key = None if here is None else key_for(here, lists)
        elsewhere = held_by_others(lists, key)
        self._listing.paper_ids = frozenset(papers.by_id)
        self._listing.elsewhere = elsewhere
        return key, elsewhere

    def _list_opened(self, papers: PaperList, key: str) -> dict | None:
        """The list's document, opened now; None when remembering it again is not worth a write (see `changed`)."""
        lists = self.lists()
        known = lists.get(key)
        fresh = opened(known, key, papers.name, papers.format, papers.by_id, iso(self._now()))
        last = newest(lists)
        return fresh.to_doc() if changed(known, fresh, last.path if last else None) else None


def _tags_changed(added: Iterable[str], removed: Iterable[str]) -> Callable[[Annotation], dict[str, Any]]:
    """A paper's tags with `removed` taken off (case-insensitively) and `added` put on, from its current ones."""
    added, gone = list(added), {tag.casefold() for tag in removed}

    def wanted(current: Annotation) -> dict[str, Any]:
        kept = [tag for tag in current.tags if tag.casefold() not in gone]
        return clean_changes({"tags": [*kept, *added]})

    return wanted
