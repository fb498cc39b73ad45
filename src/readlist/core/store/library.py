"""Every known list's papers as one list, for a search across lists (`in:all`): the list shown first, its papers in
their places, then the papers of each other list whose file exists (opened last first), a paper already taken left
out (the same abstract in two lists is one paper), each paper naming the list it comes from.

Other lists are read as any list is (`formats.load_papers`): a list of 1,000 papers or more in another format than
text comes back from the cache of parsed lists once read (a tenth of parsing it), a text file of as many is cut
into its papers by the layout cached once read (`papers.text_cache`). A list that cannot be read now is left out
and named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..papers.formats import FORMATS, load_papers
from ..papers.paper import PaperList
from ..papers.source import ReadError
from .found import with_found
from .lists import KnownList, key_for
from .merge_history import instant
from .reconcile import papers_file

if TYPE_CHECKING:
    from .store import Store

EVERY_LIST = "every list"


@dataclass(frozen=True)
class Library:
    """The papers of every list, the shown list's first; `sources[n]` names the list of `papers.papers[n]`."""

    papers: PaperList
    sources: tuple[str, ...]
    problems: tuple[str, ...] = ()  # lists that could not be read, one line each

    def source(self, position: int) -> str:
        return self.sources[position]


def every_list(store: Store, shown: PaperList) -> Library:
    """Every list the store knows, `shown` first, its papers completed with what resolving found."""
    here, lists = papers_file(shown), store.lists()
    every = read_library(shown, lists, None if here is None else key_for(here, lists))
    return replace(every, papers=with_found(every.papers, store.resolutions()))


def read_library(shown: PaperList, lists: Mapping[str, KnownList], here: str | None) -> Library:
    """The shown list's papers, then those of every other known list whose file exists (`here`: the shown list's
    key in `lists`)."""
    papers = list(shown.papers)
    sources = [shown.name] * len(papers)
    taken = set(shown.by_id)
    problems = []
    others = sorted((known for path, known in lists.items() if path != here and known.exists), key=_opened_last)
    for known in others:
        try:
            other = load_papers(known.path, None, known.format if known.format in FORMATS else None)
        except ReadError as exc:
            problems.append(str(exc))
            continue
        fresh = [paper for paper in other.papers if paper.id not in taken]
        taken.update(paper.id for paper in fresh)
        papers += fresh
        sources += [other.name] * len(fresh)
    every = PaperList(path=shown.path, name=EVERY_LIST, papers=tuple(papers), format=shown.format)
    return Library(every, tuple(sources), tuple(problems))


def _opened_last(known: KnownList) -> tuple[int, str]:
    return (-int(instant(known.last_opened).timestamp()), known.path)
