"""Writing an export to a file: never over readlist's own files, through a descriptor the path names
(`/dev/stdout`, a file standard output appends to), and atomically with the replaced file's permissions."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

from ..files.atomic import FILE_MODE, atomic_write_bytes, mode_of
from ..files.paths import ui_state_path
from ..store.drafts import drafts_dir


class ExportExistsError(FileExistsError):
    """The target file exists and overwriting was not asked for."""


def own_file(path: str | os.PathLike[str], database: Path, papers: Path | None = None) -> str | None:
    """What `path` is when it is one of readlist's own files, which an export never replaces (not even when
    told to overwrite): the database, its lock file, a copy of it kept beside it, the UI-state file and note
    drafts named after it, or the paper file read.
    None for any other file. A link to one of them, or another name of it, counts as that file.
    """
    db = Path(os.path.realpath(database))
    if _names(path, db):
        return "the annotation database"
    if _names(path, db.with_name(db.name + ".lock")):
        return "the annotation database's lock file"
    real = Path(os.path.realpath(path))
    if real.parent == db.parent and real.name.startswith((f"{db.name}.bak-", f"{db.name}.corrupt-")):
        return "a copy of the annotation database kept beside it"
    if _names(path, ui_state_path(db)) or _names(path, ui_state_path(Path(database))):
        return "the UI-state file beside the annotation database"
    drafts = {drafts_dir(db), drafts_dir(Path(os.path.abspath(database)))}
    if real in drafts or real.parent in drafts:
        return "the note drafts kept beside the annotation database"
    if papers is not None and _names(path, Path(os.path.realpath(papers))):
        return "the paper file being read"
    return None


def _names(path: str | os.PathLike[str], real: Path) -> bool:
    """`path` leads to the file whose resolved name is `real`: by its own resolved name, or (a hard link,
    /dev/fd/N) by being the same file on disk."""
    if Path(os.path.realpath(path)) == real:
        return True
    try:
        return os.path.samefile(path, real)
    except OSError:  # either does not exist
        return False


# Names of this process's open files. Opening one would start a new file description: it would truncate a file
# standard output appends to (`>> notes`), and resolving it leads to names such as pipe:[1234] that do not exist.
_STANDARD_STREAMS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR_NAME = re.compile(r"/(?:dev/fd|proc/self/fd|proc/thread-self/fd|proc/(?P<pid>[0-9]+)/fd)/(?P<fd>[0-9]+)")


def descriptor_of(path: str | os.PathLike[str]) -> int | None:
    """The open file descriptor of this process that `path` names: /dev/stdout (1), /dev/stderr (2),
    /dev/fd/N and /proc/self/fd/N (N, or -1 when N is too large to be open), or 1 for any name of the file
    standard output goes to; else None."""
    name = os.fspath(path)
    if name in _STANDARD_STREAMS:
        return _STANDARD_STREAMS[name]
    match = _DESCRIPTOR_NAME.fullmatch(name)
    if match and match["pid"] in (None, str(os.getpid())):
        digits = match["fd"].lstrip("0") or "0"
        return int(digits) if len(digits) <= 9 else -1  # past any descriptor: writing it fails with EBADF
    try:
        return 1 if os.path.samestat(os.stat(name), os.fstat(1)) else None
    except OSError:  # no such file, or no standard output
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_atomic(path: str | os.PathLike[str], text: str, force: bool = False) -> Path:
    """Write `text` (UTF-8, line endings as given) so readers see the old file or the new one, never half.

    Without `force` an existing file is left alone and ExportExistsError is raised, also when
    the file appears while writing. Nothing is replaced, so `force` is not needed, when `path` names an open
    file of this process (see descriptor_of), written through its descriptor, or a file that is not a
    regular one (a pipe, a terminal), written into.
    """
    data = text.encode("utf-8")
    fd = descriptor_of(path)
    if fd is not None:
        _write_all(fd, data)
        return Path(path)
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(target))
    if target.exists() and not target.is_file():
        with open(target, "wb") as stream:
            stream.write(data)
        return target
    if target.is_symlink():
        target = target.resolve()  # write the file the link points to; the link stays
    if not force and os.path.lexists(target):
        raise ExportExistsError(f"{target}: already exists (use --force to overwrite)")
    try:  # an export is the user's file: its permissions kept (a new one private: it holds notes), no folders made
        atomic_write_bytes(target, data, mode=mode_of(target, FILE_MODE), overwrite=force, make_dir=False)
    except FileExistsError:
        raise ExportExistsError(f"{target}: already exists (use --force to overwrite)") from None
    return target
