"""Backups of the database beside it (`NAME.bak-<time>`) and moving a damaged file aside (`NAME.corrupt-<time>`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .atomic_files import atomic_write_bytes

KEEP = 5
INTERVAL = timedelta(hours=1)
_STAMP = "%Y%m%dT%H%M%SZ"


def stamp(now: datetime) -> str:
    return now.astimezone(UTC).strftime(_STAMP)


def backups(path: Path) -> list[Path]:
    """Existing backups, newest first."""
    prefix = path.name + ".bak-"
    try:
        names = [name for name in os.listdir(path.parent) if name.startswith(prefix)]
    except OSError:
        return []
    return [path.parent / name for name in sorted(names, reverse=True)]


def time_of(backup: Path, path: Path) -> datetime | None:
    """When a backup of `path` was made, from its name."""
    text = backup.name[len(path.name) + len(".bak-") :][: len("20250101T000000Z")]
    try:
        return datetime.strptime(text, _STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def due(path: Path, now: datetime) -> bool:
    """At most one routine backup per hour."""
    existing = backups(path)
    if not existing:
        return True
    last = time_of(existing[0], path)
    return last is None or abs(now.astimezone(UTC) - last) >= INTERVAL


def make_backup(path: Path, now: datetime, reason: str = "") -> Path:
    """Copy the current file to a new backup (mode 0600) and drop the oldest beyond KEEP."""
    name = f"{path.name}.bak-{stamp(now)}" + (f"-{reason}" if reason else "")
    target = path.parent / name
    atomic_write_bytes(target, path.read_bytes())
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
