"""Backups of the database beside it (`NAME.bak-<time>`) and moving a damaged file aside (`NAME.corrupt-<time>`).

A name's time has microseconds (`20261204T120000.123456Z`), and a counter (`~2`) where that is taken
too: two backups made in one second (two merges, two merge undos) never share a name, and none is ever
written over. Names from before the microseconds (`20261204T120000Z`) are read alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..files.atomic import atomic_write_bytes

KEEP = 5
INTERVAL = timedelta(hours=1)
_STAMP = "%Y%m%dT%H%M%S.%fZ"
_NAME = re.compile(r"(?P<time>\d{8}T\d{6})(?:\.(?P<micro>\d{6}))?Z(?:~(?P<count>\d{1,9}))?(?:-|$)")


def stamp(now: datetime) -> str:
    return now.astimezone(UTC).strftime(_STAMP)


def backups(path: Path) -> list[Path]:
    """Existing backups, newest first (by the time and counter in their names)."""
    prefix = path.name + ".bak-"
    try:
        names = [name for name in os.listdir(path.parent) if name.startswith(prefix)]
    except OSError:
        return []
    found = [path.parent / name for name in names]
    return sorted(found, key=lambda backup: _order(backup, path), reverse=True)


def _order(backup: Path, path: Path) -> tuple[datetime, int, str]:
    match = _NAME.match(backup.name[len(path.name) + len(".bak-") :])
    moment = time_of(backup, path) or datetime.min.replace(tzinfo=UTC)
    return moment, int(match["count"] or 1) if match else 0, backup.name


def time_of(backup: Path, path: Path) -> datetime | None:
    """When a backup of `path` was made, from its name."""
    match = _NAME.match(backup.name[len(path.name) + len(".bak-") :])
    if not match:
        return None
    try:
        moment = datetime.strptime(match["time"], "%Y%m%dT%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None
    return moment.replace(microsecond=int(match["micro"] or 0))


def due(path: Path, now: datetime) -> bool:
    """At most one routine backup per hour."""
    existing = backups(path)
    if not existing:
        return True
    last = time_of(existing[0], path)
    return last is None or abs(now.astimezone(UTC) - last) >= INTERVAL


def make_backup(path: Path, now: datetime, reason: str = "") -> Path:
    """Copy the current file to a new backup (mode 0600) and drop the oldest beyond KEEP."""
    data, suffix = path.read_bytes(), f"-{reason}" if reason else ""
    taken = [_order(b, path)[1] for b in backups(path) if b.name.startswith(f"{path.name}.bak-{stamp(now)}")]
    count = max(taken, default=0) + 1  # after every other of this instant, also one already pruned
    while True:
        target = path.parent / f"{path.name}.bak-{stamp(now)}{f'~{count}' if count > 1 else ''}{suffix}"
        try:
            atomic_write_bytes(target, data, overwrite=False)
            break
        except FileExistsError:  # made in the same microsecond (a coarse clock): the next number
            count += 1
    for old in backups(path)[KEEP:]:
        try:
            old.unlink()
        except OSError:
            pass
    return target


def newest_good(path: Path, is_good: Callable[[bytes], bool]) -> tuple[Path, bytes] | None:
    for backup in backups(path):
        try:
            raw = backup.read_bytes()
        except OSError:
            continue
        if is_good(raw):
            return backup, raw
    return None


def move_aside(path: Path, now: datetime) -> Path:
    """Rename a damaged file to NAME.corrupt-<time> (never overwriting an earlier one); returns the new name."""
    base = path.parent / f"{path.name}.corrupt-{stamp(now)}"
    target, n = base, 1
    while target.exists():
        n += 1
        target = base.with_name(f"{base.name}-{n}")
    os.replace(path, target)
    return target
