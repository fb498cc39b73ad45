"""Opening the database file under its lock, and catching up with it: read, repaired, or left alone.

- the lock is `NAME.lock`; a writer kept waiting for it more than a moment is told (`on_wait`);
- a damaged file is never read as empty nor written over: it is moved to `NAME.corrupt-<time>`, and
  what `repair` salvages of it, else the newest good backup, takes its place (a line in `notices`);
  a file from a newer readlist, no readlist database at all, or no regular file is left alone
  (`blocked` says why) and nothing is saved;
- a symbolic link is written through: the file it points to is the database; a link into a folder
  that does not exist (an unmounted or unsynced one) is left alone too, its folder never made;
- a file another process replaced is read again, and the changes not yet saved here are applied on it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from ..files.atomic import signature
from ..files.paths import unreadable
from . import backups
from .annotation import Event
from .changes import Change
from .format import ANNOTATIONS, EVENTS, SCHEMA_VERSION, DamagedFile, DocLines, ForeignFile, NewerSchema, decode_lines
from .merge import combine_duplicates
from .migrations import migrate
from .records import Records
from .repair import repair

LOCK_TIMEOUT = 10.0
WAIT_NOTICE = 1.0  # seconds of waiting for the file lock before saying so


class OpenedFile(Records):
    """The data of one database file, read from it and caught up with it; `DatabaseFile` adds writing."""

    def __init__(self, path: Path, now: Callable[[], datetime]):
        self.link = path if path.is_symlink() else None
        self.path = path.resolve() if self.link else path  # write through a link, never over it
        self.notices: list[str] = []
        self._now = now
        self._file_lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT, mode=0o600, poll_interval=0.002)
        super().__init__(self.path)
        self._pending: list[Change] = []  # applied in memory, not yet on disk
        self._dirty = False  # memory holds something (a migration, a rescued copy) not yet on disk
        self._disk_version = SCHEMA_VERSION
        self._blocked: str | None = None  # an existing file we could not read: never write over it
        self._blocked_reason: str | None = None  # why, without the file's name (None: only `_blocked` says it)
        self.on_wait: Callable[[str], None] | None = None  # told when the file lock is slow to come

    def _read_disk(self) -> tuple[dict, int, Any, DocLines | None]:
        if self.path.exists() and not self.path.is_file() and not self.path.is_dir():  # a device, a pipe
            raise ForeignFile("not a regular file")
        sig = signature(self.path)
        data, lines = decode_lines(self.path.read_bytes())
        data, version = migrate(data)
        return data, version, sig, (lines if version == SCHEMA_VERSION else None)

    def _install(self, data: dict, version: int, sig: Any, lines: DocLines | None = None) -> None:
        self._disk_version = version
        self._dirty = version < SCHEMA_VERSION
        several = combine_duplicate_docs(data)
        if several:  # written back combined, after a backup of the file as it was
            if self.path.exists():
                backups.make_backup(self.path, self._now(), "combined")
            self._dirty, lines = True, None
            papers = ", ".join(f"{paper} ({n})" for paper, n in sorted(several.items())[:3])
            more = f" and {len(several) - 3} more" if len(several) > 3 else ""
            self.notices.append(
                f"{self.path} held several records of one paper: {papers}{more}; combined them "
                "(every note kept, tags united)"
            )
        self._load(data, sig, lines)

    def _open(self) -> None:
        lost = self.lost_target()
        if lost:
            self._block(lost)
            return
        try:
            read = self._read_disk()
        except FileNotFoundError:
            return
        except DamagedFile as exc:
            if self._left_alone(exc):  # never moved or written: no lock needed to leave it alone
                self._leave_alone(exc)
            else:
                self._recover(str(exc))
        except OSError as exc:
            self._block(unreadable(self.path, exc, "readlist database"))
        else:
            self._install(*read)

    def lost_target(self) -> str | None:
        """Why the database cannot be made where its link points: the folder there does not exist (say, a
        synced folder not mounted), and making it would hide the annotations from the folder when it returns."""
        if self.link is None or self.path.parent.is_dir():
            return None
        return f"{self.link}: links to {self.path}, in a folder that does not exist (not mounted?)"

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
        """The file and why it is left alone, in one line."""
        return self._blocked

    def _block(self, problem: str, reason: str | None = None) -> None:
        self._blocked, self._blocked_reason = problem, reason
        self.notices.append(f"{problem}; changes will not be saved")  # as the terminal UI carries on

    def _left_alone(self, exc: DamagedFile) -> bool:
        """Whether a file that cannot be used is somebody else's, never to be moved or written: a newer
        readlist's always; one that is no readlist database (a picture, a text) unless readlist's backups
        beside it show that this path held readlist's database (then it is damage, repaired from them)."""
        if isinstance(exc, NewerSchema):
            return True
        return isinstance(exc, ForeignFile) and not backups.backups(self.path)

    def _leave_alone(self, exc: DamagedFile) -> None:
        self._block(f"{self.path}: {exc}, left as it is", str(exc))

    def _recover(self, reason: str) -> None:
        """Under the lock, move a damaged file aside and put what `repair` salvages or restores in its place."""
        try:
            with self._file_lock:
                try:
                    self._install(*self._read_disk())
                    return  # another process repaired it meanwhile
                except FileNotFoundError:
                    return
                except DamagedFile as exc:
                    if self._left_alone(exc):
                        self._leave_alone(exc)
                        return
                    reason = str(exc)
                repaired = repair(self.path, self._now())
                if repaired.written:
                    self._install(*self._read_disk())
        except (OSError, Timeout) as exc:
            self._block(f"{self.path} is damaged ({reason}) and could not be repaired ({why(exc)})")
            return
        self.notices.append(
            f"{self.path} was damaged ({reason}); moved it to {repaired.moved.name} and {repaired.outcome}"
        )

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
            if self._left_alone(exc):
                # A newer readlist's file, or somebody else's, put in its place while open: left alone as at
                # open (never moved aside nor written over); changes stay in memory, told once.
                if not self._blocked:
                    self._leave_alone(exc)
                return False
            # replaced while open by a damaged database: moved aside, what this readlist holds written back
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


def combine_duplicate_docs(data: dict) -> dict[str, int]:
    """Combine, in place, annotation documents that share a paper id (see merge.combine_duplicates), each
    paper keeping its first document id; returns how many records each such paper had."""
    table = data[ANNOTATIONS]
    if len({doc["id"] for doc in table.values()}) == len(table):
        return {}
    ordered = sorted(table.items(), key=lambda item: int(item[0]))
    events = [Event.from_doc(doc) for _, doc in sorted(data[EVENTS].items(), key=lambda item: int(item[0]))]
    combined, several = combine_duplicates((doc for _, doc in ordered), events)
    first: dict[str, str] = {}
    for doc_id, doc in ordered:
        first.setdefault(doc["id"], doc_id)
    data[ANNOTATIONS] = {doc_id: combined[paper].to_doc() for paper, doc_id in first.items()}
    return several


def why(exc: BaseException, path: Path | None = None) -> str:
    """Why the file could not be locked, read or written, in a few words; the file the error names is
    added when it is not `path`, the one the message already names."""
    if isinstance(exc, Timeout):
        return "the database is locked by another readlist"
    if isinstance(exc, OSError) and exc.strerror:
        other = exc.filename and str(exc.filename) != str(path)
        return exc.strerror + (f": {exc.filename}" if other else "")
    return str(exc) or type(exc).__name__
