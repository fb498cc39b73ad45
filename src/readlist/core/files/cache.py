"""Files in the user cache directory: derived data that is rebuilt when missing, stale or damaged.

Writes are atomic (a reader sees the old file or the new one) but not durable: losing a cache file
to a crash only costs the next run the time to rebuild it.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from .atomic import TEMP_SUFFIX, atomic_write_bytes

STALE_TEMP = 3600  # seconds: a temporary file this old was left by a crash, not being written now


def cache_dir(name: str) -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("readlist") / name


class Keyed(Protocol):
    """What a cache key reads of a paper (the files layer knows no paper model)."""

    id: str
    given_title: str | None


def papers_key(header: str, papers: Iterable[Keyed]) -> str:
    """A cache file's name: `header` (what the file holds, in which version) and the papers' content,
    their ids (hashes of each abstract) and their given titles (a sidecar's or a BibTeX entry's title is
    not part of the id, and a paper with one has no derived title)."""
    digest = hashlib.blake2b(f"{header}\n".encode(), digest_size=16)
    for paper in papers:
        digest.update(f"{paper.id}\t{paper.given_title}\n".encode() if paper.given_title else f"{paper.id}\n".encode())
    return digest.hexdigest()


def write_atomic(path: Path, chunks: Iterable[bytes | memoryview]) -> None:
    atomic_write_bytes(path, chunks, durable=False)


def prune(directory: Path, pattern: str, keep: int) -> None:
    """Remove all but the `keep` most recently written files matching `pattern`, and the temporary files
    a crash or a kill left behind."""
    try:
        files = sorted(directory.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    stale = time.time() - STALE_TEMP
    for temp in directory.glob(f".*{TEMP_SUFFIX}"):
        try:
            if temp.stat().st_mtime < stale:
                temp.unlink()
        except OSError:  # gone meanwhile, or not ours to remove
            pass
