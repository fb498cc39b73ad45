"""Files in the user cache directory: derived data that is rebuilt when missing, stale or damaged.

Writing is atomic (a reader sees the old file or the new one) but not durable: losing a cache file
to a crash only costs the next run the time to rebuild it.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

STALE_PART = 3600  # seconds


def cache_dir(name: str) -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("readlist") / name


def write_atomic(path: Path, chunks: Iterable[bytes | memoryview]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def prune(directory: Path, pattern: str, keep: int) -> None:
    """Remove all but the `keep` most recently written files matching `pattern`, and the partial files
    a crash or a kill left behind (an hour old: another process may be writing one now)."""
    try:
        files = sorted(directory.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    stale = time.time() - STALE_PART
    for part in directory.glob(".part-*"):
        try:
            if part.stat().st_mtime < stale:
                part.unlink()
        except OSError:  # gone meanwhile, or not ours to remove
            pass
