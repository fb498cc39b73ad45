"""Reading a large UTF-8 text paper file in two halves at once, on Linux: a process forked for it reads the second
half, from the first paragraph starting after the file's middle, while this one reads the first; what it found
comes back through a pipe and is joined to this half's as if the file was read whole in one go.

The list and its layout are the ones reading it whole gives, for every file: both halves are read by the same code
(reader.read_part), the second without a header line or a byte-order mark; its papers that the first half already
has are duplicates, its paragraph numbers and places go on from the first half's, and whether the file has title
lines is decided from both halves' counts. Anything else is read whole as before: another system, a small file,
another encoding, no break between paragraphs near the middle. A process that fails, in any way (an error, killed,
data cut short, too slow), has its half read here; a half that cannot be read (not UTF-8, a NUL byte) has the whole
file read again, so that it fails with the message reading it whole gives.
"""

from __future__ import annotations

import marshal
import mmap
import os
import re
import select
import signal
import sys
import time
from contextlib import suppress
from itertools import pairwise
from pathlib import Path

from .paper import PaperList
from .reader import Layout, laid_out, read_part
from .source import ReadError, not_utf8
from .source import read_part as part_text

FORKS = sys.platform == "linux"  # forked here only: elsewhere a fork may leave a library's lock held
MIN_BYTES = 16 << 20  # a smaller file is read whole (see bench/README.md, "The 100k cold start's list")
SHARE = 0.55  # of the file's bytes read here: the other process also writes what it found, and is slower to start
WINDOW = 1 << 20  # bytes after that share where a break between paragraphs is looked for
WAIT_AT_LEAST = 1.0  # seconds the second half is waited for, at least, once the first is read...
WAIT_TIMES = 2.0  # ...or this many times as long as the first half took, if longer: then it is read here
_FRAME = 8  # bytes of each frame's length (what the child found is frames of marshalled data), and of its sum
_BATCH = 4096  # papers a frame

# A run of blank lines in the file's bytes (reader._BLANK_SPLIT's, before "\r\n" and "\r" become "\n"; a "\r\n" is
# one line break, never two): where it ends, a paragraph starts.
_BLANK_RUN = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:(?:[ \t\f\v]|\xc2\xa0|\xe3\x80\x80)*(?:\r\n|\r(?!\n)|\n))+")


def read(path: Path) -> tuple[PaperList, Layout] | None:
    """The papers of the UTF-8 text file at `path` and their layout, as `reader.parse_laid_out` finds them in its
    text; None when it is not read in halves here (see the module's docstring): the caller reads it whole."""
    if not FORKS:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        cut = _middle(fd)
        return _read(path, fd, cut) if cut is not None else None
    finally:
        os.close(fd)


def _middle(fd: int) -> int | None:
    """Where the first paragraph after the middle of the file open as `fd` starts: None for a small file, one that
    a byte-order mark or a NUL byte says is not UTF-8, or one without a blank line in the WINDOW after its middle."""
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, 4096, 0)
        middle = int(size * SHARE)
        window = os.pread(fd, WINDOW, middle) if size >= MIN_BYTES else b""
    except OSError:
        return None
    if not window or not_utf8(head):
        return None
    for run in _BLANK_RUN.finditer(window):
        # The run ends here unless the window does: a line break further on shows that it could not go on.
        if max(window.find(b"\n", run.end()), window.find(b"\r", run.end())) != -1:
            return middle + run.end()
    return None


def _read(path: Path, fd: int, cut: int) -> tuple[PaperList, Layout] | None:
    """Both halves read, the second by a process forked if one can be; None if either cannot be read."""
    source = str(path)
    child = _fork(path, fd, cut)
    try:
        began = time.monotonic()
        first = read_part(part_text(path, fd, 0, cut), source)
        found = _received(child, max(WAIT_AT_LEAST, WAIT_TIMES * (time.monotonic() - began))) if child else None
        child = _ended(child, kill=found is None)
        if found is None:  # its process failed, or none could be forked: read here
            found = read_part(part_text(path, fd, cut), source, first=False).found()
        first.extend(found)
    except ReadError:
        return None
    finally:
        _ended(child, kill=True)
    return laid_out(first, source)


def _fork(path: Path, fd: int, cut: int) -> tuple[int, int, int] | None:
    """A process reading the file's text from `cut` on (through `fd`): it writes what it found to a file in memory,
    then how long that is to a pipe. Its id, the pipe's end to read and the file in memory; None when none can be
    forked now."""
    try:
        memory = os.memfd_create("readlist-half", os.MFD_CLOEXEC)
    except (OSError, AttributeError):
        return None
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for end in (memory, read, write):
            os.close(end)
        return None
    if pid:
        os.close(write)
        return pid, read, memory
    status = 1
    try:  # the child: whatever happens, it ends here, running none of the program's exit handlers
        with suppress(ValueError):  # a Ctrl+C is the program's to answer (it ends the child)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        nowhere = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(nowhere, std)
        kept = sorted((fd, memory, write))  # the paper file, its answer's file and pipe: all else is the program's
        for low, high in pairwise([2, *kept, os.sysconf("SC_OPEN_MAX")]):
            os.closerange(low + 1, high)
        size = _write(memory, read_part(part_text(path, fd, cut), str(path), first=False).found())
        os.write(write, size.to_bytes(_FRAME, "little"))
        status = 0
    finally:
        os._exit(status)


def _write(fd: int, found: tuple) -> int:
    """What reading the second half found, written to the file `fd` in frames, each its length and its data
    marshalled: its papers a batch at a time (none held twice whole), then the rest. The bytes written."""
    kept, numbers, rest = found[5], found[6], (*found[:5], [], [], *found[7:])
    frames = [(kept[start : start + _BATCH], numbers[start : start + _BATCH]) for start in range(0, len(kept), _BATCH)]
    written = 0
    for frame in [*frames, rest]:
        data = marshal.dumps(frame)
        view = memoryview(len(data).to_bytes(_FRAME, "little") + data)
        while view:
            n = os.write(fd, view)
            view, written = view[n:], written + n
    return written


def _received(child: tuple[int, int, int], wait: float) -> tuple | None:
    """What the child found, if it says within `wait` seconds that it has written it whole; None otherwise."""
    _, pipe, memory = child
    try:
        if not select.select([pipe], [], [], wait)[0]:
            return None
        said = os.read(pipe, _FRAME)
        if len(said) != _FRAME:  # its pipe closed first: it failed
            return None
        size = int.from_bytes(said, "little")
        if not size or os.fstat(memory).st_size != size:
            return None
        with mmap.mmap(memory, size, access=mmap.ACCESS_READ) as mapped:
            return _frames(memoryview(mapped))
    except (OSError, ValueError):
        return None


def _frames(data: memoryview) -> tuple | None:
    """What `_write` wrote in `data` (released once read); None when it is not what it writes."""
    kept: list = []
    numbers: list = []
    rest: tuple = ()
    at = 0
    with data:
        try:
            while at < len(data):
                size = int.from_bytes(data[at : at + _FRAME], "little")
                at += _FRAME
                if at + size > len(data) or rest:  # cut short, or more after the rest (the last frame)
                    return None
                frame = marshal.loads(data[at : at + size])
                at += size
                if len(frame) == 2:
                    kept += frame[0]
                    numbers += frame[1]
                else:
                    rest = frame
        except (EOFError, ValueError, TypeError):
            return None
    found = (*rest[:5], kept, numbers, *rest[7:])
    return found if _shaped(found) else None


def _shaped(found: tuple) -> bool:
    """Does `found` have the shape `_Read.found` gives it (a process that wrote something else is not believed)?
    Each paper's id, text and title line's length are not looked at: marshal gives back the types it was given."""
    if len(found) != 10 or {type(n) for n in (*found[:5], found[9])} != {int}:
        return False
    kept, numbers, starts, sizes = found[5:9]
    return (
        len(kept) == len(numbers)
        and set(map(type, numbers)) <= {int}
        and set(map(type, kept)) <= {tuple}
        and set(map(len, kept)) <= {3}
        and type(starts) is type(sizes) is bytes
        and len(starts) == len(sizes)
    )


def _ended(child: tuple[int, int, int] | None, kill: bool = False) -> None:
    """The child's files closed and its end waited for (killed first if `kill`); None, to forget it by."""
    if child is None:
        return None
    pid, pipe, memory = child
    os.close(pipe)
    os.close(memory)
    if kill:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with suppress(ChildProcessError):
        os.waitpid(pid, 0)
    return None
