"""Merging another readlist database file into this one, on disk.

The write follows the store's protocol: the database's lock file is held while the file is read,
merged and replaced atomically, a backup (`NAME.bak-<time>-merge`) is taken first, and a running
readlist notices the new file on its next change. Annotation documents keep their ids; the event
log is rewritten oldest first.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from . import backups
from .annotation import Annotation, Event
from .atomic_storage import atomic_write_bytes, ensure_dir
from .db_format import ANNOTATIONS, EVENTS, DamagedFile, decode, empty_data, encode
from .merge import MergeReport, MergeResult, merge
from .migrations import migrate

LOCK_TIMEOUT = 10.0


class MergeError(Exception):
    """A database that cannot be merged; the message is one line naming the file."""


def _load(path: Path) -> dict:
    try:
        data, _ = migrate(decode(path.read_bytes()))
    except FileNotFoundError:
        raise MergeError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise MergeError(f"{path}: is a directory, not a readlist database") from None
    except DamagedFile as exc:
        raise MergeError(f"{path}: not a usable readlist database ({exc})") from None
    except OSError as exc:
        raise MergeError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return data


def _contents(data: dict) -> tuple[dict[str, Annotation], list[Event]]:
    docs = sorted(data[ANNOTATIONS].items(), key=lambda item: int(item[0]))
    annotations = {doc["id"]: Annotation.from_doc(doc) for _, doc in docs}
    events = [Event.from_doc(doc) for _, doc in sorted(data[EVENTS].items(), key=lambda item: int(item[0]))]
    return annotations, events


def read_database(path: str | Path) -> tuple[dict[str, Annotation], list[Event]]:
    """Annotations by paper id and the event log (oldest first) of a database file of any known schema."""
    return _contents(_load(Path(path).expanduser()))


def _event_doc(event: Event) -> dict:
    doc = {
        "time": event.time,
        "paper": event.paper,
        "action": event.action,
        "before": event.before,
        "after": event.after,
        "group": event.group,
    }
    if event.undoes is not None:
        doc["undoes"] = event.undoes
    return doc


def _write(path: Path, data: dict, result: MergeResult) -> None:
    ids = {doc["id"]: doc_id for doc_id, doc in data[ANNOTATIONS].items()}
    next_id = max((int(doc_id) for doc_id in data[ANNOTATIONS]), default=0) + 1
    table: dict[str, dict] = {}
    for paper, annotation in result.annotations.items():
        doc_id = ids.get(paper)
        if doc_id is None:
            doc_id, next_id = str(next_id), next_id + 1
        table[doc_id] = annotation.to_doc()
    data[ANNOTATIONS] = dict(sorted(table.items(), key=lambda item: int(item[0])))
    data[EVENTS] = {str(n): _event_doc(event) for n, event in enumerate(result.events, start=1)}
    atomic_write_bytes(path, encode(data))


def merge_database(
    db_path: str | Path,
    other_path: str | Path,
    *,
    dry_run: bool = False,
    now: Callable[[], datetime] | None = None,
) -> MergeReport:
    """Merge the database at `other_path` into the one at `db_path` (created if missing).

    With `dry_run` nothing is written. Raises MergeError for unreadable files, filelock.Timeout
    when another readlist holds the lock too long, OSError when the write fails.
    """
    db, other = Path(db_path).expanduser(), Path(other_path).expanduser()
    if db.exists() and other.exists() and db.resolve() == other.resolve():
        raise MergeError(f"{other}: is this database itself")
    theirs, their_events = read_database(other)
    ensure_dir(db.parent)
    with FileLock(str(db) + ".lock", timeout=LOCK_TIMEOUT, mode=0o600):
        data = _load(db) if db.exists() else empty_data()
        mine, my_events = _contents(data)
        result = merge(mine, my_events, theirs, their_events)
        if dry_run or not result.report.changed:
            return result.report
        if db.exists():
            backups.make_backup(db, (now or (lambda: datetime.now(UTC)))(), "merge")
        _write(db, data, result)
    return result.report
