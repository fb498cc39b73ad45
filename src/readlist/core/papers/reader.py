"""Reading a paper file: paragraphs of abstracts, an optional header, optional title lines."""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
import time
from dataclasses import replace
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO

from ..files.paths import unreadable
from ..text.normalize import paper_id
from ..text.tokens import is_cjk
from .paper import Paper, PaperList

_BLANK_SPLIT = re.compile(r"\n(?:[ \t\f\v\u00a0\u3000]*\n)+")
_SENTENCE_END = (".", "。", "!", "！", "?", "？", ";", ":")
_TITLE_END_BAD = (".", "。", ",", ";", ":")
_CJK_CLAUSE_END = ("，", "；", "：", "、", "！", "？")
HEADER_MAX_CHARS = 100
HEADER_MAX_WORDS = 14


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


def _decode(path: Path, data: bytes, encoding: str | None) -> str:
    if not encoding:
        encoding = _bom_encoding(data)
        if encoding:  # UTF-16 or UTF-32 as its byte-order mark says (the codec drops the mark)
            return _decode(path, data, encoding)
        if b"\x00" in data:
            if guess := _utf16_without_bom(data):
                raise ReadError(
                    f"{path}: contains NUL bytes, as UTF-16 text without a byte-order mark does; try --encoding {guess}"
                )
            raise ReadError(f"{path}: looks like a binary file (contains NUL bytes), not a paper list")
        try:
            return data.decode("utf-8")  # a UTF-8 byte-order mark goes in parse_text
        except UnicodeDecodeError as exc:
            raise ReadError(
                f"{path}: not UTF-8 (invalid byte 0x{data[exc.start]:02x} at byte offset {exc.start}); "
                "try --encoding NAME, e.g. --encoding latin-1"
            ) from None
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


def is_header(paragraph: str) -> bool:
    """A first paragraph that is one short line and not a sentence names the list."""
    if "\n" in paragraph:
        return False
    line = paragraph.strip()
    if not line or len(line) > HEADER_MAX_CHARS or len(line.split()) > HEADER_MAX_WORDS:
        return False
    return not line.endswith(_SENTENCE_END)


def _looks_like_cjk_title(first: str, rest: list[str]) -> bool:
    """The same for text without spaces or capitals: a wrapped line is as long as the lines after it."""
    if first.endswith(_CJK_CLAUSE_END):
        return False
    if len(rest) >= 2:
        return len(first) < 0.8 * max(len(line) for line in rest[:-1])
    return len(rest[0]) > 1.6 * len(first)


def join_lines(lines: list[str]) -> str:
    """A hard-wrapped paragraph as one line: lines joined with a space, except between two CJK characters and
    after CJK punctuation (Chinese and Japanese wrap anywhere, without a space), so wrapping never changes the
    text or its id."""
    joined = " ".join(lines)
    if joined.isascii():
        return joined
    parts = [lines[0]]
    for before, line in pairwise(lines):
        end, start = before[-1:], line[:1]
        wide_end = _WIDE_PUNCTUATION.match(end)
        glued = wide_end or (is_cjk(end) and (is_cjk(start) or _WIDE_PUNCTUATION.match(start)))
        parts.append(line if glued else " " + line)
    return "".join(parts)


# Chinese and Japanese punctuation (，、。「」…) and full-width forms: no space is written after them either.
_WIDE_PUNCTUATION = re.compile("[\u3000-\u303f\uff00-\uffef]")


def _first_word(line: str) -> str:
    return line.split(" ", 1)[0]


def looks_like_title(lines: list[str]) -> bool:
    """Is the first line of this paragraph a title rather than the start of a hard-wrapped abstract?"""
    if len(lines) < 2:
        return False
    first, rest = lines[0], lines[1:]
    if len(first) > 250 or first.endswith(_TITLE_END_BAD) or (len(first.split()) < 2 and len(first) < 4):
        return False
    second = rest[0]
    if is_cjk(second[:1]):
        return _looks_like_cjk_title(first, rest)
    if not second[:1].isupper() and not second[:1].isdigit() and second[:1] not in "\"'“(":
        return False  # an abstract continuing its sentence, not a new one
    if len(rest) >= 2:
        # Greedy wrapping: a wrapped line has no room left for the next line's first word.
        width = max(len(line) for line in rest[:-1])
        wrapped = len(first) + 1 + len(_first_word(second)) > width and len(first) >= 0.6 * width
        return not wrapped
    # Two lines: a title and a one-line abstract, or an abstract wrapped once.
    return len(second) > 1.6 * len(first) and len(first) + 1 + len(_first_word(second)) <= len(second)


def _paragraphs(text: str) -> list[list[str]]:
    out = []
    for block in _BLANK_SPLIT.split(text):
        if "\n" not in block:
            block = block.strip()
            if block:
                out.append([block])
            continue
        lines = [line.strip() for line in block.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            out.append(lines)
    return out


def parse_text(text: str, source: str = "<text>") -> PaperList:
    """Parse decoded text into papers. Raises ReadError for an empty or header-only file."""
    return parse_numbered(text, source)[0]


def parse_numbered(text: str, source: str = "<text>") -> tuple[PaperList, list[int]]:
    """`parse_text`, and for each paper its paragraph's number in the file (from 1, the header aside,
    duplicates counted), which the sidecar files name papers by."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.startswith("\ufeff"):
        text = text[1:]
    paragraphs = _paragraphs(text)
    name = os.path.basename(source)
    if not paragraphs:
        raise ReadError(f"{source}: the file is empty (no paragraphs of text)")
    if is_header(paragraphs[0][0]) and len(paragraphs[0]) == 1:
        name = paragraphs[0][0]
        paragraphs = paragraphs[1:]
        if not paragraphs:
            raise ReadError(f"{source}: has only a header line ({name!r}) and no papers")
    looks = [len(lines) >= 2 and looks_like_title(lines) for lines in paragraphs]
    multi = sum(len(lines) >= 2 for lines in paragraphs)
    has_titles = bool(multi) and sum(looks) >= 0.6 * multi and multi >= 0.5 * len(paragraphs)
    papers: list[Paper] = []
    numbers: list[int] = []
    seen: set[str] = set()
    duplicates = 0
    for number, (lines, titled) in enumerate(zip(paragraphs, looks, strict=True), 1):
        title = None
        if has_titles and titled:
            title, body = lines[0], lines[1:]
        else:
            body = lines
        abstract = join_lines(body)
        pid = paper_id(join_lines(lines))
        if pid in seen:
            duplicates += 1
            continue
        seen.add(pid)
        papers.append(Paper(id=pid, index=len(papers) + 1, text=abstract, given_title=title))
        numbers.append(number)
    found = PaperList(path=source, name=name, papers=tuple(papers), duplicates=duplicates, has_titles=has_titles)
    return found, numbers


def read_papers(path: str | os.PathLike[str], encoding: str | None = None) -> PaperList:
    """Read a paper file. Every failure is a ReadError with a one-line message naming the file."""
    path = Path(path)
    text, stamp = read_text(path, encoding)
    return replace(parse_text(text, str(path)), stamp=stamp)


def read_text(path: Path, encoding: str | None = None) -> tuple[str, tuple[int, int] | None]:
    """A paper file's text (UTF-8 unless `encoding` names another) and its `file_stamp`. Raises ReadError."""
    stamp = file_stamp(path)  # before reading: a save while it is read shows as a change, never the reverse
    data = read_bytes(path, encoding)
    if not data.strip():
        raise ReadError(f"{path}: the file is empty")
    return _decode(path, data, encoding), stamp


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
