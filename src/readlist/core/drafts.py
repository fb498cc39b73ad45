"""Unsaved notes: what the note dialog holds is kept on disk while the dialog is open, so a closed
terminal, a dropped connection or a crash does not lose a note being written.

One small file per paper in `NAME.drafts/` beside the database; it goes once the note is saved or
discarded, and the next time the paper's note is opened the dialog starts from it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .atomic_files import atomic_write_bytes

_ID = re.compile(r"[0-9a-f]{12}")


def drafts_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.stem + ".drafts")


class Drafts:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, paper_id: str) -> Path:
        if not _ID.fullmatch(paper_id):
            raise ValueError(f"not a paper id: {paper_id!r}")
        return self.directory / f"{paper_id}.md"

    def save(self, paper_id: str, text: str) -> bool:
        """Keep `text` as the paper's draft; False when it could not be written (a full disk, no access)."""
        try:
            atomic_write_bytes(self._path(paper_id), text.encode("utf-8", "surrogatepass"), durable=False)
        except OSError:
            return False
        return True

    def load(self, paper_id: str) -> str | None:
        try:
            return self._path(paper_id).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def discard(self, paper_id: str) -> None:
        try:
            self._path(paper_id).unlink(missing_ok=True)
        except OSError:
            pass

    def ids(self) -> list[str]:
        """The papers with a draft, oldest first."""
        try:
            files = [path for path in self.directory.glob("*.md") if _ID.fullmatch(path.stem)]
            return [path.stem for path in sorted(files, key=lambda path: path.stat().st_mtime)]
        except OSError:
            return []
