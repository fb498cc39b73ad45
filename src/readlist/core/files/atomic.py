"""Writing a file so that a crash leaves either the old file or the new one, never half of it.

The file is written to a temporary file in the same directory and renamed over the old one. A durable
write (the database, backups, exports) also fsyncs the file and the directory; a cache need not.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700
TEMP_SUFFIX = ".tmp"

Signature = tuple[int, int, int, int] | None


def signature(path: Path) -> Signature:
    """(inode, size, mtime, ctime) of a file, None when it does not exist."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def mode_of(path: Path, default: int) -> int:
    """The permissions of the file `path` that a write replaces (as its user left them), else `default`."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return default


def ensure_dir(directory: Path) -> None:
    """Make `directory` and any missing folder above it private (0700, whatever the umask): they hold notes."""
    if directory.is_dir():
        return
    missing = [directory, *(parent for parent in directory.parents if not parent.exists())]
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass
        else:
            os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask


def temp_prefix(path: Path) -> str:
    return f".{path.name}."


def atomic_write_bytes(
    path: Path,
    data: bytes | Iterable[bytes | memoryview],
    *,
    mode: int = FILE_MODE,
    overwrite: bool = True,
    make_dir: bool = True,
    durable: bool = True,
) -> None:
    """Write `path` (bytes, or chunks of them) so that a crash leaves either the old file or the new one.

    Without `overwrite`, FileExistsError is raised if the file exists, also when it appears while writing.
    Without `durable` nothing is fsynced: for files that can be made again (caches).
    """
    directory = path.parent
    if make_dir:
        ensure_dir(directory)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=temp_prefix(path), suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in [data] if isinstance(data, bytes) else data:
                handle.write(chunk)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        if overwrite:
            os.replace(tmp, path)
        else:
            _publish_new(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)
    if durable:
        fsync_dir(directory)


def _publish_new(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)  # fails if the file appeared meanwhile
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.replace(tmp, path)  # file systems without hard links


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # some platforms cannot open a directory; the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(path: Path) -> None:
    """Temp files left by a writer that was killed. Call only while holding the database lock."""
    prefix = temp_prefix(path)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix) and name.endswith(TEMP_SUFFIX):
            try:
                os.unlink(path.parent / name)
            except OSError:
                pass
