"""Reading a paper file: paragraphs of abstracts, an optional header, optional title lines."""

from __future__ import annotations

import operator
import os
import re
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate, compress, count, pairwise
from operator import itemgetter
from pathlib import Path

from ..text.normalize import paper_id
from ..text.tokens import is_cjk
from .paper import Paper, PaperList
from .source import ReadError, read_pieces

_BLANK_SPLIT = re.compile(r"(\n(?:[ \t\f\v\u00a0\u3000]*\n)+)")  # the blank lines kept: their length counts
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


def _normalized(pieces: Iterable[str], first: bool = True) -> Iterator[str]:
    """The pieces of a file's text with every line ending a "\n" and without a byte-order mark (only the `first`
    part of a text may open with one): a "\r" ending one piece waits for the next, which may start with the "\n"
    of the same "\r\n"."""
    held = ""
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


class _Blocks:
    """The text between blank lines, piece by piece: the last block of what was read may go on in the next
    piece, and a run of blank lines may straddle two, so that block is held back and read again with it. Blocks
    of blank lines alone may come out where the whole text has none; they hold no paragraph. Where each block
    starts in the text written as UTF-8, and its length there, are kept (`starts`, `sizes`, and `end` where the
    text ends), for a file read again to be cut there (see text_cache.py)."""

    def __init__(self, pieces: Iterable[str]) -> None:
        self.pieces = pieces
        self.starts, self.sizes = array("q"), array("q")
        self.end = 0
        self.empty: list[int] = []  # the blocks holding no paragraph, by number (see _paragraphs)

    def __iter__(self) -> Iterator[str]:
        rest, waiting, size = "", [], 0
        for piece in self.pieces:
            waiting.append(piece)
            size += len(piece)
            if size < len(rest):  # a paragraph longer than a piece: joined once, not once per piece
                continue
            *done, rest = self._split(rest + "".join(waiting), last=False)
            waiting, size = [], 0
            yield from done
        yield from self._split(rest + "".join(waiting), last=True)

    def _split(self, text: str, last: bool) -> list[str]:
        """The blocks of `text`, with their places kept; unless it is the `last`, the last block is read again
        with the next piece, its place not kept yet."""
        parts = _BLANK_SPLIT.split(text)  # blocks, and the blank lines between them
        sizes = list(map(len, parts))
        if not text.isascii():  # the parts that are not either are few (looked for at C speed)
            for n in compress(count(), map(operator.not_, map(str.isascii, parts))):
                sizes[n] = len(parts[n].encode("utf-8", "surrogatepass"))
        starts = list(accumulate(sizes, initial=self.end))
        kept = len(parts) if last else len(parts) - 1
        self.starts.extend(starts[0:kept:2])
        self.sizes.extend(sizes[0:kept:2])
        self.end = starts[kept]  # where the text ends, or where the last block starts (and the next split)
        return parts[0::2]

    def of_paragraphs(self) -> tuple[array, array]:
        """The starts and sizes of the blocks holding a paragraph, once all were read."""
        starts, sizes = self.starts, self.sizes
        for n in reversed(self.empty):
            del starts[n], sizes[n]
        return starts, sizes


def block_lines(block: str) -> list[str]:
    """A block's lines, stripped, without empty ones."""
    if "\n" not in block:
        block = block.strip()
        return [block] if block else []
    lines = [line.strip() for line in block.split("\n")]
    return [line for line in lines if line]


def _paragraphs(blocks: _Blocks) -> Iterator[list[str]]:
    """Each paragraph's lines, stripped, without empty ones (block_lines, written out: 100,000 blocks)."""
    for n, block in enumerate(blocks):
        if "\n" not in block:
            if block := block.strip():
                yield [block]
                continue
        elif lines := [line for line in map(str.strip, block.split("\n")) if line]:
            yield lines
            continue
        blocks.empty.append(n)


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
    papers, layout = parse_laid_out(text, source, piece_chars)
    return papers, layout.numbers


@dataclass
class Layout:
    """Where the paragraphs of a text read are, for reading it again (see text_cache.py): each paragraph's
    block's start in the text written as UTF-8 and its length there (the header's first, if `header`), each
    paper's paragraph number, and where the text ends there; the CRC-32 of the file's bytes, when it was read with
    them (None: not known)."""

    numbers: list[int]
    starts: Sequence[int]
    sizes: Sequence[int]
    header: bool
    end: int
    crc: int | None = None


def parse_laid_out(
    text: str | Iterable[str], source: str = "<text>", piece_chars: int = PIECE_CHARS
) -> tuple[PaperList, Layout]:
    """`parse_numbered`, the numbers in the layout of the text."""
    return laid_out(read_part([text] if isinstance(text, str) else text, source, piece_chars=piece_chars), source)


def read_part(
    pieces: Iterable[str], source: str, first: bool = True, piece_chars: int = PIECE_CHARS, at: int = 0
) -> _Read:
    """What reading the paragraphs of a text in pieces found, or of a part of it (not the `first`: it starts
    where a paragraph does, after a blank line, so it has no header line and no byte-order mark), its places counted
    from `at` (where the part is thought to start in the whole text written as UTF-8). Raises ReadError for a text
    without paragraphs."""
    blocks = _Blocks(_normalized(_slices(pieces, piece_chars), first))
    paragraphs = _paragraphs(blocks)
    read = _Read()
    blocks.end = read.base = at
    if first:
        lines = next(paragraphs, None)
        if lines is None:
            raise ReadError(f"{source}: the file is empty (no paragraphs of text)")
        read.header = lines[0] if len(lines) == 1 and is_header(lines[0]) else None
        if read.header is None:
            read.add(lines)
        elif _EXPORTED_MARKS.match(read.header):
            read.exported += 1
    for lines in paragraphs:
        read.add(lines)
    read.starts, read.sizes = blocks.of_paragraphs()
    read.end = blocks.end
    return read


def laid_out(read: _Read, source: str) -> tuple[PaperList, Layout]:
    """The papers a whole text's reading found (`read`, its parts joined), and their layout in it."""
    header = read.header
    if read.exported:
        # Its quoted abstracts are not the papers' own text: read as papers, they would take the annotations over.
        raise ReadError(f"{source}: is notes readlist exported (as Markdown, {read.exported} paper(s)), not a paper "
                        "file; open the paper file they were made from")  # fmt: skip
    name = os.path.basename(source)
    if header is not None:
        name = header
        if not read.count:
            raise ReadError(f"{source}: has only a header line ({name!r}) and no papers")
    has_titles = bool(read.multi) and read.looks >= 0.6 * read.multi and read.multi >= 0.5 * read.count
    papers = read.papers(has_titles)
    layout = Layout(read.numbers, read.starts, read.sizes, header is not None, read.end)
    return PaperList(path=source, name=name, papers=papers, duplicates=read.duplicates, has_titles=has_titles), layout


def parse_again(blocks: Iterable[str], ids: Sequence[str], cuts: Sequence[int], found: PaperList) -> PaperList:
    """The papers of a text read before from their blocks in their order: their ids and the lengths of their
    title lines (0: none) are the ones found then, not looked for again; `found` is the list they go in,
    without papers."""
    papers: list[Paper] = []
    append, has_titles = papers.append, found.has_titles
    for index, pid, cut, block in zip(count(1), ids, cuts, blocks):  # written out: 100,000 papers
        joined = block.strip() if "\n" not in block else join_lines(block_lines(block))
        append(_titled(pid, index, joined, cut) if has_titles and cut else Paper(id=pid, index=index, text=joined))
    if len(papers) != len(ids) or next(iter(blocks), None) is not None:
        raise ValueError("blocks of another text")
    return replace(found, papers=tuple(papers))


class _Read:
    """What is kept of each paragraph (the header aside) while the file is read: its id, its lines joined, and
    where a title line would end; whether the file has title lines is known only at its end."""

    def __init__(self) -> None:
        self.count = self.multi = self.looks = self.exported = self.duplicates = 0
        self.kept: list[tuple[str, str, int]] = []  # (id, text, length of a title line or 0)
        self.numbers: list[int] = []
        self.seen: set[str] = set()
        self.header: str | None = None
        # Where the paragraphs' blocks are in the text written as UTF-8, from `base`, and its end there (see _Blocks).
        self.starts, self.sizes, self.base, self.end = array("q"), array("q"), 0, 0

    def found(self) -> tuple:
        """What was read, as plain data (for a process that read a part of a text to send it)."""
        return (self.count, self.multi, self.looks, self.exported, self.duplicates, self.kept, self.numbers,
                self.starts.tobytes(), self.sizes.tobytes(), self.base, self.end)  # fmt: skip

    def extend(self, found: tuple) -> None:
        """Take in what reading the next part of the text found (`found`, from `found`), as if it was read here: a
        paper already read is a duplicate, paragraph numbers and places go on from this part's."""
        count, multi, looks, exported, duplicates, kept, numbers, starts, sizes, base, end = found
        ids = list(map(itemgetter(0), kept))
        known = len(self.seen)
        self.seen.update(ids)  # (a part's own ids are all different)
        if len(self.seen) - known != len(ids):  # papers an earlier part has (rare): this part's are duplicates
            self.seen = set(map(itemgetter(0), self.kept))
            again = [pid in self.seen for pid in ids]
            duplicates += sum(again)
            kept = list(compress(kept, map(operator.not_, again)))
            numbers = list(compress(numbers, map(operator.not_, again)))
            self.seen.update(map(itemgetter(0), kept))
        self.kept.extend(kept)
        self.numbers.extend(map(self.count.__add__, numbers))
        self.count += count
        self.multi += multi
        self.looks += looks
        self.exported += exported
        self.duplicates += duplicates
        shift = self.end - base  # 0 where the part was read from where the text before it ends (no "\r\n" before)
        if shift:
            shifted = array("q")
            shifted.frombytes(starts)
            self.starts.extend(map(shift.__add__, shifted))
        else:
            self.starts.frombytes(starts)
        self.sizes.frombytes(sizes)
        self.end = end + shift

    def add(self, lines: list[str]) -> None:
        self.count += 1
        if len(lines) == 1:  # most paragraphs: no title line, no lines to join
            joined, looks = lines[0], False
            self.exported += joined[:1] == "`" and _EXPORTED_MARKS.match(joined) is not None
        else:
            looks = looks_like_title(lines)
            self.multi += 1
            self.looks += looks
            joined = join_lines(lines)
        pid = paper_id(joined)
        if pid in self.seen:
            self.duplicates += 1
            return
        self.seen.add(pid)
        self.kept.append((pid, joined, len(lines[0]) if looks else 0))
        self.numbers.append(self.count)

    def papers(self, has_titles: bool) -> tuple[Paper, ...]:
        kept, self.kept = self.kept, []  # each text goes into its paper: never held twice
        kept.reverse()
        papers = []
        while kept:
            pid, joined, cut = kept.pop()
            index = len(papers) + 1
            papers.append(
                _titled(pid, index, joined, cut) if has_titles and cut else Paper(pid, index, joined)
            )  # (arguments by position: 20 ms less at 100,000 papers)
        return tuple(papers)


def _titled(pid: str, index: int, joined: str, cut: int) -> Paper:
    """A paper of a paragraph's lines joined, of which the first `cut` characters are its title line."""
    # The lines after the title joined are the whole paragraph's after the title line and the space join_lines
    # put after it, if any (the next line starts with no space: lines are stripped).
    return Paper(id=pid, index=index, text=joined[cut + (joined[cut] == " ") :], given_title=joined[:cut])


def read_papers(path: str | os.PathLike[str], encoding: str | None = None) -> PaperList:
    """Read a paper file. Every failure is a ReadError with a one-line message naming the file."""
    path = Path(path)
    pieces, stamp = read_pieces(path, encoding)
    return replace(parse_numbered(pieces, str(path))[0], stamp=stamp)
