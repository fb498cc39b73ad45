"""Opening the database file under its lock, and catching up with it: read, repaired, or left alone (`Opener`).

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

from filelock import FileLock, Timeout

from ..files.atomic import Signature, signature
from ..files.paths import unreadable
from ..papers.formats import _no_collection
from . import backups
from .annotation import Event
from .format import ANNOTATIONS, EVENTS, SCHEMA_VERSION, DamagedFile, ForeignFile, LazyLines, NewerSchema, decode_lines
from .merge import combine_duplicates
from .migrations import migrate
from .packing import unpacked
from .records import Records
from .repair import repair

LOCK_TIMEOUT = 10.0
WAIT_NOTICE = 1.0  # seconds of waiting for the file lock before saying so


class Opener:
    """Where the database file is, its lock, and what reading it found. It fills a `Records` with the file's
    data at open (`open`) and after another process replaced the file (`sync`), repairs a damaged file, and
    leaves alone one that is not readlist's to write (`blocked`)."""

    def __init__(self, path: Path, now: Callable[[], datetime]):
        self.link = path if path.is_symlink() else None
        self.path = path.resolve() if self.link else path  # write through a link, never over it
        self.notices: list[str] = []
        self.file_lock = FileLock(str(self.path) + ".lock", timeout=LOCK_TIMEOUT, mode=0o600, poll_interval=0.002)
        self.disk_version = SCHEMA_VERSION  # of the file on disk: an older one is backed up before it is written
        self.on_wait: Callable[[str], None] | None = None  # told when the file lock is slow to come
        self._now = now
        self._blocked: str | None = None  # an existing file we could not read: never write over it
        self._blocked_reason: str | None = None  # why, without the file's name (None: only `_blocked` says it)

    def read(self) -> tuple[dict, int, Signature, LazyLines | None]:
        """The file's data (migrated), the schema version it had, its signature and its document lines."""
        if self.path.exists() and not self.path.is_file() and not self.path.is_dir():  # a device, a pipe
            raise ForeignFile("not a regular file")
        sig = signature(self.path)
        with _no_collection():  # what it reads lives on: the collector would walk 100,000 documents for nothing
            data, lines = decode_lines(self.path.read_bytes(), self.path, log_packed=True)
        data, version = migrate(data)
        return data, version, sig, (lines if version == SCHEMA_VERSION else None)

    def install(
        self, records: Records, data: dict, version: int, sig: Signature, lines: LazyLines | None = None
    ) -> None:
        """Hold data read from the file (or replacing it) in `records`; several records of one paper in it are
        combined first, and written back so."""
        self.disk_version = version
        dirty = version < SCHEMA_VERSION
        several = combine_duplicate_docs(data, lines.runs if lines is not None and lines.log_packed else None)
        if several:  # written back combined, after a backup of the file as it was
            if self.path.exists():
                backups.make_backup(self.path, self._now(), "combined")
            dirty, lines = True, None
            papers = ", ".join(f"{paper} ({n})" for paper, n in sorted(several.items())[:3])
            more = f" and {len(several) - 3} more" if len(several) > 3 else ""
            self.notices.append(
                f"{self.path} held several records of one paper: {papers}{more}; combined them "
                "(every note kept, tags united)"
            )
        records.load(data, sig, lines, dirty=dirty)

    def open(self, records: Records) -> None:
        """Read the file into `records`: repaired when damaged, left alone when it is not readlist's to write."""
        lost = self.lost_target()
        if lost:
            self._block(lost)
            return
        try:
            read = self.read()
        except FileNotFoundError:
            return
        except DamagedFile as exc:
            if self._left_alone(exc):  # never moved or written: no lock needed to leave it alone
                self._leave_alone(exc)
            else:
                self._recover(records, str(exc))
        except OSError as exc:
            self._block(unreadable(self.path, exc, "readlist database"))
        else:
            self.install(records, *read)

    def lost_target(self) -> str | None:
        """Why the database cannot be made where its link points: the folder there does not exist (say, a
        synced folder not mounted), and making it would hide the annotations from the folder when it returns."""
        if self.link is None or self.path.parent.is_dir():
            return None
        return f"{self.link}: links to {self.path}, in a folder that does not exist (not mounted?)"

    def take_lock(self) -> None:
        """The file lock; when another readlist holds it for more than a moment, `on_wait` is told first."""
        try:
            self.file_lock.acquire(timeout=WAIT_NOTICE)
        except Timeout:
            if self.on_wait is not None:
                self.on_wait(f"waiting for another readlist that is writing {self.path}…")
            self.file_lock.acquire(timeout=LOCK_TIMEOUT - WAIT_NOTICE)

    @property
    def blocked(self) -> str | None:
        """The file and why it is left alone, in one line."""
        return self._blocked

    def not_written(self) -> OSError:
        """Why a file left alone is not written: what it is (a newer readlist's), else that it could not be read."""
        return OSError(self._blocked_reason or f"{self.path} could not be read, so it is not written over")

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

    def _recover(self, records: Records, reason: str) -> None:
        """Under the lock, move a damaged file aside and put what `repair` salvages or restores in its place."""
        try:
            with self.file_lock:
                try:
                    self.install(records, *self.read())
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
                    self.install(records, *self.read())
        except (OSError, Timeout) as exc:
            self._block(f"{self.path} is damaged ({reason}) and could not be repaired ({why(exc)})")
            return
        self.notices.append(
            f"{self.path} was damaged ({reason}); moved it to {repaired.moved.name} and {repaired.outcome}"
        )

    def sync(self, records: Records) -> bool:
        """Holding the file lock: re-read the file into `records` if another process changed it, the changes
        not yet on disk applied again on it. True when reloaded."""
        if not self._blocked and not records.changed_on_disk():
            return False
        try:
            read = self.read()
        except FileNotFoundError:
            self._blocked = None
            records.file_gone()  # the file was removed: write back what we hold
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
            records.file_gone()
            return False
        self._blocked = None
        self.install(records, *read)
        records.reapply()
        return True


def combine_duplicate_docs(data: dict, runs: dict[str, list[str]] | None = None) -> dict[str, int]:
    """Combine, in place, annotation documents that share a paper id (see merge.combine_duplicates), each
    paper keeping its first document id; returns how many records each such paper had. `runs`: the log's packed
    runs, left packed as read (`format.decode_lines`), unpacked in place when records are combined."""
    table = data[ANNOTATIONS]
    if len({doc["id"] for doc in table.values()}) == len(table):
        return {}
    if runs:
        data[EVENTS] = unpacked(data[EVENTS], runs)
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
