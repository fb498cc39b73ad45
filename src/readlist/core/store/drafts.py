"""Unsaved notes: what the note dialog holds is kept on disk while the dialog is open, so a closed
terminal, a dropped connection or a crash does not lose a note being written.

One small file per paper and readlist process in `NAME.drafts/` beside the database, holding the text
and the note it was started from. It goes once the note is saved or discarded. A draft is offered
again (the dialog starts from it) by the process that wrote it, or by any readlist once that process
has ended (on another machine: once it is OTHER_HOST_HOURS old); a draft another running readlist is
writing is its own, never offered nor removed here.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from ..files.atomic import atomic_write_bytes

_ID = re.compile(r"[0-9a-f]{12}")
_FILE = re.compile(r"(?P<id>[0-9a-f]{12})(?:\.(?P<pid>\d{1,10}))?\.(?P<kind>md|json)")


def drafts_dir(db_path: Path) -> Path:
    return db_path.with_name(db_path.stem + ".drafts")


@dataclass(frozen=True)
class Draft:
    paper_id: str
    text: str
    base: str | None  # the note when the edit began; None when not known (a draft of an older readlist)
    path: Path


OTHER_HOST_HOURS = 12  # a draft from another machine (a shared home) is taken as its own for this long


def _running(host: str, pid: int, path: Path) -> bool:
    """Is the readlist that wrote a draft still running? Unknowable on another machine (a home directory
    shared over the network): there, a draft written in the last OTHER_HOST_HOURS is taken as still open."""
    if host != socket.gethostname():
        return time.time() - _mtime(path) < OTHER_HOST_HOURS * 3600
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


class Drafts:
    def __init__(self, directory: Path, pid: int | None = None) -> None:
        self.directory = directory
        self.pid = os.getpid() if pid is None else pid

    def _path(self, paper_id: str) -> Path:
        if not _ID.fullmatch(paper_id):
            raise ValueError(f"not a paper id: {paper_id!r}")
        return self.directory / f"{paper_id}.{self.pid}.json"

    def save(self, paper_id: str, text: str, base: str | None = None) -> bool:
        """Keep `text`, edited from the note `base`, as this process's draft of the paper's note; False when
        it could not be written (a full disk, no access)."""
        record = {"host": socket.gethostname(), "pid": self.pid, "base": base, "text": text}
        data = json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogatepass")
        try:
            atomic_write_bytes(self._path(paper_id), data, durable=False)
        except OSError:
            return False
        return True

    def _read(self, path: Path) -> Draft | None:
        """The draft in `path` if it is ours to offer: this process's, or one whose writer has ended."""
        match = _FILE.fullmatch(path.name)
        if match is None:
            return None
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        if match["kind"] == "md":  # a draft of an older readlist: the text only
            return Draft(match["id"], raw.decode("utf-8", "replace"), None, path)
        try:
            record = json.loads(raw.decode("utf-8", "surrogatepass"))
            host, pid, text, base = record["host"], record["pid"], record["text"], record["base"]
        except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
            return Draft(match["id"], raw.decode("utf-8", "replace"), None, path)  # damaged: keep what it holds
        if not isinstance(text, str) or not isinstance(base, str | None):
            return None
        theirs = pid != self.pid or host != socket.gethostname()
        if theirs and isinstance(pid, int) and isinstance(host, str) and _running(host, pid, path):
            return None
        return Draft(match["id"], text, base, path)

    def _offered(self, paper_id: str) -> list[Draft]:
        """The paper's drafts this process may use, newest first."""
        try:
            paths = sorted(self.directory.glob(f"{paper_id}.*"), key=_mtime, reverse=True)
        except OSError:
            return []
        return [draft for path in paths if (draft := self._read(path)) is not None and draft.paper_id == paper_id]

    def load(self, paper_id: str) -> Draft | None:
        """The newest draft of the paper's note this process may use."""
        if not _ID.fullmatch(paper_id):
            raise ValueError(f"not a paper id: {paper_id!r}")
        offered = self._offered(paper_id)
        return offered[0] if offered else None

    def discard(self, paper_id: str) -> None:
        """Remove the paper's drafts this process may use (another running readlist's stay)."""
        for draft in self._offered(paper_id):
            try:
                draft.path.unlink(missing_ok=True)
            except OSError:
                pass

    def rename(self, old_id: str, new_id: str) -> None:
        """The paper's drafts this process may use, now under `new_id` (its text, and so its id, changed)."""
        self._path(new_id)  # a valid id
        for draft in self._offered(old_id):
            rest = draft.path.name[len(old_id) :]  # ".123.json" or ".md"
            for n in range(100):  # never over another draft: "ID.123.json", then "ID.1231.json", ...
                target = draft.path.with_name(new_id + (rest if n == 0 else f".{n}{rest}" if rest == ".md" else
                                                        rest.replace(".json", f"{n}.json", 1)))  # fmt: skip
                if not target.exists():
                    try:
                        draft.path.rename(target)
                    except OSError:
                        pass
                    break

    def ids(self) -> list[str]:
        """The papers with a draft this process may use, oldest first."""
        try:
            paths = sorted(self.directory.glob("*.*"), key=_mtime)
        except OSError:
            return []
        out: dict[str, None] = {}
        for path in paths:
            draft = self._read(path)
            if draft is not None:
                out[draft.paper_id] = None
        return list(out)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
