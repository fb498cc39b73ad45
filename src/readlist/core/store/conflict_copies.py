"""Conflict copies a file-sync tool leaves beside the database, merged into it and moved to `merged/`.

When two machines change a synced database before they hear from each other, the sync tool keeps one version
under the database's name and the other under a name of its own, beside it (for `readlist.json`):

    Syncthing   readlist.sync-conflict-20261204-101500-ABCDEF7.json
    Dropbox     readlist (conflicted copy 2026-12-04).json, readlist (Jane's conflicted copy 2026-12-04).json
    Nextcloud   readlist (conflicted copy 2026-12-04 101500).json (and ownCloud; its older clients:
                readlist_conflict-20261204-101500.json)
    OneDrive    readlist-DESKTOP-AB12CDE.json (the machine's name: capitals, digits and hyphens, 15 at most)

Each copy found is merged into the database by `readlist merge`'s rules (the database backed up first, as a merge
is), then moved, never deleted, into the folder `merged/` beside it (a name taken there gets `~2`, `~3`, …), so the
next look finds nothing: merging is done once. A copy that cannot be merged (not a readlist database, a newer
readlist's) is left where it is and said once, until it changes. A OneDrive name is only a guess (`readlist-OLD.json`
may be a copy of your own), so such a file that is no readlist database is passed over without a word. None of
readlist's own files beside the database (`NAME.json.lock`, `NAME.json.bak-…`, `NAME.json.corrupt-…`,
`.NAME.json.….tmp`, `NAME.ui.json`, `NAME.drafts/`) has one of these names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from filelock import Timeout

from ..files.atomic import Signature, ensure_dir, signature
from .conflict_names import conflict_copies
from .merge import MergeReport
from .merge_file import MergeError, merge_database
from .opening import why
from .store import Store

MERGED_FOLDER = "merged"


def _moved(copy: Path) -> Path:
    """Move the copy into `merged/` beside it, under a name not taken there; its new path. Raises OSError."""
    folder = copy.parent / MERGED_FOLDER
    ensure_dir(folder)
    target, n = folder / copy.name, 1
    while os.path.lexists(target):
        n += 1
        target = folder / f"{copy.stem}~{n}{copy.suffix}"
    os.rename(copy, target)
    return target


@dataclass
class Outcome:
    """What one look for conflict copies did: one line saying what was merged (None: nothing), one line each for what
    was left or could not be read, and whether the database changed."""

    merged: str | None = None
    lines: list[str] = field(default_factory=list)
    changed: bool = False

    def said(self) -> list[str]:
        return [*self.lines, *([self.merged] if self.merged else [])]


class ConflictCopies:
    """Looks for conflict copies and merges them into a store's database; remembers the copies it left (as they
    were then), so that each is said once."""

    def __init__(self) -> None:
        self._left: dict[Path, Signature] = {}
        self._waiting: set[Path] = set()  # copies not merged yet for a passing reason (the lock held): said once

    def merge_into(self, store: Store) -> Outcome:
        """Merge every conflict copy beside the store's database into it, moving each into `merged/`."""
        outcome = Outcome()
        merged: list[tuple[Path, str, MergeReport]] = []
        for copy, tool in conflict_copies(store.file_path):
            seen = signature(copy)
            if self._left.get(copy) == seen:
                continue
            notices: list[str] = []
            try:
                report = merge_database(store.file_path, copy, store=store, on_notice=notices.append)
            except MergeError as exc:
                self._left[copy] = seen
                if tool != "OneDrive" or "newer readlist" in str(exc):
                    outcome.lines.append(f"{exc}; a {tool} conflict copy, left where it is (not merged)")
                continue
            except (OSError, Timeout) as exc:  # tried again on the next look
                if copy not in self._waiting:
                    self._waiting.add(copy)
                    problem = why(exc, copy)
                    outcome.lines.append(f"{copy}: a {tool} conflict copy, not merged yet ({problem}); trying again")
                continue
            self._waiting.discard(copy)
            outcome.lines += notices
            outcome.changed = outcome.changed or report.changed
            try:
                moved = _moved(copy)
            except OSError as exc:
                self._left[copy] = seen
                outcome.lines.append(f"{copy}: merged, but could not be moved to {MERGED_FOLDER}/ ({exc.strerror})")
                continue
            merged.append((moved, tool, report))
        if merged:
            outcome.merged = _said(merged, store.file_path)
        return outcome


def _said(merged: list[tuple[Path, str, MergeReport]], db: Path) -> str:
    """One line saying which copies were merged into `db`, what they changed, and where they are now."""
    changes = sum(len(report.changes) for _, _, report in merged)
    papers = len({change.paper for _, _, report in merged for change in report.changes})
    conflicts = sum(len(report.conflicts) for _, _, report in merged)
    what = f"{changes} change(s) to {papers} paper(s)" if changes else "nothing new"
    if conflicts:
        what += f", {conflicts} note(s) edited on both sides (both texts kept, tagged conflict)"
    if len(merged) == 1:
        moved, tool, _ = merged[0]
        copies = f"the {tool} conflict copy {moved.name!r}"
    else:
        tools = ", ".join(dict.fromkeys(tool for _, tool, _ in merged))
        copies = f"{len(merged)} conflict copies ({tools})"
    folder = merged[0][0].parent
    return f"Merged {copies} into {db.name}: {what}; moved to {folder}"
