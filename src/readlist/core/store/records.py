"""The database's data in memory: annotation documents by paper id, the change log, and the changes applied to
them that are not on disk yet.

`DatabaseFile` holds one `Records` and keeps it in step with the disk; nothing here takes a lock or reads the
file (`persist` writes it when told to).
The `meta` document holds the undo floor: log entries with ids up to it are not undone (older than
a replacement or a compaction), how many entries the last compaction of the log left, and which
backup the last replacement made (with its digest and the floor it set).
"""

from __future__ import annotations

from collections.abc import Iterable, KeysView
from datetime import datetime
from operator import itemgetter
from pathlib import Path

from ..files.atomic import Signature
from . import compaction as log_compaction
from .annotation import Annotation
from .changes import REATTACH, Change
from .format import (
    ANNOTATIONS,
    EVENTS,
    LISTS,
    META,
    RESOLUTIONS,
    SCHEMA_VERSION,
    DamagedFile,
    LazyLines,
    check_current,
    empty_data,
)
from .note_edits import changes_note, trim
from .packing import unpacked
from .storage import AtomicJSONStorage, Tables

UNDO_FLOOR = "undo_floor"  # meta: log entries with ids up to this are not undone
COMPACTED = "events_compacted"  # meta: how many log entries the last compaction left
REPLACED = "replaced"  # meta: the backup the last replacement (a merge) made, to restore when it is undone


class Records:
    """The TinyDB data of one file, held in memory with an index from paper id to document id, and the changes
    applied to it that `persist` has not written yet (applied again by `reapply` on the file's fresh data)."""

    def __init__(self, path: Path):
        self._storage = AtomicJSONStorage(path, empty_data())
        self._db = Tables(storage=lambda: self._storage)
        self._index: dict[str, str] = {}  # paper id -> document id (as the table holds it, not TinyDB's int)
        self._resolved: dict[str, str] = {}  # paper id -> document id in the resolutions table
        self._listed: dict[str, str] = {}  # a paper file's path -> document id in the lists table
        self.revision = 0  # goes up whenever the data in memory changes (what readers may cache against)
        self.resolved_revision = 0  # goes up whenever the resolutions held may have changed
        self.lists_revision = 0  # goes up whenever the lists held may have changed
        self.loaded = 0  # the revision at which all of it was last replaced (read from the file)
        self.touched: dict[str, int] = {}  # paper id -> the revision that last changed its record, since `loaded`
        self._reattached: list[str] | None = None  # ids of the log's re-attachments, oldest first (None: not found)
        self._packed_log: dict[str, list[str]] | None = None  # the log's runs, left packed as read (see `log`)
        self._pending: list[Change] = []  # applied here, not yet on disk
        self._dirty = False  # holds something else not yet on disk (a migration, a rescued copy)

    # ----- what the store reads (call while holding the lock) -----------------------------------------

    def doc(self, paper_id: str) -> dict | None:
        doc_id = self._index.get(paper_id)
        return None if doc_id is None else self._storage.data[ANNOTATIONS][doc_id]

    def docs_of(self, paper_ids: Iterable[str]) -> list[dict | None]:
        """`doc` of each paper, in order, looked up at C speed (the rows of a 100,000-paper list)."""
        return list(map(self._storage.data[ANNOTATIONS].get, map(self._index.get, paper_ids)))

    def docs(self) -> dict[str, dict]:
        """Annotation documents by paper id."""
        table = self._storage.data[ANNOTATIONS]
        return {pid: table[doc_id] for pid, doc_id in self._index.items()}

    def paper_ids(self) -> KeysView[str]:
        """The ids of the papers with a document, as a set (no set of 100,000 ids made from the documents)."""
        return self._index.keys()

    def doc_values(self) -> Iterable[dict]:
        """The annotation documents themselves (each has its paper `id`), without building a mapping."""
        return self._storage.data[ANNOTATIONS].values()

    def resolution_docs(self) -> dict[str, dict]:
        """What resolving found, by paper id (documents as written: read them with `Resolution.from_dict`)."""
        table = self._storage.data.get(RESOLUTIONS, {})
        return {pid: table[doc_id] for pid, doc_id in self._resolved.items()}

    def list_docs(self) -> dict[str, dict]:
        """The paper files opened, by path (documents as written: read them with `lists.read_lists`)."""
        table = self._storage.data.get(LISTS, {})
        return {path: table[doc_id] for path, doc_id in self._listed.items()}

    def log(self) -> dict[str, dict]:
        """The log's documents by id, its packed runs unpacked into their entries the first time it is asked for (a
        command that reads no log entry makes none: `format.decode_lines`)."""
        table = self._storage.data[EVENTS]
        if self._packed_log is not None:
            table = self._storage.data[EVENTS] = unpacked(table, self._packed_log)
            self._packed_log = None
        return table

    def event_docs(self, limit: int | None = None) -> list[dict]:
        """Log documents, newest first."""
        table = self.log()
        return [table[key] for key in sorted(table, key=int, reverse=True)[:limit]]

    def reattach_docs(self) -> list[dict]:
        """Log documents of re-attachments (a record moved to its paper's new id), oldest first; their ids found
        once after the log is read (compaction keeps them all), not in a walk through the log after every change.
        They are found in the log as read, its runs packed (a re-attachment is alone on its line: each has its own
        ids), but for a run of them (a hand-made file), unpacked first."""
        table = self._storage.data[EVENTS]
        if self._reattached is None:
            found = _reattachments(table)
            if self._packed_log is not None and not self._packed_log.keys().isdisjoint(found):
                table = self.log()
                found = _reattachments(table)
            self._reattached = found
        return [table[key] for key in self._reattached if key in table]

    def undoable_event_docs(self) -> list[dict]:
        """Log documents above the undo floor, newest first."""
        table, floor = self.log(), self.meta().get(UNDO_FLOOR, 0)
        return [table[key] for key in sorted(table, key=int, reverse=True) if int(key) > floor]

    def floor_time(self) -> str | None:
        """When the newest log entry at or below the undo floor was made; None when there is none."""
        table, floor = self.log(), self.meta().get(UNDO_FLOOR, 0)
        below = [int(key) for key in table if int(key) <= floor]
        return table[str(max(below))].get("time") if below else None

    def meta(self) -> dict:
        """The meta document (made when the file has none)."""
        meta = self._storage.data.setdefault(META, {})
        if not meta:
            meta["1"] = {"schema_version": SCHEMA_VERSION}
        return next(iter(meta.values()))

    # ----- in step with the file -------------------------------------------------------------------

    @property
    def unsaved(self) -> bool:
        """Whether something held here is not on disk yet: changes applied, a migration, a rescued copy."""
        return bool(self._pending) or self._dirty

    @property
    def data(self) -> dict:
        """Everything held, as the file holds it (table -> document id -> document), the log unpacked."""
        self.log()
        return self._storage.data

    @property
    def signature(self) -> Signature:
        """The file's signature when this data was read from it or written to it (None: not since)."""
        return self._storage.signature

    def changed_on_disk(self) -> bool:
        """Whether the file is not the one this data was read from or written to (another process replaced it)."""
        return self._storage.changed_on_disk()

    def file_gone(self) -> None:
        """The file that held this data is gone (removed, or moved aside as damaged): all of it is written back."""
        self._storage.signature = None
        self._dirty = True

    def persist(self) -> None:
        """Write everything held to the file, atomically; then nothing is unsaved. Raises OSError (nothing changed)."""
        self.log()  # the storage writes the log's entries (packing them again as they were)
        self._storage.persist()
        self._pending.clear()
        self._dirty = False

    # ----- changing the data ------------------------------------------------------------------------

    def load(self, data: dict, sig: Signature, lines: LazyLines | None = None, *, dirty: bool = False) -> None:
        """Hold `data` (as read from disk, or a replacement) instead of what was held; `dirty` when it is not
        what the file holds (migrated, or combined). The changes not yet on disk stay pending (see `reapply`)."""
        self._storage.replace_data(data, sig, lines)
        self._packed_log = lines.runs if lines is not None and lines.log_packed else None
        self._dirty = dirty
        self.revision += 1
        self.resolved_revision += 1
        self.lists_revision += 1
        self.loaded, self.touched, self._reattached = self.revision, {}, None
        self._db = Tables(storage=lambda: self._storage)  # fresh tables: no stale ids or caches
        table = data[ANNOTATIONS]  # one document per paper (`install`)
        self._index = dict(zip(map(itemgetter("id"), table.values()), table, strict=True))
        resolved = sorted(data.get(RESOLUTIONS, {}).items(), key=_doc_key)
        self._resolved = {doc["paper_id"]: doc_id for doc_id, doc in resolved if isinstance(doc.get("paper_id"), str)}
        listed = sorted(data.get(LISTS, {}).items(), key=_doc_key)
        self._listed = {doc["path"]: doc_id for doc_id, doc in listed if isinstance(doc.get("path"), str)}

    def apply(self, change: Change) -> None:
        """Apply the change to what is held; it stays pending until `persist` writes it."""
        self._apply(change)
        self._pending.append(change)

    def reapply(self) -> None:
        """Apply the changes not yet on disk again, on data just read from the file another process replaced."""
        for change in self._pending:
            self._apply(change)

    def _apply(self, change: Change) -> None:
        self.log()  # its entries numbered on from the last one's
        annotations = self._db.table(ANNOTATIONS, cache_size=0)
        self.revision += 1
        for pid in [*change.sets, *(pid for pair in change.renames for pid in pair)]:
            self.touched[pid] = self.revision
        self._storage.deferred = True
        try:
            for old, new in change.renames:
                doc_id = self._index.get(old)
                if doc_id is not None and new not in self._index:
                    self._storage.invalidate(ANNOTATIONS, doc_id)
                    annotations.update({"id": new}, doc_ids=[int(doc_id)])
                    self._index[new] = self._index.pop(old)
            known = {pid: fields for pid, fields in change.sets.items() if pid in self._index}

            def _changed(doc: dict) -> None:
                if "created" not in doc and "updated" in doc:  # read without it: it was `updated` (`packing`)
                    doc["created"] = doc["updated"]
                if "read_at" not in doc and doc.get("status") == "read":  # likewise (`packing`)
                    doc["read_at"] = doc.get("updated")
                doc.update(known[doc["id"]])

            for pid in known:
                self._storage.invalidate(ANNOTATIONS, self._index[pid])
            if known:
                annotations.update(_changed, doc_ids=[int(self._index[p]) for p in known])
            fresh = [pid for pid in change.sets if pid not in self._index]
            if fresh:
                docs = [Annotation(pid, created=change.sets[pid].get("updated")).to_doc() for pid in fresh]
                for doc in docs:
                    doc.update(change.sets[doc["id"]])
                self._index.update(zip(fresh, map(str, annotations.insert_multiple(docs)), strict=True))
            if change.resolutions:
                self.resolved_revision += 1
                self._apply_keyed(RESOLUTIONS, self._resolved, change.resolutions)
            if change.lists:
                self.lists_revision += 1
                self._apply_keyed(LISTS, self._listed, change.lists)
            if change.events:
                ids = self._db.table(EVENTS, cache_size=0).insert_multiple(change.events)
                if self._reattached is not None:
                    moved = zip(ids, change.events, strict=True)
                    self._reattached += [str(doc_id) for doc_id, e in moved if e.get("action") == REATTACH]
                noted = {event.get("paper") for event in change.events if changes_note(event)}
                if noted:
                    self._trim_note_texts(noted)
        finally:
            self._storage.deferred = False

    def _apply_keyed(self, name: str, index: dict[str, str], docs: dict[str, dict | None]) -> None:
        """Put each key's document in table `name` (`index`: key -> document id; a new document for a key
        without), or drop it (None): a paper's resolution, a paper file's list."""
        table = self._storage.data.setdefault(name, {})
        free = max(map(int, table), default=0) + 1
        for key, doc in docs.items():
            doc_id = index.get(key)
            if doc is None:
                if doc_id is not None:
                    del table[doc_id], index[key]
                    self._storage.invalidate(name, doc_id)
                continue
            if doc_id is None:
                doc_id, free = str(free), free + 1
                index[key] = doc_id
            table[doc_id] = dict(doc)
            self._storage.invalidate(name, doc_id)
        if not table:  # a file without such documents keeps the layout it had
            del self._storage.data[name]

    def _trim_note_texts(self, papers: set | None = None) -> None:
        """Keep no more note text in the log than `log_compaction` allows per paper (of these papers, when given)."""
        events = self.log()
        for doc_id in log_compaction.note_texts_to_trim(events, papers):
            trim(events[doc_id])
            self._storage.invalidate(EVENTS, doc_id)

    def compact_log(self, now: datetime) -> None:
        """Drop old log entries once the log is long (see `compaction`), raising the undo floor over them."""
        events, meta = self.log(), self.meta()
        if not log_compaction.due(len(events), meta.get(COMPACTED, 0)):
            return
        drop, floor = log_compaction.plan(events, now)
        for doc_id in drop:
            del events[doc_id]
            self._storage.invalidate(EVENTS, doc_id)
        meta[UNDO_FLOOR] = max(meta.get(UNDO_FLOOR, 0), floor)
        meta[COMPACTED] = len(events)
        self._trim_note_texts()

    def replacement(
        self,
        annotations: list[dict],
        events: list[dict],
        resolutions: list[dict] | None = None,
        lists: list[dict] | None = None,
    ) -> dict:
        """Data holding these annotations (on their document ids where they have one), this log, all of it under
        the undo floor, these resolutions and these lists (None: those held now). Raises ValueError for documents
        that would make a damaged file."""
        old_ids = {doc["id"]: doc_id for doc_id, doc in self._storage.data[ANNOTATIONS].items()}
        next_id = max(map(int, self._storage.data[ANNOTATIONS]), default=0) + 1
        table: dict[str, dict] = {}
        for doc in annotations:
            doc_id = old_ids.get(doc["id"])
            if doc_id is None or doc_id in table:
                doc_id, next_id = str(next_id), next_id + 1
            table[doc_id] = doc
        meta = {**self.meta(), "schema_version": SCHEMA_VERSION, UNDO_FLOOR: len(events), COMPACTED: len(events)}
        data = {
            META: {"1": meta},
            ANNOTATIONS: dict(sorted(table.items(), key=_doc_key)),
            EVENTS: {str(n): doc for n, doc in enumerate(events, start=1)},
        }
        resolved = list(self.resolution_docs().values()) if resolutions is None else resolutions
        if resolved:
            data[RESOLUTIONS] = {str(n): dict(doc) for n, doc in enumerate(resolved, start=1)}
        listed = list(self.list_docs().values()) if lists is None else lists
        if listed:
            data[LISTS] = {str(n): dict(doc) for n, doc in enumerate(listed, start=1)}
        try:
            check_current(data)
        except DamagedFile as exc:
            raise ValueError(str(exc)) from None
        return data


def _reattachments(log: dict[str, dict]) -> list[str]:
    """The ids of the log's re-attachments, oldest first."""
    return sorted((doc_id for doc_id, doc in log.items() if doc.get("action") == REATTACH), key=int)


def _doc_key(item: tuple[str, dict]) -> int:
    return int(item[0])
