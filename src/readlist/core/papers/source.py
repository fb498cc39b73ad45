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
from collections.abc import Iterator
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


def _utf16_without_bom(data: bytes) -> str | None:
    """The UTF-16 a file without a byte-order mark seems to be in: most characters of Western text have a NUL
    byte beside them, always on the same side."""
    head = data[:4096]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    if odd > len(head) // 4 and even <= odd // 20:
        return "utf-16-le"
    if even > len(head) // 4 and odd <= even // 20:
        return "utf-16-be"
    return None


def decode(path: Path, data: bytes, encoding: str | None) -> str:
    """A file's bytes as text: UTF-8, or what a byte-order mark says, or `encoding`. Raises ReadError."""
    if not encoding:
        encoding = _bom_encoding(data)
        if encoding:  # UTF-16 or UTF-32 as its byte-order mark says (the codec drops the mark)
            return decode(path, data, encoding)
        if b"\x00" in data:
            if guess := _utf16_without_bom(data):
                raise ReadError(
                    f"{path}: contains NUL bytes, as UTF-16 text without a byte-order mark does; try --encoding {guess}"
                )
            raise ReadError(f"{path}: looks like a binary file (contains NUL bytes), not a paper list")
        try:
            return data.decode("utf-8")  # a UTF-8 byte-order mark goes in parse_text
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, data, exc.start) from None
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


def _not_utf8(path: Path, data: bytes, at: int) -> ReadError:
    return ReadError(
        f"{path}: not UTF-8 (invalid byte 0x{data[at]:02x} at byte offset {at}); "
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


def read_data(path: Path, encoding: str | None = None) -> tuple[bytes, tuple[int, int] | None]:
    """A paper file's bytes, not empty, and its `file_stamp`. Raises ReadError."""
    stamp = file_stamp(path)  # before reading: a save while it is read shows as a change, never the reverse
    data = read_bytes(path, encoding)
    if not data.strip():
        raise ReadError(f"{path}: the file is empty")
    return data, stamp


def read_text(path: Path, encoding: str | None = None) -> tuple[str, tuple[int, int] | None]:
    """A paper file's text (UTF-8 unless `encoding` names another) and its `file_stamp`. Raises ReadError."""
    data, stamp = read_data(path, encoding)
    return decode(path, data, encoding), stamp


PIECE_BYTES = 1 << 20  # bytes of a UTF-8 file decoded at a time


def decoded_pieces(path: Path, data: bytes, encoding: str | None, size: int = PIECE_BYTES) -> Iterator[str]:
    """The text `decode` gives, in pieces of about `size` bytes or characters, so that a big file is never
    held whole as text beside its bytes (a single character above U+00FF makes Python store the whole text at
    two bytes a character). UTF-8 is decoded a piece at a time, each ending after a line break (whose byte
    is never inside a character), and fails as `decode` does, naming the same byte, once reading comes there;
    other encodings are decoded whole first."""
    if encoding or _bom_encoding(data) or b"\x00" in data:
        return slices(decode(path, data, encoding), size)
    return _utf8_pieces(path, data, size)


def _utf8_pieces(path: Path, data: bytes, size: int) -> Iterator[str]:
    view, start = memoryview(data), 0
    while start < len(data):
        end = data.find(b"\n", start + size) + 1 or len(data)
        try:
            yield str(view[start:end], "utf-8")
        except UnicodeDecodeError as exc:
            raise _not_utf8(path, data, start + exc.start) from None
        start = end


def slices(text: str, size: int) -> Iterator[str]:
    """`text` in pieces of `size` characters."""
    for start in range(0, len(text), size):
        yield text[start : start + size]


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
        data = Path(path).read_bytes() if file_stamp(path) == stamp else None
    except OSError:
        return None
    return _digest(data) if data is not None and file_stamp(path) == stamp else None


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
        data = Path(path).read_bytes()
    except OSError:
        return "changed", stamp
    return ("same" if _digest(data) == digest else "changed"), stamp


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
