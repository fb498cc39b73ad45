"""Files in the user cache directory: derived data that is rebuilt when missing, stale or damaged.

Writes are atomic (a reader sees the old file or the new one) but not durable: losing a cache file
to a crash only costs the next run the time to rebuild it. A write refused (a read-only or full directory) leaves
what it would have saved in memory only; the refusals are kept (see refusals) for a program to say so.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from operator import attrgetter
from pathlib import Path
from typing import Protocol

from .atomic import TEMP_SUFFIX, atomic_write_bytes

STALE_TEMP = 3600  # seconds: a temporary file this old was left by a crash, not being written now
_refusals: list[tuple[Path, OSError]] = []  # every cache write refused in this process, first first


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
    papers = papers if isinstance(papers, Sequence) else list(papers)
    if papers and not any(map(attrgetter("given_title"), papers)):  # each line an id: hashed at once (10 ms at 100k)
        digest.update("\n".join([paper.id for paper in papers]).encode())
        digest.update(b"\n")
        return digest.hexdigest()
    for paper in papers:
        digest.update(f"{paper.id}\t{paper.given_title}\n".encode() if paper.given_title else f"{paper.id}\n".encode())
    return digest.hexdigest()


def write_atomic(path: Path, chunks: Iterable[bytes | memoryview]) -> None:
    """Write a cache file; an OSError is raised as it comes, and kept among the refusals."""
    try:
        atomic_write_bytes(path, chunks, durable=False)
    except OSError as exc:
        _refusals.append((path, exc))
        raise


def refusals() -> list[tuple[Path, OSError]]:
    """The cache files whose writing was refused in this process so far, with why, first first."""
    return list(_refusals)


def refusal_message(path: Path, error: OSError) -> str:
    """One line saying that a cache directory cannot be written, and what that costs."""
    reason = error.strerror or str(error) or type(error).__name__
    return (
        f"{path.parent}: cannot write the cache ({reason}); the search index and titles are kept in memory "
        "and made again at the next start"
    )


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
