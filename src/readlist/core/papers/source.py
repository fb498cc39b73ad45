"""A paper file's bytes and text: a regular file, a pipe or a device read safely (a pipe nobody writes into is
refused, an endless one stopped), decoded (UTF-8, a byte-order mark's UTF-16 or UTF-32, or a given encoding),
and whether the file changed since it was read."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
import time
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO

from ..files.paths import unreadable


class ReadError(Exception):
    """A paper file that cannot be read; the message is one line naming the file."""


_BOMS = (  # longest first: UTF-32 LE's mark starts with UTF-16 LE's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _bom_encoding(data: bytes) -> str | None:
    """UTF-16 or UTF-32, when `data` starts with its byte-order mark."""
    return next((name for bom, name in _BOMS if data.startswith(bom)), None)


def not_utf8(start: bytes) -> bool:
    """Do a file's first bytes say that it is not UTF-8 (a byte-order mark of UTF-16 or UTF-32, a NUL byte)?"""
    return bool(_bom_encoding(start)) or b"\x00" in start


_HEAD = 4096  # bytes of a file's start that tell UTF-16 without a byte-order mark


def _utf16_without_bom(data: bytes) -> str | None:
    """The UTF-16 a file without a byte-order mark seems to be in: most characters of Western text have a NUL
    byte beside them, always on the same side."""
    head = data[:_HEAD]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if odd > len(head) // 4 and even <= odd // 20:
        return "utf-16-le"
    if even > len(head) // 4 and odd <= even // 20:
        return "utf-16-be"
    return None


def _decode(path: Path, data: bytes, encoding: str | None) -> str:
    """A file's bytes as text: UTF-8, or what a byte-order mark says, or `encoding`. Raises ReadError."""
    if not encoding:
        encoding = _bom_encoding(data)
        if encoding:  # UTF-16 or UTF-32 as its byte-order mark says (the codec drops the mark)
            return _decode(path, data, encoding)
        if b"\x00" in data:
            raise _with_nul(path, data)
        try:
            return data.decode("utf-8")  # a UTF-8 byte-order mark goes in parse_text
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, data[exc.start], exc.start) from None
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ReadError(f"{path}: unknown encoding {encoding!r}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ReadError(f"{path}: not valid {encoding} at byte offset {exc.start}") from None
    except (LookupError, UnicodeError):  # base64, zlib: codecs, but not of text; 'undefined' refuses all
        raise ReadError(f"{path}: {encoding!r} is not a text encoding") from None
    surrogate = _LONE_SURROGATE.search(text)
    if surrogate:  # utf-7's '+2AA-', unicode_escape's '\ud800': half a character, which no text holds
        raise ReadError(
            f"{path}: read as {encoding}, character {surrogate.start() + 1} is half of a character "
            f"(U+{ord(surrogate.group()):04X}); the file is not valid {encoding}"
        )
    return text


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _with_nul(path: Path, data: bytes) -> ReadError:
    """A file read as UTF-8 holding a NUL byte, `data` its start."""
    if guess := _utf16_without_bom(data):
        return ReadError(
            f"{path}: contains NUL bytes, as UTF-16 text without a byte-order mark does; try --encoding {guess}"
        )
    return ReadError(f"{path}: looks like a binary file (contains NUL bytes), not a paper list")


def _not_utf8(path: Path, byte: int, at: int) -> ReadError:
    return ReadError(
        f"{path}: not UTF-8 (invalid byte 0x{byte:02x} at byte offset {at}); "
        "try --encoding NAME, e.g. --encoding latin-1"
    )


FIFO_WAIT = 10.0  # seconds a named pipe may go without a program opening it for writing
FIFO_POLL = 0.05  # seconds between looks for that program
STREAM_LIMIT = 2 << 30  # bytes read from a pipe or a device at most: an endless one is refused, not read forever
_CHUNK = 1 << 20


def read_bytes(path: Path, encoding: str | None = None) -> bytes:
    """The file's bytes; a pipe or a device is read to its end as text in `encoding` (None: UTF-8, or what a
    byte-order mark says), see _read_stream."""
    try:
        if path.is_dir():  # open() on a directory fails differently on each system
            raise IsADirectoryError(path)
        if stat.S_ISFIFO(os.stat(path).st_mode):
            return _read_fifo(path, encoding)
        with open(path, "rb") as handle:
            if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return handle.read()
            if handle.isatty():
                raise ReadError(f"{path}: is a terminal, not a paper file (give a file, or pipe one in)")
            return _read_stream(path, handle, encoding)
    except OSError as exc:
        raise ReadError(unreadable(path, exc, "paper file")) from None


def _read_fifo(path: Path, encoding: str | None) -> bytes:
    """A named pipe, `<(command)` or a piped standard input. Opening one for reading waits until a program
    opens it for writing, which may never happen: it is opened without waiting instead, and one that no program
    holds open for writing is given FIFO_WAIT seconds to gain one. Then it is read to its end, however long
    the program takes to write (`<(sort big.txt)`), as any reader of a pipe would."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        start = _first_bytes(path, fd)
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        return _read_stream(path, handle, encoding, start)


def _first_bytes(path: Path, fd: int) -> bytes:
    """The first bytes in a pipe opened without waiting, or b"" when a program holds it open for writing but
    has written nothing yet. An empty read means that no program holds it open for writing (yet)."""
    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            data = os.read(fd, _CHUNK)
        except BlockingIOError:  # empty, with a writer: what comes is waited for
            return b""
        if data:
            return data
        if time.monotonic() >= deadline:
            raise ReadError(f"{path}: nothing was written into this pipe within {FIFO_WAIT:g} s; nothing read")
        time.sleep(FIFO_POLL)


def _read_stream(path: Path, handle: BinaryIO, encoding: str | None, start: bytes = b"") -> bytes:
    """A device or a pipe, read to its end. Read as UTF-8, the first chunk holding a NUL byte (which makes it
    binary) is the last, so `--papers /dev/zero` stops at once instead of filling the memory; in UTF-16 or
    UTF-32 NUL bytes are text, and a chunk of nothing else is the last. An endless stream of text stops at
    STREAM_LIMIT."""
    chunks = [start]
    size = len(start)
    head = start[:4]  # where a byte-order mark would be
    while chunk := handle.read(_CHUNK):
        chunks.append(chunk)
        size += len(chunk)
        head = head if len(head) == 4 else (head + chunk)[:4]
        if b"\0" in chunk and (not chunk.strip(b"\0") or not (encoding or _bom_encoding(head))):
            break
        if size > STREAM_LIMIT:
            raise ReadError(
                f"{path}: more than {STREAM_LIMIT >> 20} MB arrived through the pipe; stopped reading "
                "(save it to a file and open that)"
            )
    return b"".join(chunks)


Stamp = tuple[int, int] | None


def read_data(path: Path, encoding: str | None = None) -> tuple[bytes, Stamp]:
    """A paper file's bytes, not empty, and its `file_stamp`. Raises ReadError."""
    stamp = file_stamp(path)  # before reading: a save while it is read shows as a change, never the reverse
    data = read_bytes(path, encoding)
    if not data.strip():
        raise ReadError(f"{path}: the file is empty")
    return data, stamp


def read_text(path: Path, encoding: str | None = None) -> tuple[str, Stamp]:
    """A paper file's text (UTF-8 unless `encoding` names another) and its `file_stamp`. Raises ReadError."""
    data, stamp = read_data(path, encoding)
    return _decode(path, data, encoding), stamp


PIECE_BYTES = 1 << 20  # bytes of a UTF-8 file read and decoded at a time


def read_pieces(path: Path, encoding: str | None = None, size: int | None = None) -> tuple[Iterator[str], Stamp]:
    """A paper file's text as `read_text` gives it, in pieces, and its `file_stamp`: a big UTF-8 file is read
    and decoded `size` bytes (PIECE_BYTES) at a time, each piece ending after a line break (whose byte is never
    inside a character), so that it is never held whole, neither as bytes nor as text (a single character
    above U+00FF makes Python store a whole text at two bytes a character). Other encodings, pipes and devices
    are read and decoded whole, in one piece. Fails as `read_text` does, with the same messages, though a
    failure far into the file comes when reading comes there."""
    size = size or PIECE_BYTES
    stamp = file_stamp(path)  # before reading: a save while it is read shows as a change, never the reverse
    if stamp is None or encoding:
        data, _ = read_data(path, encoding)
        return iter([_decode(path, data, encoding)]), stamp
    try:
        handle = open(path, "rb")  # noqa: SIM115 -- closed by _utf8_pieces
        start = handle.read(size)
    except OSError as exc:
        raise ReadError(unreadable(path, exc, "paper file")) from None
    if not_utf8(start) or len(start) < size:  # not UTF-8, or small: read whole
        with handle:
            data, _ = read_data(path, encoding)
        return iter([_decode(path, data, encoding)]), stamp
    return _utf8_pieces(path, handle, start, size), stamp


class FilePart:
    """A UTF-8 file's bytes from `start` to `stop` (None: its end), both after a line break or at an end of the file,
    read from its open descriptor `fd` at those places (its offset is not used: another process may read another
    part through it); `length` and `crc` are those of the bytes read so far (their CRC-32, as zlib.crc32 gives it)."""

    def __init__(self, path: Path, fd: int, start: int, stop: int | None = None) -> None:
        self.path, self.fd, self.start, self.stop = path, fd, start, stop
        self.length = self.crc = 0

    def text(self, size: int | None = None) -> Iterator[str]:
        """The part's text, in pieces as `read_pieces` gives a big UTF-8 file's; fails as it does."""
        size = size or PIECE_BYTES
        return _utf8_pieces(self.path, self, self.read(size), size, self.start)

    def read(self, size: int) -> bytes:
        at = self.start + self.length
        if self.stop is not None:
            size = min(size, self.stop - at)
        try:
            data = os.pread(self.fd, size, at) if size > 0 else b""
        except OSError as exc:
            raise ReadError(unreadable(self.path, exc, "paper file")) from None
        self.length += len(data)
        self.crc = zlib.crc32(data, self.crc)  # (0.3 ms a megabyte: the bytes are at hand)
        return data

    def __enter__(self) -> FilePart:
        return self

    def __exit__(self, *_: object) -> None:
        pass  # the descriptor is the caller's


def _utf8_pieces(path: Path, handle: BinaryIO | FilePart, start: bytes, size: int, offset: int = 0) -> Iterator[str]:
    """The rest of `read_pieces`: the file's pieces decoded from `start` (its first bytes, `offset` bytes into it)
    on, the handle closed at the end; a file of white space alone, or holding a NUL byte, fails as `read_data` and
    `_decode` do."""
    with handle:
        head, pending, blank = b"", bytearray(), True
        chunk = start
        while chunk:
            head = head if len(head) >= _HEAD else (head + chunk)[:_HEAD]
            if b"\x00" in chunk:
                raise _with_nul(path, head + _read_chunk(path, handle, _HEAD - len(head)))
            blank = blank and chunk.isspace()
            pending += chunk
            end = max(pending.rfind(b"\n"), pending.rfind(b"\r")) + 1  # a "\r" alone ends a line too
            if end:
                yield _utf8_piece(path, handle, head, pending, end, offset)
                del pending[:end]
                offset += end
            chunk = _read_chunk(path, handle, size)
        if blank:
            raise ReadError(f"{path}: the file is empty")
        if pending:
            yield _utf8_piece(path, handle, head, pending, len(pending), offset)


def _read_chunk(path: Path, handle: BinaryIO | FilePart, size: int) -> bytes:
    try:
        return handle.read(size)
    except OSError as exc:
        raise ReadError(unreadable(path, exc, "paper file")) from None


def _utf8_piece(path: Path, handle: BinaryIO | FilePart, head: bytes, pending: bytearray, end: int, offset: int) -> str:
    """The first `end` bytes of `pending`, `offset` bytes into the file, decoded; a file that is not UTF-8 fails
    as when decoded whole: a NUL byte further on (binary, or UTF-16) is said before the first bad byte."""
    try:
        return pending[:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        while chunk := _read_chunk(path, handle, PIECE_BYTES):
            head = head if len(head) >= _HEAD else (head + chunk)[:_HEAD]
            if b"\x00" in chunk:
                raise _with_nul(path, head + _read_chunk(path, handle, _HEAD - len(head))) from None
        raise _not_utf8(path, pending[exc.start], offset + exc.start) from None


def file_stamp(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """A regular file's modification time (ns) and size, which a save changes; None when it cannot be found or
    reached, or is no regular file (a pipe or a device is read once, never watched)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size) if stat.S_ISREG(status.st_mode) else None


def file_digest(path: str | os.PathLike[str], stamp: tuple[int, int]) -> bytes | None:
    """A digest of the file's bytes while it still has the stamp `stamp` (the one it was read with); None when
    it has changed since or cannot be read. Taken apart from reading, so that only a watching window pays."""
    try:
        digest = _digest(path) if file_stamp(path) == stamp else None
    except OSError:
        return None
    return digest if digest is not None and file_stamp(path) == stamp else None


def file_state(
    path: str | os.PathLike[str], known: tuple[int, int], digest: bytes | None
) -> tuple[str, tuple[int, int] | None]:
    """Whether the file last seen with the stamp `known`, its bytes with `digest`, is "same", "changed" or
    "removed" now, and its stamp now. A new stamp on the same bytes (a `touch`, a save without changes) is
    the same file; its bytes are read only then."""
    stamp = file_stamp(path)
    if stamp == known:
        return "same", stamp
    if stamp is None:
        return ("changed" if os.path.lexists(path) else "removed"), None
    if digest is None:
        return "changed", stamp
    try:
        same = _digest(path) == digest
    except OSError:
        return "changed", stamp
    return ("same" if same else "changed"), stamp


def _digest(path: str | os.PathLike[str]) -> bytes:
    """The file's digest, read a block at a time: a 100k-paper file whole was 115 MB more at the app's peak."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, partial(hashlib.blake2b, digest_size=16)).digest()
