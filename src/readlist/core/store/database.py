"""The database file's protocol: lock, catch up with other writers, change, write atomically, retry on failure.

- every change takes the file lock (`NAME.lock`), re-reads the file if another process replaced it
  since we last read it (a `stat` comparison), applies the change, and writes the whole database
  atomically (temp file, fsync, rename, fsync of the directory) before the lock is released; just before
  writing it looks again, since a sync tool replaces the file without taking the lock;
- when that write fails (read-only directory, full disk, lock held too long) the change stays in
  memory, `pending_error` says why, and the next change or `flush()` retries it, re-applying it on
  top of whatever another process wrote meanwhile;
- up to five backups `NAME.bak-<time>` are kept: at most one per hour, plus one before a migration
  and one before a `replace` (a merge), which `restore_replaced` can put back (keeping a backup
  of what it replaces);
- the change log is compacted now and then (`log_compaction`) as it is written.

A `DatabaseFile` holds the data in memory and how a change is applied to it (`records.Records`) and what
opens the file, repairs a damaged one and catches up with it (`opening.Opener`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import Timeout

from ..files.atomic import atomic_write_bytes, ensure_dir, remove_stale_temps, signature
from . import backups
from .changes import Change
from .format import META, SCHEMA_VERSION, DamagedFile, decode_lines
from .migrations import migrate
from .opening import Opener, why
from .records import REPLACED, UNDO_FLOOR, Records


class DatabaseFile:
    """One database file and its data in memory, kept in step: `records` holds the data the store reads, `opener`
    reads the file into it; every change goes through `commit`. Only the store uses it."""

    def __init__(self, path: Path, now: Callable[[], datetime], lock: threading.RLock):
        self.opener = Opener(path, now)
        self.path = self.opener.path  # the file a link points to
        self.notices = self.opener.notices
        self.records = Records(self.path)
        self.pending_error: str | None = None
        self._now = now
        self._lock = lock
        self._temps_checked = False
        with self._lock:
            self.opener.open(self.records)
            if self.records.unsaved:
                self.flush()  # migrate on disk now, with a backup of the old version

    @property
    def blocked(self) -> str | None:
        """The file and why it is left alone, in one line."""
        return self.opener.blocked

    @property
    def on_wait(self) -> Callable[[str], None] | None:
        """Told when a change waits more than a moment for the file lock."""
        return self.opener.on_wait

    @on_wait.setter
    def on_wait(self, callback: Callable[[str], None] | None) -> None:
        self.opener.on_wait = callback

    def _save_locked(self) -> None:
        if not self._temps_checked:
            remove_stale_temps(self.path)
            self._temps_checked = True
        now = self._now()
        if self.path.exists():
            _refuse_read_only(self.path)
            if self.opener.disk_version < SCHEMA_VERSION:
                backups.make_backup(self.path, now, f"schema{self.opener.disk_version}")
            elif backups.due(self.path, now):
                backups.make_backup(self.path, now)
        self.records.compact_log(now)
        self._catch_up_before_writing()
        self.records.persist()
        self.opener.disk_version = SCHEMA_VERSION
        self.pending_error = None

    def _catch_up_before_writing(self) -> None:
        """Read the file again if it was replaced since this change caught up with it: a sync tool (Syncthing,
        Dropbox) renames another machine's version over it without taking the lock. The changes not on disk are
        applied on that version, never written over it. Raises OSError when it is a file left alone."""
        for _ in range(3):  # a tool still replacing it: the write then goes ahead on what was read last
            if not self.records.changed_on_disk():
                return
            self.opener.sync(self.records)
            if self.opener.blocked:
                raise self.opener.not_written()

    def _make_folder(self) -> None:
        """Make the database's folder if missing; never the folder a link points into (raises OSError)."""
        lost = self.opener.lost_target()
        if lost:
            raise OSError(lost)
        ensure_dir(self.path.parent)

    def _failed(self, exc: BaseException) -> None:
        self.pending_error = f"cannot save {self.path}: {why(exc, self.path)}"

    def commit(self, build: Callable[[], tuple[Any, Change | None]]) -> Any:
        """Lock, catch up with the file, build the change against fresh data, apply it and save it.

        The file lock is taken before the in-memory lock, so threads that only read (the UI drawing
        rows) never wait while another process holds the file.
        """
        locked, error = False, None
        try:
            self._make_folder()
            self.opener.take_lock()
            locked = True
        except (OSError, Timeout) as exc:
            error = exc
        try:
            with self._lock:
                if locked:
                    try:
                        self.opener.sync(self.records)
                    except OSError as exc:
                        error = exc
                result, change = build()
                if change is not None:
                    self.records.apply(change)
                if self.records.unsaved:
                    if error is None and self.opener.blocked:
                        error = self.opener.not_written()
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
                self.opener.file_lock.release()

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file lock, caught up with the file: what is read inside is current until the end.

        Raises filelock.Timeout or OSError when the lock cannot be taken.
        """
        self._make_folder()
        with self.opener.file_lock, self._lock:
            self.opener.sync(self.records)
            yield

    def replace(
        self,
        annotations: list[dict],
        events: list[dict],
        reason: str,
        resolutions: list[dict] | None = None,
        lists: list[dict] | None = None,
    ) -> None:
        """Replace every annotation and the whole log in one atomic write, after a backup `NAME.bak-<time>-REASON`;
        the resolutions and the lists too when given (None: those held are kept).

        The new log is entirely under the undo floor. Raises ValueError for documents that would make
        a damaged file, OSError (or filelock.Timeout) when the backup or the write fails, or when the file was
        replaced meanwhile (by a sync tool, which takes no lock: what replaces it was made from what it held);
        then the file and this object are as they were.
        """
        with self.locked():
            if self.opener.blocked:
                raise self.opener.not_written()
            data = self.records.replacement(annotations, events, resolutions, lists)
            meta = next(iter(data[META].values()))
            meta.pop(REPLACED, None)
            if self.path.exists():
                _refuse_read_only(self.path)
                backup = backups.make_backup(self.path, self._now(), reason)
                digest, floor = _digest(backup.read_bytes()), meta[UNDO_FLOOR]
                meta[REPLACED] = {"backup": backup.name, "sha256": digest, "reason": reason, "floor": floor}
            if self.records.changed_on_disk():  # a sync tool put another version in place, taking no lock
                raise OSError(errno.EAGAIN, "the file was replaced while this was being done; nothing written")
            previous = (self.records.data, self.opener.disk_version, self.records.signature)
            self.opener.install(self.records, data, SCHEMA_VERSION, None)
            try:
                self.records.persist()
            except OSError:
                self.opener.install(self.records, *previous)
                raise
            self.opener.disk_version = SCHEMA_VERSION
            self.pending_error = None

    def restore_replaced(self, nothing_to_undo: Callable[[list[dict]], bool]) -> Path | None:
        """Put back the file the last `replace` backed up, when `nothing_to_undo(log documents above the undo
        floor)`, the floor being the one the replacement set, and that backup is still the newest of its kind
        and as it was made. What is replaced is kept as a backup `NAME.bak-<time>-REASON-undone`, returned;
        None when nothing was restored. Raises filelock.Timeout or OSError (then nothing was restored)."""
        with self.locked():
            restored = self._replaced_backup(nothing_to_undo)
            if restored is None:
                return None
            backup, raw, reason = restored
            try:
                data, lines = decode_lines(raw)
                data, version = migrate(data)
            except DamagedFile:
                return None
            mode = _refuse_read_only(self.path)
            kept = backups.make_backup(self.path, self._now(), f"{reason}-undone")
            atomic_write_bytes(self.path, raw, mode=mode)
            lines = lines if version == SCHEMA_VERSION else None
            self.opener.install(self.records, data, version, signature(self.path), lines)
            with contextlib.suppress(OSError):  # now the database itself: an earlier replacement's is the newest
                os.replace(backup, backup.with_name(f"{backup.name}-restored"))
            return kept

    def _replaced_backup(self, nothing_to_undo: Callable[[list[dict]], bool]) -> tuple[Path, bytes, str] | None:
        """The backup `restore_replaced` may put back, its bytes and the replacement's reason; None when it may not.
        A compaction raises the floor over changes made since (out of undo's reach, they would be lost),
        and a later replacement by an older readlist (which kept this marker) makes a newer backup."""
        meta = self.records.meta()
        marker = meta.get(REPLACED)
        if self.opener.blocked or self.records.unsaved or not isinstance(marker, dict):
            return None
        if marker.get("floor") != meta.get(UNDO_FLOOR) or not nothing_to_undo(self.records.undoable_event_docs()):
            return None
        reason = str(marker.get("reason"))
        newest = next((b for b in backups.backups(self.path) if b.name.endswith(f"-{reason}")), None)
        if newest is None or newest.name != marker.get("backup"):
            return None
        try:
            raw = newest.read_bytes()
        except OSError:
            return None
        return (newest, raw, reason) if _digest(raw) == marker.get("sha256") else None

    def flush(self) -> bool:
        """Retry writing changes that failed to save. True when everything is on disk."""
        with self._lock:
            if not self.records.unsaved:
                return True
        self.commit(lambda: (None, None))
        with self._lock:
            return not self.records.unsaved

    def reload_if_changed(self) -> bool:
        """True when another process changed the file since we last read it (and we now show its data)."""
        with self._lock:
            if not self.opener.blocked and not self.records.changed_on_disk():
                return False
            if self.opener.lost_target():  # still gone: nothing to read, and taking the lock would make its folder
                return False
            notices = len(self.notices)
        try:
            with self.opener.file_lock, self._lock:  # file lock first, as in `commit`
                reloaded = self.opener.sync(self.records)
                if self.records.unsaved and not self.opener.blocked:  # a file we cannot read is not ours to write
                    self._save_locked()
        except (OSError, Timeout) as exc:
            with self._lock:
                self._failed(exc)
            return False
        return reloaded or len(self.notices) > notices


def _refuse_read_only(path: Path) -> int:
    """The file's permissions; raises PermissionError when it was made read-only on purpose, which is
    honoured even where root could write."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if not mode & stat.S_IWUSR:
        raise PermissionError(errno.EACCES, "the file is read-only")
    return mode


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()
