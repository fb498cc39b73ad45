"""Merging another readlist database file into this one, on disk.

Only the store writes the database: the merge runs inside `Store.locked()`, so the annotations
and log it reads are the ones `Store.replace_all` then replaces in one atomic write, after a
backup `NAME.bak-<time>-merge`. A running readlist notices the new file on its next change.
What resolving found (`resolutions`) is merged too, per paper the one checked last winning, and so are the
paper files opened (`lists`), per list the one opened last winning.
Right after a merge there is nothing to undo (see `store`); restoring the backup takes it back,
as `Store.undo_merge` does once nothing changed since is left to undo.
A dry run only reads: it opens no store, so it neither migrates nor repairs the database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..files.paths import unreadable
from ..resolve.records import Resolution
from .annotation import Annotation, Event
from .format import ANNOTATIONS, EVENTS, LISTS, RESOLUTIONS, DamagedFile, ForeignFile, NewerSchema, decode
from .lists import KnownList, merge_lists, read_lists
from .merge import MergeReport, combine_duplicates, merge
from .migrations import migrate
from .repair import listed, salvage
from .resolutions import merge_resolutions, read_resolutions
from .store import Store


class MergeError(Exception):
    """A database that cannot be merged; the message is one line naming the file."""


def _load(path: Path) -> tuple[dict, str | None]:
    """The file's data, and what of it could not be read, in one line (None when all of it was)."""
    try:
        raw = path.read_bytes()
        data, _ = migrate(decode(raw))
    except (ForeignFile, NewerSchema) as exc:
        raise MergeError(f"{path}: {exc}") from None
    except DamagedFile as exc:
        try:  # a file set aside for a few values of the wrong type: the rest can be merged
            salvaged = salvage(raw)
        except Exception:
            salvaged = None
        if salvaged is None:
            raise MergeError(f"{path}: not a usable readlist database ({exc})") from None
        data, dropped = salvaged
        # said, so that "already has everything" is not taken to cover what was never read
        return data, f"{path} is damaged ({exc}): merging the rest, leaving out {listed(dropped)}" if dropped else None
    except OSError as exc:
        raise MergeError(unreadable(path, exc, "readlist database")) from None
    return data, None


def _contents(data: dict) -> tuple[dict[str, Annotation], list[Event], dict[str, int]]:
    docs = [doc for _, doc in sorted(data[ANNOTATIONS].items(), key=lambda item: int(item[0]))]
    events = [Event.from_doc(doc) for _, doc in sorted(data[EVENTS].items(), key=lambda item: int(item[0]))]
    annotations, several = combine_duplicates(docs, events)
    return annotations, events, several


def _resolutions(data: dict) -> dict[str, Resolution]:
    docs = [doc for _, doc in sorted(data.get(RESOLUTIONS, {}).items(), key=lambda item: int(item[0]))]
    return read_resolutions({doc.get("paper_id"): doc for doc in docs if isinstance(doc.get("paper_id"), str)})


def _lists(data: dict) -> dict[str, KnownList]:
    return read_lists(doc for _, doc in sorted(data.get(LISTS, {}).items(), key=lambda item: int(item[0])))


def read_database(path: str | Path) -> tuple[dict[str, Annotation], list[Event]]:
    """Annotations by paper id and the event log (oldest first) of a database file of any known schema."""
    annotations, events, _ = _contents(_load(Path(path).expanduser())[0])
    return annotations, events


def merge_database(
    db_path: str | Path,
    other_path: str | Path,
    *,
    dry_run: bool = False,
    now: Callable[[], datetime] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> MergeReport:
    """Merge the database at `other_path` into the one at `db_path` (created if missing).

    With `dry_run` nothing is written. `on_notice` gets one-line notices: what of a damaged other file
    could not be read, and the store's (a damaged database repaired from a backup). Raises MergeError for
    unreadable files, filelock.Timeout when another readlist holds the lock too long, OSError when the
    write fails.
    """
    db, other = Path(db_path).expanduser(), Path(other_path).expanduser()
    if db.exists() and other.exists() and db.resolve() == other.resolve():
        raise MergeError(f"{other}: is this database itself")
    data, left_out = _load(other)
    if left_out and on_notice is not None:
        on_notice(left_out)
    theirs, their_events, several = _contents(data)
    combined = tuple(sorted(several.items()))
    their_found, their_lists = _resolutions(data), _lists(data)
    if dry_run:  # the file is only ever replaced whole, so reading it without the lock is consistent
        mine_data = _load(db)[0] if db.exists() else {ANNOTATIONS: {}, EVENTS: {}}
        mine, my_events, _ = _contents(mine_data)
        taken = merge_resolutions(_resolutions(mine_data), their_found)[1]
        listed = merge_lists(_lists(mine_data), their_lists)[1]
        report = merge(mine, my_events, theirs, their_events).report
        return replace(report, combined=combined, resolutions=taken, lists=listed)
    store = Store(db, now=now)
    if store.blocked:  # a file left alone: nothing to merge into
        raise MergeError(store.blocked)
    for notice in store.notices:
        if on_notice is not None:
            on_notice(notice)
    with store.locked():
        my_events = store.events()[::-1]
        result = merge(store.all(), my_events, theirs, their_events)
        found, taken = merge_resolutions(store.resolutions(), their_found)
        lists, listed = merge_lists(store.lists(), their_lists)
        if result.report.changed or taken or listed:
            store.replace_all(
                result.annotations, result.events, reason="merge", resolutions=found.values(), lists=lists.values()
            )
    return replace(result.report, combined=combined, resolutions=taken, lists=listed)
