"""Derived titles saved in the user cache directory, keyed by the papers and the rules that derive them.

Deriving a title costs about 0.1 ms. The list pane only derives the rows it shows, but `title:` search,
`readlist list` and exports need every title: 1 s at 10k papers, 12 s at 100k. After the first time
they are read back from here. The key covers the source of the title rules, so a change to them
derives the titles again.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from ..files.cache import cache_dir, papers_key, prune, write_atomic
from .paper import Paper

FORMAT = 1
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
    """Give the papers their cached derived titles; False when the cache holds none for them."""
    if not any(not paper.given_title for paper in papers):
        return True  # every title comes from the file
    key = content_key(papers)
    path = (directory or cache_dir("titles")) / f"{key}.json"
    try:
        stored = json.loads(path.read_bytes())
        titles = stored["titles"]
        if stored.get("key") != key or len(titles) != len(papers) or not all(type(t) is str for t in titles):
            return False
    except Exception:  # anything wrong with a cache file (even JSON nested too deep) only means deriving again
        return False
    for paper, title in zip(papers, titles, strict=True):
        if not paper.given_title and not paper.found_title:  # a found title is shown over the derived one
            paper.__dict__.setdefault("title", title)  # Paper.title is a cached property
    return True


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


def save(papers: Sequence[Paper], directory: Path | None = None) -> None:
    """Cache the papers' derived titles (deriving the missing ones); best effort."""
    directory = directory or cache_dir("titles")
    key = content_key(papers)
    titles = ["" if paper.given_title else _derived(paper) for paper in papers]
    try:
        write_atomic(directory / f"{key}.json", [json.dumps({"key": key, "titles": titles}).encode()])
        prune(directory, "*.json", KEEP)
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
    """Whether every title shown that is derived has been computed in this process."""
    return all(paper.given_title or paper.found_title or "title" in paper.__dict__ for paper in papers)
