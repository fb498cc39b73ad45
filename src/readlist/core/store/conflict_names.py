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
    return [
        ("Syncthing", re.compile(rf"{stem}\.sync-conflict-\d{{8}}-\d{{6}}-[A-Z0-9]{{7}}{suffix}")),
        ("Nextcloud", re.compile(rf"{stem} \(conflicted copy {day} \d{{6}}\){again}{suffix}")),
        ("Dropbox", re.compile(rf"{stem} \((?:[^()/]+['’]s )?conflicted copy {day}\){again}{suffix}")),
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


def conflict_copies(db: Path) -> list[tuple[Path, str]]:
    """The conflict copies beside the database file `db`, with the tool that named each, by name."""
    try:
        names = sorted(os.listdir(db.parent))
    except OSError:
        return []
    patterns = _patterns(db)
    found = []
    for name in names:
        tool = _tool(name, patterns)
        if tool is not None and (db.parent / name).is_file():
            found.append((db.parent / name, tool))
    return found
