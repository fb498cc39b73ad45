"""The database file's protocol: lock, catch up with other writers, change, write atomically, retry on failure.

- every change takes the file lock (`NAME.lock`), re-reads the file if another process replaced it
  since we last read it (a `stat` comparison), applies the change, and writes the whole database
  atomically (temp file, fsync, rename, fsync of the directory) before the lock is released;
- when that write fails (read-only directory, full disk, lock held too long) the change stays in
  memory, `pending_error` says why, and the next change or `flush()` retries it, re-applying it on
  top of whatever another process wrote meanwhile;
- a damaged file is never read as empty and never written over: it is moved to `NAME.corrupt-<time>`,
  the newest good backup is restored, and one line goes to `notices`; a file from a newer readlist, a
  file that is no readlist database at all, or no regular file, is left alone and nothing is saved;
- a symbolic link is written through: the file it points to is the database;
- up to five backups `NAME.bak-<time>` are kept: at most one per hour, plus one before a migration
  and one before a `replace` (a merge);
- the change log is compacted now and then (`log_compaction`), and `meta` holds the undo floor:
  log entries with ids up to it are not undone (older than a replacement or a compaction).
"""

from __future__ import annotations

import errno
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from tinydb import TinyDB

from . import backups, log_compaction
from .annotation import Annotation
from .atomic_files import atomic_write_bytes, ensure_dir, remove_stale_temps, signature
from .atomic_storage import AtomicJSONStorage
from .changes import Change
from .db_format import (
    ANNOTATIONS,
    EVENTS,
    META,
    SCHEMA_VERSION,
    DamagedFile,
    DocLines,
    ForeignFile,
    NewerSchema,
    check_current,
    decode,
    decode_lines,
    empty_data,
    encode,
    salvage,
)
from .migrations import migrate

LOCK_TIMEOUT = 10.0
WAIT_NOTICE = 1.0  # seconds of waiting for the file lock before saying so
UNDO_FLOOR = "undo_floor"  # meta: log entries with ids up to this are not undone
COMPACTED = "events_compacted"  # meta: how many log entries the last compaction left


def _is_good(raw: bytes) -> bool:
    try:
        migrate(decode(raw))
    except DamagedFile:
        return False
    return True


class DatabaseFile:
    """The TinyDB data of one file, kept in memory and in step with the disk. Only the store uses it."""

    def __init__(self, path: Path, now: Callable[[], datetime], lock: threading.RLock):
        self.path = path.resolve() if path.is_symlink() else path  # write through a link, never over it
        self.notices: list[str] = []
        self.pending_error: str | None = None
        self._now = now
        self._lock = lock
        self._file_lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT, mode=0o600, poll_interval=0.002)
        self._storage = AtomicJSONStorage(self.path, empty_data())
        self._db = TinyDB(storage=lambda: self._storage)
        self._index: dict[str, int] = {}  # paper id -> document id
        self._pending: list[Change] = []
        self._dirty = False  # memory holds something (a migration, a rescued copy) not yet on disk
        self._disk_version = SCHEMA_VERSION
        self._blocked: str | None = None  # an existing file we could not read: never write over it
        self._temps_checked = False
        self.on_wait: Callable[[str], None] | None = None  # told when the file lock is slow to come
        self.revision = 0  # goes up whenever the data in memory changes (what readers may cache against)
        with self._lock:
            self._open()

    # ----- what the store reads (call while holding the lock) -----------------------------------------

    def doc(self, paper_id: str) -> dict | None:
        doc_id = self._index.get(paper_id)
        return None if doc_id is None else self._storage.data[ANNOTATIONS][str(doc_id)]

    def docs(self) -> dict[str, dict]:
        """Annotation documents by paper id."""
        table = self._storage.data[ANNOTATIONS]
        return {pid: table[str(doc_id)] for pid, doc_id in self._index.items()}

    def doc_values(self) -> Iterable[dict]:
        """The annotation documents themselves (each has its paper `id`), without building a mapping."""
        return self._storage.data[ANNOTATIONS].values()

    def event_docs(self, limit: int | None = None) -> list[dict]:
        """Log documents, newest first."""
        table = self._storage.data[EVENTS]
        return [table[key] for key in sorted(table, key=int, reverse=True)[:limit]]

    def undoable_event_docs(self) -> list[dict]:
        """Log documents above the undo floor, newest first."""
        table, floor = self._storage.data[EVENTS], self._meta().get(UNDO_FLOOR, 0)
        return [table[key] for key in sorted(table, key=int, reverse=True) if int(key) > floor]

    def _meta(self) -> dict:
        meta = self._storage.data.setdefault(META, {})
        if not meta:
            meta["1"] = {"schema_version": SCHEMA_VERSION}
        return next(iter(meta.values()))

    # ----- reading the file -------------------------------------------------------------------------

    def _read_disk(self) -> tuple[dict, int, Any, DocLines | None]:
        if self.path.exists() and not self.path.is_file() and not self.path.is_dir():  # a device, a pipe
            raise ForeignFile("not a regular file")
        sig = signature(self.path)
        data, lines = decode_lines(self.path.read_bytes())
        data, version = migrate(data)
        return data, version, sig, (lines if version == SCHEMA_VERSION else None)

    def _install(self, data: dict, version: int, sig: Any, lines: DocLines | None = None) -> None:
        self._storage.replace_data(data, sig, lines)
        self.revision += 1
        self._db = TinyDB(storage=lambda: self._storage)  # fresh tables: no stale ids or caches
        self._disk_version = version
        self._dirty = version < SCHEMA_VERSION
        self._index = {doc["id"]: int(doc_id) for doc_id, doc in sorted(data[ANNOTATIONS].items(), key=_doc_key)}

    def _open(self) -> None:
        try:
            read = self._read_disk()
        except FileNotFoundError:
            return
        except (ForeignFile, NewerSchema) as exc:  # never moved or written: no lock needed to leave it alone
            self._block(f"{self.path}: {exc}; left as it is, and changes will not be saved")
        except DamagedFile as exc:
            self._recover(str(exc))
        except OSError as exc:
            self._block(f"cannot read {self.path} ({exc.strerror or exc}); changes will not be saved")
        else:
            self._install(*read)
        if self._dirty:
            self.flush()  # migrate on disk now, with a backup of the old version

    def _take_file_lock(self) -> None:
        """The file lock; when another readlist holds it for more than a moment, `on_wait` is told first."""
        try:
            self._file_lock.acquire(timeout=WAIT_NOTICE)
        except Timeout:
            if self.on_wait is not None:
                self.on_wait(f"waiting for another readlist that is writing {self.path}…")
            self._file_lock.acquire(timeout=LOCK_TIMEOUT - WAIT_NOTICE)

    @property
    def blocked(self) -> str | None:
        return self._blocked

    def _block(self, message: str) -> None:
        self._blocked = message
        self.notices.append(message)

    def _recover(self, reason: str) -> None:
        """Move a damaged file aside and restore the newest good backup, under the lock."""
        try:
            with self._file_lock:
                try:
                    self._install(*self._read_disk())
                    return  # another process repaired it meanwhile
                except FileNotFoundError:
                    return
                except (ForeignFile, NewerSchema) as exc:
                    self._block(f"{self.path}: {exc}; left as it is, and changes will not be saved")
                    return
                except DamagedFile as exc:
                    reason = str(exc)
                moved = backups.move_aside(self.path, self._now())
                try:
                    salvaged = salvage(moved.read_bytes())
                except Exception:  # a shape salvage did not foresee: the backup, as for any damage
                    salvaged = None
                found = None if salvaged else backups.newest_good(self.path, _is_good)
                if salvaged:  # a few values of the wrong type: everything else is kept as it is
                    data, dropped = salvaged
                    atomic_write_bytes(self.path, [encode(data)])
                    self._install(*self._read_disk())
                    more = f" and {len(dropped) - 3} more" if len(dropped) > 3 else ""
                    outcome = f"repaired it, leaving out {', '.join(dropped[:3])}{more}" if dropped else "repaired it"
                elif found:
                    atomic_write_bytes(self.path, found[1])
                    self._install(*self._read_disk())
                    outcome = f"restored the backup {found[0].name} (changes made after it are only in the moved file)"
                else:
                    outcome = "found no backup, so started an empty database"
        except (OSError, Timeout) as exc:
            self._block(f"{self.path} is damaged ({reason}) and could not be repaired ({_why(exc)})")
            return
        self.notices.append(f"{self.path} was damaged ({reason}); moved it to {moved.name} and {outcome}")

    def _sync_locked(self) -> bool:
        """Holding the file lock: re-read the file if another process changed it. True when reloaded."""
        if not self._blocked and not self._storage.changed_on_disk():
            return False
        try:
            read = self._read_disk()
        except FileNotFoundError:
            self._blocked = None
            self._storage.signature = None
            self._dirty = True  # the file was removed: write back what we hold
            return False
        except DamagedFile as exc:
            if self._blocked and isinstance(exc, ForeignFile | NewerSchema):
                return False  # still not ours: left alone, as when it was opened
            # replaced while open, even by another program's file: what this readlist holds is written back
            moved = backups.move_aside(self.path, self._now())
            self.notices.append(
                f"{self.path} was damaged by another program ({exc}); moved it to {moved.name} "
                "and wrote back the annotations this readlist holds"
            )
            self._blocked = None
            self._storage.signature = None
            self._dirty = True
            return False
        self._blocked = None
        self._install(*read)
        for change in self._pending:
            self._apply(change)
        return True

    # ----- writing ----------------------------------------------------------------------------------

    def _save_locked(self) -> None:
        if not self._temps_checked:
            remove_stale_temps(self.path)
            self._temps_checked = True
        now = self._now()
        if self.path.exists():
            mode = self.path.stat().st_mode
            if not mode & stat.S_IWUSR:  # made read-only on purpose: honoured, even where root could write
                raise PermissionError(errno.EACCES, "the file is read-only")
            if self._disk_version < SCHEMA_VERSION:
                backups.make_backup(self.path, now, f"schema{self._disk_version}")
            elif backups.due(self.path, now):
                backups.make_backup(self.path, now)
        self._compact_log(now)
        self._storage.persist()
        self._disk_version = SCHEMA_VERSION
        self._pending.clear()
        self._dirty = False
        self.pending_error = None

    def _compact_log(self, now: datetime) -> None:
        events, meta = self._storage.data[EVENTS], self._meta()
        if not log_compaction.due(len(events), meta.get(COMPACTED, 0)):
            return
        drop, floor = log_compaction.plan(events, now)
        for doc_id in drop:
            del events[doc_id]
            self._storage.invalidate(EVENTS, doc_id)
        meta[UNDO_FLOOR] = max(meta.get(UNDO_FLOOR, 0), floor)
        meta[COMPACTED] = len(events)

    def _failed(self, exc: BaseException) -> None:
        self.pending_error = f"cannot save {self.path}: {_why(exc)}"

    def _apply(self, change: Change) -> None:
        annotations = self._db.table(ANNOTATIONS, cache_size=0)
        self.revision += 1
        self._storage.deferred = True
        try:
            for old, new in change.renames:
                doc_id = self._index.get(old)
                if doc_id is not None and new not in self._index:
                    self._storage.invalidate(ANNOTATIONS, doc_id)
                    annotations.update({"id": new}, doc_ids=[doc_id])
                    self._index[new] = self._index.pop(old)
            known = {pid: fields for pid, fields in change.sets.items() if pid in self._index}
            for pid in known:
                self._storage.invalidate(ANNOTATIONS, self._index[pid])
            if known:
                annotations.update(lambda doc: doc.update(known[doc["id"]]), doc_ids=[self._index[p] for p in known])
            fresh = [pid for pid in change.sets if pid not in self._index]
            if fresh:
                docs = [Annotation(pid, created=change.sets[pid].get("updated")).to_doc() for pid in fresh]
                for doc in docs:
                    doc.update(change.sets[doc["id"]])
                self._index.update(zip(fresh, annotations.insert_multiple(docs), strict=True))
            if change.events:
                self._db.table(EVENTS, cache_size=0).insert_multiple(change.events)
        finally:
            self._storage.deferred = False

    def commit(self, build: Callable[[], tuple[Any, Change | None]]) -> Any:
        """Lock, catch up with the file, build the change against fresh data, apply it and save it.

        The file lock is taken before the in-memory lock, so threads that only read (the UI drawing
        rows) never wait while another process holds the file.
        """
        locked, error = False, None
        try:
            ensure_dir(self.path.parent)
            self._take_file_lock()
            locked = True
        except (OSError, Timeout) as exc:
            error = exc
        try:
            with self._lock:
                if locked:
                    try:
                        self._sync_locked()
                    except OSError as exc:
                        error = exc
                result, change = build()
                if change is not None:
                    self._apply(change)
                    self._pending.append(change)
                if self._pending or self._dirty:
                    if error is None and self._blocked:
                        error = OSError(f"{self.path} could not be read, so it is not written over")
                    if error is None:
                        try:
                            self._save_locked()
                        except OSError as exc:
                            error = exc
                    if error is not None:
                        self._failed(error)
                return result
        finally:
            if locked:
                self._file_lock.release()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file lock, caught up with the file: what is read inside is current until the end.

        Raises filelock.Timeout or OSError when the lock cannot be taken.
        """
        ensure_dir(self.path.parent)
        with self._file_lock, self._lock:
            self._sync_locked()
            yield

    def replace(self, annotations: list[dict], events: list[dict], reason: str) -> None:
        """Replace every annotation and the whole log in one atomic write, after a backup `NAME.bak-<time>-REASON`.

        The new log is entirely under the undo floor. Raises ValueError for documents that would make
        a damaged file, OSError (or filelock.Timeout) when the backup or the write fails; then the
        file and this object are as they were.
        """
        with self.locked():
            if self._blocked:
                raise OSError(f"{self.path} could not be read, so it is not written over")
            old_ids = {doc["id"]: doc_id for doc_id, doc in self._storage.data[ANNOTATIONS].items()}
            next_id = max(map(int, self._storage.data[ANNOTATIONS]), default=0) + 1
            table: dict[str, dict] = {}
            for doc in annotations:
                doc_id = old_ids.get(doc["id"])
                if doc_id is None or doc_id in table:
                    doc_id, next_id = str(next_id), next_id + 1
                table[doc_id] = doc
            meta = {**self._meta(), "schema_version": SCHEMA_VERSION, UNDO_FLOOR: len(events), COMPACTED: len(events)}
            data = {
                META: {"1": meta},
                ANNOTATIONS: dict(sorted(table.items(), key=_doc_key)),
                EVENTS: {str(n): doc for n, doc in enumerate(events, start=1)},
            }
            try:
                check_current(data)
            except DamagedFile as exc:
                raise ValueError(str(exc)) from None
            if self.path.exists():
                backups.make_backup(self.path, self._now(), reason)
            previous = (self._storage.data, self._disk_version, self._storage.signature)
            self._install(data, SCHEMA_VERSION, None)
            try:
                self._storage.persist()
            except OSError:
                self._install(*previous)
                raise
            self._disk_version = SCHEMA_VERSION
            self._pending.clear()
            self._dirty = False
            self.pending_error = None

    def flush(self) -> bool:
        """Retry writing changes that failed to save. True when everything is on disk."""
        with self._lock:
            if not self._pending and not self._dirty:
                return True
        self.commit(lambda: (None, None))
        with self._lock:
            return not self._pending and not self._dirty

    def reload_if_changed(self) -> bool:
        """True when another process changed the file since we last read it (and we now show its data)."""
        with self._lock:
            if not self._blocked and not self._storage.changed_on_disk():
                return False
            notices = len(self.notices)
        try:
            with self._file_lock, self._lock:  # file lock first, as in `commit`
                reloaded = self._sync_locked()
                if (self._dirty or self._pending) and not self._blocked:  # a file we cannot read is not ours to write
                    self._save_locked()
        except (OSError, Timeout) as exc:
            with self._lock:
                self._failed(exc)
            return False
        return reloaded or len(self.notices) > notices


def _doc_key(item: tuple[str, dict]) -> int:
    return int(item[0])


def _why(exc: BaseException) -> str:
    if isinstance(exc, Timeout):
        return "the database is locked by another readlist"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror + (f": {exc.filename}" if exc.filename else "")
    return str(exc) or type(exc).__name__
