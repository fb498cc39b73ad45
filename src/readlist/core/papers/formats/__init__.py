"""Reading a paper file in any format: the reader chosen by name, else by extension, else by the content.

Every reader returns a `PaperList` or raises `ReadError` with one line naming the file and the line or
entry at fault; ids follow one rule for all (see identifiers.py), so annotations carry over between formats.
"""

from __future__ import annotations

import gc
import itertools
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from importlib import import_module
from pathlib import Path

from ..paper import PaperList
from ..source import file_stamp, read_pieces

# The readers by name, with what each reads.
FORMATS: dict[str, str] = {
    "text": "paragraphs of abstracts (with NAME.titles.tsv and NAME.ids.tsv beside it, if there)",
    "bibtex": "BibTeX entries",
    "atom": "the arXiv API's Atom feed",
    "jsonl": "the arXiv metadata snapshot's JSON Lines",
    "csv": "comma-separated values with a header row",
    "tsv": "tab-separated values with a header row",
    "json": "readlist's own JSON export",
}
# Where each reader's parse(text, source) is: imported when a file needs it, so starting pays for one.
_PARSERS = {
    "text": ("text", "parse"),
    "bibtex": ("bibtex", "parse"),
    "atom": ("atom", "parse"),
    "jsonl": ("jsonl", "parse"),
    "csv": ("delimited", "parse_csv"),
    "tsv": ("delimited", "parse_tsv"),
    "json": ("readlist_json", "parse"),
}
# Extensions that name one format; .txt and .json (and any other) are decided by the content.
EXTENSIONS = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".atom": "atom",
    ".xml": "atom",  # the one XML format read; its reader makes sure it is a feed
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
}
_BIBTEX_START = re.compile(r"(?:[ \t]*(?:%[^\n]*)?\n)*[ \t]*@[A-Za-z]+[ \t]*[{(]")
_XML_START = re.compile(r"\s*<(?:\?xml|feed)\b")
_JSON_START = re.compile(r'\s*(?:\{\s*"|\[\s*[{\]])')  # an object with a key, a list of objects


def load_papers(path: str | os.PathLike[str], encoding: str | None = None, fmt: str | None = None) -> PaperList:
    """Read a paper file in format `fmt` (a FORMATS name), else the one its extension or content shows.
    Every failure is a ReadError with a one-line message naming the file."""
    path = Path(path)
    with _no_collection():  # a million new objects, none in a cycle: the collector's passes would be lost time
        stamp = file_stamp(path)
        expected = fmt or EXTENSIONS.get(path.suffix.lower()) or ("json" if path.suffix.lower() == ".json" else None)
        if stamp is not None and expected not in (None, "text") and (cached := _cached(path, stamp, fmt, encoding)):
            return cached
        if stamp is not None and expected in (None, "text") and not encoding:
            from . import text

            if (again := text.read_again(path, stamp, fmt)) is not None:  # a text file read before, cut where it was
                return replace(again, stamp=stamp)
        pieces, stamp = read_pieces(path, encoding)
        head = next(pieces)  # what the format is told by, unless it is JSON
        chosen = fmt or choose(path, head)
        if chosen == "text":
            from . import text

            papers = text.read(path, itertools.chain([head], pieces), encoding, stamp, fmt)
            return replace(papers, stamp=stamp)
        content = head + "".join(pieces)  # the other formats are parsed from the whole text
        del head
        chosen = fmt or choose(path, content)  # JSON Lines are told from JSON by more than the first piece
        if stamp is not None and expected is None and (cached := _cached(path, stamp, fmt, encoding)):
            return cached  # a .txt holding BibTeX, say: known once read
        from .. import list_cache

        papers = parser(chosen)(content, str(path))
        if stamp is not None and len(papers) >= list_cache.MIN_PAPERS:
            list_cache.save(list_cache.key(path, stamp, fmt, encoding), papers)
    return replace(papers, stamp=stamp)


def _cached(path: Path, stamp: tuple[int, int], fmt: str | None, encoding: str | None) -> PaperList | None:
    """The list read from this file before, from the cache of parsed lists (a text file's is not parsed whole:
    see text_cache.py)."""
    from .. import list_cache

    cached = list_cache.load(list_cache.key(path, stamp, fmt, encoding))
    return replace(cached, stamp=stamp) if cached is not None else None


@contextmanager
def _no_collection() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(content: str, source: str, fmt: str) -> PaperList:
    """Decoded text in format `fmt` (no sidecars for the text format: there is no file to sit beside)."""
    return parser(fmt)(content, source)


def parser(fmt: str) -> Callable[[str, str], PaperList]:
    """The function that reads text in format `fmt` (a FORMATS name)."""
    module, function = _PARSERS[fmt]
    return getattr(import_module(f"{__name__}.{module}"), function)


def choose(path: Path, content: str) -> str:
    """The format of a file: the one its extension names, else the one its opening shows (a .json may be
    JSON Lines, a .txt BibTeX), else the plain-text one."""
    extension = path.suffix.lower()
    if extension in EXTENSIONS:
        return EXTENSIONS[extension]
    head = content[:4096].removeprefix("\ufeff")
    if extension == ".json" or _JSON_START.match(head):
        from .jsonl import looks_like_lines

        return "jsonl" if looks_like_lines(content) else "json"
    if _XML_START.match(head):
        return "atom"
    if _BIBTEX_START.match(head):
        return "bibtex"
    return "text"
