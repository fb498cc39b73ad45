"""Reading a paper file: paragraphs of abstracts, an optional header, optional title lines."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from ..text.normalize import paper_id
from ..text.tokens import is_cjk
from .paper import Paper, PaperList
from .source import ReadError, read_text

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


# The line under each paper's heading in readlist's Markdown export: "`fd5d0f582aa4` · #1 · unread".
_EXPORTED_MARKS = re.compile(r"`[0-9a-f]{12}` · #\d+ · (unread|reading|read)( · |$)")


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
    exported = sum(len(lines) == 1 and _EXPORTED_MARKS.match(lines[0]) is not None for lines in paragraphs)
    if exported:
        # Its quoted abstracts are not the papers' own text: read as papers, they would take the annotations over.
        raise ReadError(f"{source}: is notes readlist exported (as Markdown, {exported} paper(s)), not a paper "
                        "file; open the paper file they were made from")  # fmt: skip
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
