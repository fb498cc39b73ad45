"""Merging another readlist database file into this one, on disk.

Only the store writes the database: the merge runs inside `Store.locked()`, so the annotations
and log it reads are the ones `Store.replace_all` then replaces in one atomic write, after a
backup `NAME.bak-<time>-merge`. A running readlist notices the new file on its next change.
What resolving found (`resolutions`) is merged too, per paper the one checked last winning, and so are the
paper files opened (`lists`), per list the one opened last winning.
Right after a merge there is nothing to undo (see `store`); restoring the backup takes it back,
as `Store.undo_merge` does once nothing changed since is left to undo.
A dry run only reads: it opens no store, so it neither migrates nor repairs the database.

`merge_files` is git's merge driver: the copy both sides started from (the base), ours and theirs, merged
three-way into ours in one atomic write; nothing is written beside it (git's files are its own temporary
ones), and ours is left untouched when any of them cannot be merged.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from ..files.atomic import FILE_MODE, atomic_write_bytes, mode_of
from ..files.paths import unreadable
from ..resolve.records import Resolution
from .annotation import Annotation, Event
from .format import ANNOTATIONS, EVENTS, LISTS, RESOLUTIONS, DamagedFile, ForeignFile, NewerSchema, decode, encode
from .lists import KnownList, merge_lists, read_lists
from .merge import MergeReport, combine_duplicates, merge
from .migrations import migrate
from .repair import listed, salvage
from .resolutions import Forgotten, merge_resolutions, read_found
from .store import Store


class MergeError(Exception):
    """A database that cannot be merged; the message is one line naming the file."""


EMPTY: dict = {ANNOTATIONS: {}, EVENTS: {}}


def _load(path: Path, empty_ok: bool = False) -> tuple[dict, str | None]:
    """The file's data, and what of it could not be read, in one line (None when all of it was). With `empty_ok`
    an empty file is an empty database (git's base when both sides added the file)."""
    try:
        raw = path.read_bytes()
        if empty_ok and not raw.strip():
            return EMPTY, None
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


def _resolutions(data: dict) -> dict[str, Resolution | Forgotten]:
    docs = [doc for _, doc in sorted(data.get(RESOLUTIONS, {}).items(), key=lambda item: int(item[0]))]
    return read_found({doc.get("paper_id"): doc for doc in docs if isinstance(doc.get("paper_id"), str)})


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
    base_path: str | Path | None = None,
    store: Store | None = None,
) -> MergeReport:
    """Merge the database at `other_path` into the one at `db_path` (created if missing), through `store` when
    one is open on it already; three-way when `base_path` names the copy both started from.

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
    base = None if base_path is None else _base(Path(base_path).expanduser(), on_notice)
    if dry_run:  # the file is only ever replaced whole, so reading it without the lock is consistent
        mine_data = _load(db)[0] if db.exists() else EMPTY
        mine, my_events, _ = _contents(mine_data)
        taken = merge_resolutions(_resolutions(mine_data), their_found)[1]
        lists_taken = merge_lists(_lists(mine_data), their_lists)[1]
        report = merge(mine, my_events, theirs, their_events, base).report
        return replace(report, combined=combined, resolutions=taken, lists=lists_taken)
    opened, store = store is None, store or Store(db, now=now)
    if store.blocked:  # a file left alone: nothing to merge into
        raise MergeError(store.blocked)
    for notice in store.notices if opened and on_notice is not None else ():  # a store given has told its own
        on_notice(notice)
    with store.locked():
        my_events = store.events()[::-1]
        result = merge(store.all(), my_events, theirs, their_events, base)
        mine_found = store.found()
        found, taken = merge_resolutions(mine_found, their_found)
        lists, lists_taken = merge_lists(store.lists(), their_lists)
        if result.report.changed or found != mine_found or lists_taken:  # a lookup taken, one forgotten there
            store.replace_all(
                result.annotations, result.events, reason="merge", resolutions=found.values(), lists=lists.values()
            )
    return replace(result.report, combined=combined, resolutions=taken, lists=lists_taken)


def _base(path: Path, on_notice: Callable[[str], None] | None) -> dict[str, Annotation] | None:
    """The annotations of the copy both sides started from; None (a two-way merge, said) when it cannot be read."""
    try:
        data, _ = _load(path, empty_ok=True)
    except MergeError as exc:
        if on_notice is not None:
            on_notice(f"{exc}; merging without it (newer change wins)")
        return None
    return _contents(data)[0]


def merge_files(
    base_path: str | Path,
    ours_path: str | Path,
    theirs_path: str | Path,
    *,
    now: Callable[[], datetime] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> MergeReport:
    """git's merge driver: `theirs` merged into `ours` by their common `base`, three-way, and written to `ours`
    atomically (keeping its permissions). An empty file is an empty database. The merge is made in a scratch
    copy, so its backups and lock never land beside `ours`. A side with values of the wrong shape is merged as far
    as it can be read, what is left out said. Raises MergeError (ours untouched) when a file cannot be merged: not a
    readlist database, a newer readlist's, unreadable."""
    ours, theirs = Path(ours_path).expanduser(), Path(theirs_path).expanduser()
    try:
        raw = ours.read_bytes()
    except OSError as exc:
        raise MergeError(unreadable(ours, exc, "readlist database")) from None
    data, left_out = _load(ours, empty_ok=True)  # refused before anything is made
    if _load(theirs, empty_ok=True)[0] is EMPTY:
        return MergeReport((), (), 0)  # an empty file adds nothing
    if left_out:  # merged as far as it can be read; no damaged copy is set aside, since git keeps this version
        raw = encode(data)
        if on_notice is not None:
            on_notice(left_out)
    with tempfile.TemporaryDirectory(prefix="readlist-merge-") as scratch:
        copy, other = Path(scratch) / "ours.json", Path(scratch) / "theirs.json"
        if raw.strip():
            copy.write_bytes(raw)
        shutil.copyfile(theirs, other)

        def notice(line: str) -> None:  # named as git named the files, not by their scratch copies
            if on_notice is not None:
                on_notice(line.replace(str(copy), str(ours)).replace(str(other), str(theirs)))

        report = merge_database(copy, other, now=now, on_notice=notice, base_path=base_path)
        merged = copy.read_bytes() if copy.exists() else raw  # nothing to merge into an empty ours
    atomic_write_bytes(ours, merged, mode=mode_of(ours, FILE_MODE))
    return report
