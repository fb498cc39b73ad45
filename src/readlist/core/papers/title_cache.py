"""Derived titles saved in the user cache directory, keyed by the papers and the rules that derive them.

Deriving a title costs about 0.1 ms. The list pane only derives the rows it shows, but `title:` search,
`readlist list` and exports need every title: 1 s at 10k papers, 12 s at 100k. After the first time
they are read back from here. The key covers the source of the title rules, so a change to them
derives the titles again. A file holds a JSON header line (key, count, checksum), where each title ends, and the
titles' UTF-8, read back as one block (held_titles.py) rather than a string per paper.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import threading
import time
from array import array
from collections.abc import Sequence
from functools import cache
from itertools import islice
from pathlib import Path

from ..files.cache import cache_dir, papers_key, prune, write_atomic
from .held_titles import ENDS, Titles, held_for, hold, title_of
from .list_cache import checksum
from .paper import Paper

FORMAT = 2  # 2: the titles as one block of UTF-8 (1: a JSON list of strings, in files named *.json)
SUFFIX = ".titles"
KEEP = 8  # cached title lists kept; the least recently written go first
# The modules whose code decides a derived title.
_RULES = ("papers/paper.py", "text/*.py", "titles/*.py")  # relative to core/


@cache
def rules_digest() -> str:
    here = Path(__file__).parents[1]  # core/
    digest = hashlib.blake2b(_converter_version().encode(), digest_size=8)
    for pattern in _RULES:
        for module in sorted(here.glob(pattern)):
            digest.update(module.relative_to(here).as_posix().encode() + b"\0" + module.read_bytes())
    return digest.hexdigest()


def _converter_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pylatexenc")  # turns LaTeX into the text titles are derived from
    except PackageNotFoundError:
        return ""


_last_key: tuple[Sequence[Paper], str] | None = None  # the list asked about last, and its key


def content_key(papers: Sequence[Paper]) -> str:
    """The cache file's name for these papers and these rules (10 ms at 100k papers, so the list asked
    about last keeps its key: opening a list asks for it when priming, deriving and saving)."""
    global _last_key
    last = _last_key
    if last is not None and last[0] is papers:
        return last[1]
    key = papers_key(f"titles {FORMAT} {rules_digest()}", papers)
    if isinstance(papers, tuple):  # immutable: the same object always holds the same papers
        _last_key = (papers, key)
    return key


def prime(papers: Sequence[Paper], directory: Path | None = None) -> bool:
    """Give the papers their cached derived titles (held, see held_titles.py); False when the cache holds none
    for them."""
    if not any(not paper.given_title for paper in papers):
        return True  # every title comes from the file
    if held_for(papers):
        return True
    key = content_key(papers)
    titles = _load((directory or cache_dir("titles")) / f"{key}{SUFFIX}", key, len(papers))
    if titles is None:
        return False
    hold(papers, titles)
    return True


def _load(path: Path, key: str, count: int) -> Titles | None:
    """The titles saved at `path` for the key `key`, `count` of them; None when there are none, or the file is
    damaged."""
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
            if not isinstance(header, dict) or header.get("key") != key or header.get("count") != count:
                return None
            ends = array(ENDS)
            ends.fromfile(handle, count)
            text = handle.read(ends[-1] if count else 0)  # into their own objects: no copy of the file held
            if handle.read(1):
                return None
        if header.get("sum") != checksum(memoryview(ends).cast("B"), text):
            return None
        if count and (ends[-1] != len(text) or any(map(int.__gt__, ends, islice(ends, 1, None)))):
            return None
        if not _utf8(text) or any(0x80 <= text[end] < 0xC0 for end in islice(ends, count - 1)):
            return None  # a title made from it when asked for must decode: the text does, cut between characters
        titles = Titles(text, ends)
    except Exception:  # anything wrong with a cache file (even a header nested too deep) only means deriving again
        return None
    return titles


def derive_all(
    papers: Sequence[Paper], directory: Path | None = None, cancelled: threading.Event | None = None
) -> bool:
    """Make sure every paper has its title, from the cache or derived (and then cached).

    Returns False, with the work done so far kept, if `cancelled` is set meanwhile.
    """
    if prime(papers, directory):
        return True
    for n, paper in enumerate(papers):
        if not n & 15:
            if cancelled is not None and cancelled.is_set():
                return False
            time.sleep(0)  # let a waiting thread (the UI's) run every ~2 ms, not only when the interpreter forces it
        _ = paper.title
    save(papers, directory)
    return True


def _utf8(text: bytes) -> bool:
    """Whether `text` is UTF-8 (as titles are written, lone surrogates kept), checked a megabyte at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
    try:
        for at in range(0, len(text), 1 << 20):
            decoder.decode(text[at : at + (1 << 20)])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def save(papers: Sequence[Paper], directory: Path | None = None) -> None:
    """Cache the papers' derived titles (deriving the missing ones); best effort."""
    directory = directory or cache_dir("titles")
    key = content_key(papers)
    titles = Titles.of("" if paper.given_title else _derived(paper) for paper in papers)
    body = [memoryview(titles.ends).cast("B"), titles.text]
    header = {"key": key, "count": len(titles), "sum": checksum(*body)}
    try:
        write_atomic(directory / f"{key}{SUFFIX}", [json.dumps(header).encode(), b"\n", *body])
        prune(directory, f"*{SUFFIX}", KEEP)
        prune(directory, "*.json", 0)  # the first format's files
    except OSError:
        pass  # a read-only or full cache directory only costs the next run the time to derive them


def _derived(paper: Paper) -> str:
    """The paper's derived title, also when it shows a title found online: the key does not hold found titles
    (finding one title must not derive all of them again), so what is kept is the derived one, as before."""
    if not paper.found_title:
        return paper.title
    from ..text.normalize import to_plain
    from ..titles.derive import derive_title

    return derive_title(to_plain(paper.text))


def complete(papers: Sequence[Paper]) -> bool:
    """Whether every title shown that is derived has been computed in this process, or is held from the cache."""
    return held_for(papers) or all(
        paper.given_title or paper.found_title or "title" in paper.__dict__ or title_of(paper) is not None
        for paper in papers
    )
