"""Reading a paper file: paragraphs of abstracts, an optional header, optional title lines."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from ..text.normalize import paper_id
from ..text.tokens import is_cjk
from .paper import Paper, PaperList
from .source import ReadError, read_pieces

_BLANK_SPLIT = re.compile(r"\n(?:[ \t\f\v\u00a0\u3000]*\n)+")
_SENTENCE_END = (".", "。", "!", "！", "?", "？", ";", ":")
_TITLE_END_BAD = (".", "。", ",", ";", ":")
_CJK_CLAUSE_END = ("，", "；", "：", "、", "！", "？")
HEADER_MAX_CHARS = 100
HEADER_MAX_WORDS = 14


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
        # Greedy wrapping: a wrapped line has no room left for the next line's first word, and is never
        # longer than the widest line it was wrapped with (a title often is).
        width = max(len(line) for line in rest[:-1])
        if len(first) > width:
            return True
        wrapped = len(first) + 1 + len(_first_word(second)) > width and len(first) >= 0.6 * width
        # A title about as long as the width reads as wrapped: its capitalised words tell it apart (a line of
        # a wrapped abstract has few; on the arXiv sample 95% of such titles have 70% or more, 8% of such lines).
        return not wrapped or title_cased(first)
    # Two lines: a title and a one-line abstract, or an abstract wrapped once.
    return len(second) > 1.6 * len(first) and len(first) + 1 + len(_first_word(second)) <= len(second)


TITLE_CASE_SHARE = 0.7
_LONG_WORD = re.compile(r"[^\W\d_][\w'’-]{3,}")


def title_cased(line: str) -> bool:
    """Most words of four letters or more start with a capital ("Learning Sparse Features for Graph Models")."""
    words = _LONG_WORD.findall(line)
    return len(words) >= 2 and sum(word[0].isupper() for word in words) >= TITLE_CASE_SHARE * len(words)


PIECE_CHARS = 1 << 20  # characters of a decoded file split into paragraphs at a time


def _slices(pieces: Iterable[str], size: int) -> Iterator[str]:
    """The pieces, each cut in pieces of at most `size` characters (a text read whole is one)."""
    for piece in pieces:
        if len(piece) <= size:
            yield piece
            continue
        for start in range(0, len(piece), size):
            yield piece[start : start + size]


def _normalized(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces of a file's text with every line ending a "\n" and without a byte-order mark: a "\r" ending
    one piece waits for the next, which may start with the "\n" of the same "\r\n"."""
    first, held = True, ""
    for piece in pieces:
        piece = held + piece
        held = "\r" if piece.endswith("\r") else ""
        if held:
            piece = piece[:-1]
        if "\r" in piece:
            piece = piece.replace("\r\n", "\n").replace("\r", "\n")
        if first and piece:
            piece, first = piece.removeprefix("\ufeff"), False
        yield piece
    if held:
        yield "\n"


def _blocks(pieces: Iterable[str]) -> Iterator[str]:
    """The text between blank lines, piece by piece: the last block of what was read may go on in the next
    piece, and a run of blank lines may straddle two, so that block is held back and read again with it. Blocks
    of blank lines alone may come out where the whole text has none; they hold no paragraph."""
    rest, waiting, size = "", [], 0
    for piece in pieces:
        waiting.append(piece)
        size += len(piece)
        if size < len(rest):  # a paragraph longer than a piece: joined once, not once per piece
            continue
        *done, rest = _BLANK_SPLIT.split(rest + "".join(waiting))
        waiting, size = [], 0
        yield from done
    yield from _BLANK_SPLIT.split(rest + "".join(waiting))


def _paragraphs(pieces: Iterable[str]) -> Iterator[list[str]]:
    """Each paragraph's lines, stripped, without empty ones."""
    for block in _blocks(_normalized(pieces)):
        if "\n" not in block:
            block = block.strip()
            if block:
                yield [block]
            continue
        lines = [line.strip() for line in block.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            yield lines


# The line under each paper's heading in readlist's Markdown export: "`fd5d0f582aa4` · #1 · unread".
_EXPORTED_MARKS = re.compile(r"`[0-9a-f]{12}` · #\d+ · (unread|reading|read)( · |$)")


def parse_text(text: str, source: str = "<text>") -> PaperList:
    """Parse decoded text into papers. Raises ReadError for an empty or header-only file."""
    return parse_numbered(text, source)[0]


def parse_numbered(
    text: str | Iterable[str], source: str = "<text>", piece_chars: int = PIECE_CHARS
) -> tuple[PaperList, list[int]]:
    """`parse_text`, and for each paper its paragraph's number in the file (from 1, the header aside,
    duplicates counted), which the sidecar files name papers by. `text` may come in pieces (a decoded file, a
    part at a time); a whole text is split into pieces of `piece_chars` characters: only one piece and the
    papers read so far are held, never the paragraphs of the whole file beside its text."""
    pieces = _slices([text] if isinstance(text, str) else text, piece_chars)
    paragraphs = _paragraphs(pieces)
    name = os.path.basename(source)
    first = next(paragraphs, None)
    if first is None:
        raise ReadError(f"{source}: the file is empty (no paragraphs of text)")
    read = _Read()
    header = first[0] if len(first) == 1 and is_header(first[0]) else None
    if header is None:
        read.add(first)
    elif _EXPORTED_MARKS.match(header):
        read.exported += 1
    for lines in paragraphs:
        read.add(lines)
    if read.exported:
        # Its quoted abstracts are not the papers' own text: read as papers, they would take the annotations over.
        raise ReadError(f"{source}: is notes readlist exported (as Markdown, {read.exported} paper(s)), not a paper "
                        "file; open the paper file they were made from")  # fmt: skip
    if header is not None:
        name = header
        if not read.count:
            raise ReadError(f"{source}: has only a header line ({name!r}) and no papers")
    has_titles = bool(read.multi) and read.looks >= 0.6 * read.multi and read.multi >= 0.5 * read.count
    papers, numbers = read.papers(has_titles)
    found = PaperList(path=source, name=name, papers=papers, duplicates=read.duplicates, has_titles=has_titles)
    return found, numbers


class _Read:
    """What is kept of each paragraph (the header aside) while the file is read: its id, its lines joined, and
    where a title line would end; whether the file has title lines is known only at its end."""

    def __init__(self) -> None:
        self.count = self.multi = self.looks = self.exported = self.duplicates = 0
        self.kept: list[tuple[str, str, int] | None] = []  # (id, text, length of a title line or 0)
        self.numbers: list[int] = []
        self.seen: set[str] = set()

    def add(self, lines: list[str]) -> None:
        self.count += 1
        multi = len(lines) >= 2
        looks = multi and looks_like_title(lines)
        self.multi += multi
        self.looks += looks
        self.exported += not multi and _EXPORTED_MARKS.match(lines[0]) is not None
        joined = join_lines(lines)
        pid = paper_id(joined)
        if pid in self.seen:
            self.duplicates += 1
            return
        self.seen.add(pid)
        self.kept.append((pid, joined, len(lines[0]) if looks else 0))
        self.numbers.append(self.count)

    def papers(self, has_titles: bool) -> tuple[tuple[Paper, ...], list[int]]:
        papers = []
        for n, (pid, joined, cut) in enumerate(self.kept):
            self.kept[n] = None  # its text goes into the paper: never held twice
            title = None
            if has_titles and cut:
                # The lines after the title joined are the whole paragraph's after the title line and the space
                # join_lines put after it, if any (the next line starts with no space: lines are stripped).
                title, abstract = joined[:cut], joined[cut + (joined[cut] == " ") :]
            else:
                abstract = joined
            papers.append(Paper(id=pid, index=n + 1, text=abstract, given_title=title))
        return tuple(papers), self.numbers


def read_papers(path: str | os.PathLike[str], encoding: str | None = None) -> PaperList:
    """Read a paper file. Every failure is a ReadError with a one-line message naming the file."""
    path = Path(path)
    pieces, stamp = read_pieces(path, encoding)
    return replace(parse_numbered(pieces, str(path))[0], stamp=stamp)
