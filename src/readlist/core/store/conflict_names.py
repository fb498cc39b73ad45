"""The names file-sync tools give conflict copies of the database (see `conflict_copies`), apart from merging them:
every command looks for them, and only one that finds some needs the merge's code."""

from __future__ import annotations

import os
import re
from pathlib import Path

_NOT_A_DEVICE = frozenset({"BACKUP", "BAK", "COPY", "OLD", "NEW", "ORIG", "ORIGINAL", "MERGED", "CONFLICT", "EXPORT"})


def _patterns(path: Path) -> list[tuple[str, re.Pattern[str]]]:
    """(tool, the names it gives a conflict copy of `path`)."""
    suffix = re.escape(path.suffix)
    stem = re.escape(path.name[: len(path.name) - len(path.suffix)])
    day, again = r"\d{4}-\d{2}-\d{2}", r"(?: \(\d+\))?"  # a date; a number a tool adds when the name is taken
    # Dropbox's device: a name of the user's, but never over two lines (nor with other control characters)
    return [
        ("Syncthing", re.compile(rf"{stem}\.sync-conflict-\d{{8}}-\d{{6}}-[A-Z0-9]{{7}}{suffix}")),
        ("Nextcloud", re.compile(rf"{stem} \(conflicted copy {day} \d{{6}}\){again}{suffix}")),
        ("Dropbox", re.compile(rf"{stem} \((?:[^()/\x00-\x1f\x7f]+['’]s )?conflicted copy {day}\){again}{suffix}")),
        ("ownCloud", re.compile(rf"{stem}_conflict-\d{{8}}-\d{{6}}{suffix}")),
        ("OneDrive", re.compile(rf"{stem}-(?P<device>[A-Z0-9][A-Z0-9-]{{0,14}}){suffix}")),
    ]


def _tool(name: str, patterns: list[tuple[str, re.Pattern[str]]]) -> str | None:
    for tool, pattern in patterns:
        match = pattern.fullmatch(name)
        if match is None:
            continue
        device = match.groupdict().get("device")
        if device is not None and (device in _NOT_A_DEVICE or not re.search("[A-Z]", device)):
            return None  # `readlist-OLD.json`, `readlist-2024.json`: a name of the user's own
        return tool
    return None


def _someone_elses(name: str, db: Path, held: set[str]) -> bool:
    """Whether a file named as OneDrive names a copy of `db` belongs to another database: one readlist has used (its
    lock or a backup beside it: `readlist-WORK.json` opened with --db), or OneDrive's copy of a database beside it
    whose name is longer (`readlist-WORK-PC1.json`, a copy of `readlist-WORK.json`)."""
    if f"{name}.lock" in held or any(other.startswith(f"{name}.bak-") for other in held):
        return True
    stem, suffix = db.name[: len(db.name) - len(db.suffix)], db.suffix
    device = name[len(stem) + 1 : len(name) - len(suffix)]
    return any(f"{stem}-{device[:at]}{suffix}" in held for at, char in enumerate(device) if char == "-")


def conflict_copies(db: Path) -> list[tuple[Path, str]]:
    """The conflict copies beside the database file `db`, with the tool that named each, by name."""
    try:
        names = sorted(os.listdir(db.parent))
    except OSError:
        return []
    patterns = _patterns(db)
    found, held = [], set(names)
    for name in names:
        tool = _tool(name, patterns)
        if tool == "OneDrive" and _someone_elses(name, db, held):  # the name is only a guess
            continue
        if tool is not None and (db.parent / name).is_file():
            found.append((db.parent / name, tool))
    return found
