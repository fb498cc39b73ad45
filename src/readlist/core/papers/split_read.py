"""Reading a large UTF-8 text paper file by two processes at once, on Linux: the file is cut into parts of a few
megabytes where paragraphs start, and a process forked for it takes parts from a queue as this one does, writing
what it found in each to a file in memory; this one joins them all in their order as if the file was read whole.

The list and its layout are the ones reading it whole gives, for every file: every part is read by the same code
(reader.read_part), the first with a header line and a byte-order mark, the others without; the papers of a part
that an earlier one already has are duplicates, paragraph numbers and places go on from the part before, and
whether the file has title lines is decided from all parts' counts. Taking parts from a queue, each process reads
as many as it can: when another program keeps the other core busy, the forked process reads few of them, and the
app is not left waiting for a half read slowly. Anything else is read whole as before: another system, a small
file, another encoding, no break between paragraphs where the parts would start. A process that fails, in any way
(an error, killed, what it wrote cut short, too slow), has its parts read here; a part that cannot be read (not
UTF-8, a NUL byte) has the whole file read again, so that it fails with the message reading it whole gives.
"""

from __future__ import annotations

import marshal
import mmap
import os
import re
import select
import signal
import stat
import sys
import time
from contextlib import suppress
from itertools import pairwise
from pathlib import Path

from .paper import PaperList
from .reader import Layout, laid_out, read_part
from .source import FilePart, ReadError, not_utf8

FORKS = sys.platform == "linux"  # forked here only: elsewhere a fork may leave a library's lock held
MIN_BYTES = 16 << 20  # a smaller file is read whole (see bench/README.md, "The 100k cold start's list")
PART_BYTES = 4 << 20  # a part's bytes, about: 30 ms of reading, the most either process waits for the other
WINDOW = 1 << 16  # bytes after a part's place where the blank line before its first paragraph is looked for
WAIT_AT_LEAST = 1.0  # seconds the forked process's last part is waited for, at least, once the queue is empty...
WAIT_TIMES = 3.0  # ...or this many times as long as the slowest part read here took: then it is read here
_NUMBER = 4  # bytes of a part's number in the queue
_FRAME = 8  # bytes of each frame's length (what the forked process found is frames of marshalled data), and of its sum
_BATCH = 4096  # papers a frame
_LET_GO = 4 << 20  # bytes of frames read before their pages are let go

# A run of blank lines in the file's bytes (reader._BLANK_SPLIT's, before "\r\n" and "\r" become "\n"; a "\r\n" is
# one line break, never two): where it ends, a paragraph starts.
_BLANK_RUN = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:(?:[ \t\f\v]|\xc2\xa0|\xe3\x80\x80)*(?:\r\n|\r(?!\n)|\n))+")


def read(path: Path) -> tuple[PaperList, Layout] | None:
    """The papers of the UTF-8 text file at `path` and their layout, as `reader.parse_laid_out` finds them in its
    text; None when it is not read by two processes here (see the module's docstring): the caller reads it whole."""
    if not FORKS:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (a pipe put in its place since is not waited on)
    except OSError:
        return None
    try:
        starts = _starts(fd)
        return _read(path, fd, starts) if starts is not None else None
    finally:
        os.close(fd)


def _starts(fd: int) -> list[int] | None:
    """Where the parts of the file open as `fd` start (the first at 0): each other at the first paragraph after a
    multiple of PART_BYTES, if one starts in the WINDOW after it. None for a small file, one that a byte-order mark
    or a NUL byte says is not UTF-8, or one cut nowhere."""
    try:
        status = os.fstat(fd)
        size = status.st_size
        if not stat.S_ISREG(status.st_mode) or size < MIN_BYTES or not_utf8(os.pread(fd, 4096, 0)):
            return None
        starts, step = [0], max(PART_BYTES, size // 4096)  # (the queue of a huge file's parts fits a pipe's room)
        for place in range(step, size, step):
            window = os.pread(fd, WINDOW, place)
            for run in _BLANK_RUN.finditer(window):
                # The run ends here unless the window does: a line break further on shows that it could not go on.
                if max(window.find(b"\n", run.end()), window.find(b"\r", run.end())) != -1:
                    starts.append(place + run.end())
                    break
    except OSError:
        return None
    return starts if len(starts) > 1 else None


def _read(path: Path, fd: int, starts: list[int]) -> tuple[PaperList, Layout] | None:
    """Every part read, by the process forked if one can be and by this one; None if one cannot be read."""
    source = str(path)
    queue = _queue(len(starts))
    child = _fork(path, fd, starts, queue) if queue is not None else None
    found: dict[int, tuple] = {}
    try:
        head = FilePart(path, fd, 0, starts[1])
        first = read_part(head.text(), source)
        slowest = 0.0
        while queue is not None and (n := _next(queue)) is not None:
            began = time.monotonic()
            found[n] = _part(path, fd, starts, n)
            slowest = max(slowest, time.monotonic() - began)
        if child is not None:
            found.update(_received(child, max(WAIT_AT_LEAST, WAIT_TIMES * slowest)) or {})
            child = _ended(child, kill=len(found) < len(starts) - 1)
        crc = head.crc
        for n in range(1, len(starts)):
            if n not in found:  # the forked process failed, or none could be forked: read here
                found[n] = _part(path, fd, starts, n)
            part, part_crc, length = found.pop(n)
            first.extend(part)
            crc = crc32_combine(crc, part_crc, length)
    except ReadError:
        return None
    finally:
        _ended(child, kill=True)
        if queue is not None:
            os.close(queue)
    papers, layout = laid_out(first, source)
    layout.crc = crc
    return papers, layout


def _part(path: Path, fd: int, starts: list[int], n: int) -> tuple[tuple, int, int]:
    """What reading part `n` (not the first) of the file open as `fd` found, as plain data (`_Read.found`), and its
    bytes' CRC-32 and length."""
    part = FilePart(path, fd, starts[n], starts[n + 1] if n + 1 < len(starts) else None)
    return read_part(part.text(), str(path), first=False, at=starts[n]).found(), part.crc, part.length


def _queue(count: int) -> int | None:
    """A pipe holding the numbers of the parts after the first, to read from (its other end closed: once they are all
    taken, it is at its end); None when there is no pipe to be had."""
    try:
        out, into = os.pipe()
    except OSError:
        return None
    try:
        os.write(into, b"".join(n.to_bytes(_NUMBER, "little") for n in range(1, count)))  # a few hundred bytes
    except OSError:
        os.close(out)
        return None
    finally:
        os.close(into)
    return out


def _next(queue: int) -> int | None:
    """The number of the next part to read, taken from the queue (each read of a pipe takes its bytes whole: no two
    processes take the same part); None once they are all taken."""
    taken = os.read(queue, _NUMBER)
    return int.from_bytes(taken, "little") if len(taken) == _NUMBER else None


def _fork(path: Path, fd: int, starts: list[int], queue: int) -> tuple[int, int, int] | None:
    """A process reading the parts it takes from the queue (through `fd`): it writes what it found in each to a file in
    memory, then, once the queue is empty, how long that is to a pipe. Its id, the pipe's end to read and the file
    in memory; None when none can be forked now."""
    try:
        memory = os.memfd_create("readlist-parts", os.MFD_CLOEXEC)
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
    try:  # the forked process: whatever happens, it ends here, running none of the program's exit handlers
        with suppress(ValueError):  # a Ctrl+C is the program's to answer (it ends this process)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        nowhere = os.open(os.devnull, os.O_RDWR)
        for std in (0, 1, 2):
            os.dup2(nowhere, std)
        kept = sorted((fd, queue, memory, write))  # the paper file, the queue, its answer: all else is the program's
        for low, high in pairwise([2, *kept, os.sysconf("SC_OPEN_MAX")]):
            os.closerange(low + 1, high)
        size = 0
        while (n := _next(queue)) is not None:
            size += _write(memory, n, _part(path, fd, starts, n))
        os.write(write, size.to_bytes(_FRAME, "little"))
        status = 0
    finally:
        os._exit(status)


def _write(fd: int, n: int, part: tuple[tuple, int, int]) -> int:
    """What reading part `n` found and its bytes' CRC-32 and length (`part`), written to the file `fd` in frames,
    each its length and its data marshalled: its papers a batch at a time (none held twice whole), then the rest.
    The bytes written."""
    found, crc, length = part
    kept, numbers, rest = found[5], found[6], (*found[:5], [], [], *found[7:])
    frames = [(n, kept[at : at + _BATCH], numbers[at : at + _BATCH]) for at in range(0, len(kept), _BATCH)]
    written = 0
    for frame in [*frames, (n, rest, crc, length)]:
        data = marshal.dumps(frame)
        view = memoryview(len(data).to_bytes(_FRAME, "little") + data)
        while view:
            size = os.write(fd, view)
            view, written = view[size:], written + size
    return written


def _received(child: tuple[int, int, int], wait: float) -> dict[int, tuple[tuple, int, int]] | None:
    """What the forked process found in each part it read, if it says within `wait` seconds that it has written it
    all; None otherwise."""
    _, pipe, memory = child
    try:
        if not select.select([pipe], [], [], wait)[0]:
            return None
        said = os.read(pipe, _FRAME)
        if len(said) != _FRAME:  # its pipe closed first: it failed
            return None
        size = int.from_bytes(said, "little")
        if not size:  # it read no part
            return {}
        if os.fstat(memory).st_size != size:
            return None
        with mmap.mmap(memory, size, access=mmap.ACCESS_READ) as mapped:
            return _frames(mapped)
    except (OSError, ValueError):
        return None


def _frames(mapped: mmap.mmap) -> dict[int, tuple[tuple, int, int]] | None:
    """What `_write` wrote in the file mapped as `mapped`, by part; None when it is not what `_write` writes. Each
    frame's pages are let go once it is read (the 50 MB at 100k papers would be the app's at once, beside the texts
    made of them)."""
    parts: dict[int, tuple[tuple, int, int]] = {}
    kept: list = []
    numbers: list = []
    at = done = 0
    try:
        with memoryview(mapped) as data:
            while at < len(data):
                size = int.from_bytes(data[at : at + _FRAME], "little")
                at += _FRAME
                if at + size > len(data):  # cut short
                    return None
                frame = marshal.loads(data[at : at + size])
                at += size
                if at - done >= _LET_GO:
                    mapped.madvise(mmap.MADV_DONTNEED, done, at - at % mmap.PAGESIZE - done)
                    done = at - at % mmap.PAGESIZE
                if len(frame) == 3:
                    kept += frame[1]
                    numbers += frame[2]
                    continue
                n, rest, crc, length = frame  # a part's last frame
                if type(crc) is not int or type(length) is not int:
                    return None
                parts[n] = ((*rest[:5], kept, numbers, *rest[7:]), crc, length)
                kept, numbers = [], []
    except (EOFError, ValueError, TypeError):
        return None
    return parts if not kept and all(_shaped(found) for found, _, _ in parts.values()) else None


def _shaped(found: tuple) -> bool:
    """Does `found` have the shape `_Read.found` gives it (a process that wrote something else is not believed)?
    Each paper's id, text and title line's length are not looked at: marshal gives back the types it was given."""
    if len(found) != 11 or {type(n) for n in (*found[:5], *found[9:])} != {int}:
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


# CRC-32 of two parts of bytes from theirs (zlib's crc32_combine, which Python's zlib leaves out): the first's is
# carried over the second's length by multiplying it by x to the power of that many bits, modulo the polynomial.
_POLY = 0xEDB88320


def crc32_combine(crc1: int, crc2: int, length2: int) -> int:
    """The CRC-32 of bytes A then B, of A's `crc1` and B's `crc2` and `length2` (zlib.crc32 of A + B)."""
    return _times(_x_to_the(length2 * 8), crc1) ^ crc2


def _times(a: int, b: int) -> int:
    """a times b modulo the polynomial (bits reflected, as zlib has them); `a` is not 0."""
    m, p = 1 << 31, 0
    while True:
        if a & m:
            p ^= b
            if not a & (m - 1):
                return p
        m >>= 1
        b = (b >> 1) ^ _POLY if b & 1 else b >> 1


def _x_to_the(bits: int) -> int:
    """x to the power `bits` modulo the polynomial, from x to the powers of two (a step for each bit of `bits`)."""
    p, k = 1 << 31, 0  # x to the 0
    while bits:
        if bits & 1:
            p = _times(_X_2_TO_THE[k], p)
        bits >>= 1
        k += 1
    return p


_X_2_TO_THE = [1 << 30]  # x to the 2 to the k, for k from 0
for _ in range(63):
    _X_2_TO_THE.append(_times(_X_2_TO_THE[-1], _X_2_TO_THE[-1]))


def _ended(child: tuple[int, int, int] | None, kill: bool = False) -> None:
    """The forked process's files closed and its end waited for (killed first if `kill`); None, to forget it by."""
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
