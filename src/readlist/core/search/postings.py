"""The inverted index behind search: sorted terms, and for each term the papers (and counts) that hold it.

Everything lives in a few flat arrays so the index is compact, immutable, and quick to save and load.
"""

from __future__ import annotations

import gc
import heapq
import re
import sys
import threading
import time
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat

from ..papers.paper import Paper
from ..text.tokens import STOPWORDS, index_form, split_words, stem

TITLE_CHARS = 90  # without a title line, the first sentence's first words stand in for the title
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z])")  # _SENTENCE found by its stop: a scan for a character, not a look back


class BuildCancelled(Exception):
    """The caller abandoned an index build, or a search (its `cancelled` event was set)."""


@dataclass(frozen=True, eq=False)
class Postings:
    """Term i's papers are docs[starts[i]:starts[i + 1]] (ascending), with counts in tfs."""

    starts: array
    docs: array
    tfs: array | None = None

    def docs_of(self, term_id: int) -> array:
        return self.docs[self.starts[term_id] : self.starts[term_id + 1]]

    def count(self, term_id: int) -> int:
        return self.starts[term_id + 1] - self.starts[term_id]

    def tfs_of(self, term_id: int) -> array:
        assert self.tfs is not None
        return self.tfs[self.starts[term_id] : self.starts[term_id + 1]]


@dataclass(frozen=True, eq=False)
class IndexData:
    terms: tuple[str, ...]  # sorted
    body: Postings  # abstract words, with counts
    title: Postings  # title words (file title, or the abstract's first sentence)
    lengths: array  # indexed words per paper (in the abstract)
    authors: Postings  # words of the authors' names (`author:`; free words find them too)

    @property
    def size(self) -> int:
        return len(self.lengths)


def title_source(paper: Paper) -> str:
    """The folded text whose words count as title words: the file's title, else the first sentence.

    A long first sentence is cut after about TITLE_CHARS characters, at a word boundary.
    """
    return _title_source(paper.text, paper.known_title)


def _title_source(text: str, known_title: str | None) -> str:
    if known_title:
        return index_form(known_title)
    return index_form(_first_words(text))


def _first_words(text: str) -> str:
    """The first sentence, cut after about TITLE_CHARS characters at a word boundary (as the text has it)."""
    if len(text) <= TITLE_CHARS + 1 or not text[TITLE_CHARS + 1].isspace():
        # A sentence ending within the title's room is found by looking that far (its next word starts by then), for
        # its stop: the look-behind tried at each of the first 270 characters took twice as long.
        end = _SENTENCE_END.search(text, 0, TITLE_CHARS + 2)
        head = text[: end.start() + 1] if end else text[: TITLE_CHARS + 1]
    else:  # spaces running past the title's room: the sentence may end before them
        head = _SENTENCE.split(text[: TITLE_CHARS * 3], maxsplit=1)[0]
    if len(head) > TITLE_CHARS:
        head = head[: TITLE_CHARS + 1]
        head = head if head[-1].isspace() else head.rsplit(None, 1)[0]
    return head


def author_words(paper: Paper) -> list[str]:
    """The folded words of the paper's authors' names ("Bernhard Schölkopf": bernhard, scholkopf)."""
    return _author_words(paper.authors)


def _author_words(authors: Sequence[str]) -> list[str]:
    return split_words(index_form(" ".join(authors))) if authors else []


# What the build reads of a paper: its abstract, its known title, its authors' names (see rows).
Row = tuple[str, str | None, tuple[str, ...]]


def rows(papers: Sequence[Paper]) -> list[Row]:
    """What the build reads of each paper, in plain values a worker process can be sent."""
    return [(paper.text, paper.known_title, paper.authors) for paper in papers]


SKIPPED = -1  # the term id of a stopword, which is not indexed
STEP = 4096  # items handed to one C-level call where a thread beside it may wait: about a millisecond each at most
MAX_TF = 0xFFFF  # counts are kept in 16 bits


def _flatten(per_term: list[list[int]], order: list[int]) -> Postings:
    """Postings without counts, of lists holding a paper once for each of its words of the term (in a row)."""
    starts = array("I", [0])
    docs = array("I")
    for old in order:
        papers = per_term[old]
        docs.extend(papers if len(papers) < 2 else dict.fromkeys(papers))  # "Networks of networks": once
        starts.append(len(docs))
    return Postings(starts, docs)


def _counted(per_term: list[list[int]], order: list[int]) -> Postings:
    """Postings with counts, of lists holding each paper as many times as it holds the term."""
    starts = array("I", [0])
    docs = array("I")
    tfs: list[int] = []
    for old in order:
        papers = per_term[old]
        if len(papers) == 1:  # a word of one paper, said once (most of a large list's words): no counting
            docs.append(papers[0])
            tfs.append(1)
            starts.append(len(docs))
            continue
        counts = Counter(papers)  # in the order of the papers: each first met after the one before
        docs.extend(counts)
        tfs.extend(counts.values())
        starts.append(len(docs))
    return Postings(starts, docs, _sixteen_bits(tfs))


_LOW_BYTE = 0 if sys.byteorder == "little" else 1  # where a 16-bit number's low byte is in its two


def _sixteen_bits(counts: list[int]) -> array:
    """array("H", counts), each count over MAX_TF cut to it (a word said 65,536+ times in one paper: BM25 saturates
    long before that). Counts under 256, as nearly all are, are made into bytes first, a block at a time: an array of
    16-bit numbers reads each number it is given through a parser of arguments (5% of a build's instructions)."""
    out = array("H")
    for at in range(0, len(counts), STEP * 16):
        block = counts[at : at + STEP * 16]
        try:
            low = bytes(block)
        except ValueError:  # a count of 256 or more
            out.extend(min(count, MAX_TF) for count in block)
            continue
        pairs = bytearray(2 * len(low))
        pairs[_LOW_BYTE::2] = low
        out.frombytes(pairs)
    return out


def build_data(papers: Sequence[Paper], cancelled: threading.Event | None = None) -> IndexData:
    """Index the papers. The collector is paused meanwhile: the build makes millions of objects, no cycles."""
    return build_rows(rows(papers), cancelled=cancelled)


def build_rows(
    rows: Iterable[Row], first: int = 0, cancelled: threading.Event | None = None, alone: bool = False
) -> IndexData:
    """Index the papers read as `rows`, numbered from `first` (a part of a list built apart: see merge). `alone`:
    no other thread waits for the interpreter (a worker process), so the build never pauses to let one run."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _build(rows, first, cancelled, alone)
    finally:
        if enabled:
            gc.enable()


class _Lists(dict):
    """Folded word -> the list of its term's papers, made (with the term) the first time the word is met."""

    def __init__(self, made: Callable[[str], list[int]], skipped: list[int]) -> None:
        super().__init__(dict.fromkeys(STOPWORDS, skipped))
        self.made = made

    def __missing__(self, word: str) -> list[int]:
        self[word] = papers = self.made(word)
        return papers


def _build(rows: Iterable[Row], first: int, cancelled: threading.Event | None, alone: bool) -> IndexData:
    """Each word of an abstract appends its paper to its term's list, once each time it is said (one C-level step
    per word): a term's list holds its papers in order, each as many times as it says the term, counted into
    postings at the end (see _counted). The title's words and the authors' names append their paper once for each
    word, each term's repeats dropped at the end (see _flatten): a set of term ids made for each paper cost more."""
    term_of: dict[str, int] = dict.fromkeys(STOPWORDS, SKIPPED)  # folded word -> term id (of its stem)
    id_of_stem: dict[str, int] = {}
    body_docs: list[list[int]] = []  # term id -> its papers, each as many times as it says the term
    title_docs: list[list[int]] = []
    author_docs: list[list[int]] = []
    lengths = array("I")

    def term_id(word: str) -> int:
        tid = term_of.get(word)
        if tid is not None:
            return tid
        s = stem(word)
        tid = id_of_stem.get(s)
        if tid is None:
            tid = id_of_stem[s] = len(id_of_stem)
            body_docs.append([])
            title_docs.append([])
            author_docs.append([])
        term_of[word] = tid
        return tid

    skipped: list[int] = []  # the papers of stopwords: emptied after each paper
    lists = _Lists(lambda word: body_docs[term_id(word)], skipped)
    title_lists = _Lists(lambda word: title_docs[term_id(word)], skipped)
    author_lists = _Lists(lambda word: author_docs[term_id(word)], skipped)
    append = list.append
    for doc, (text, known_title, authors) in enumerate(rows, first):
        if not doc & 15:
            if not alone:  # on a busy machine each pause may give the core to another process for a while
                time.sleep(0)  # let a waiting thread (the UI's, when built in its process) run every ~2 ms, not 5
            if cancelled is not None and cancelled.is_set():
                raise BuildCancelled
        found = split_words(index_form(text))
        deque(map(append, map(lists.__getitem__, found), repeat(doc)), maxlen=0)
        lengths.append(len(found) - len(skipped))
        heading = split_words(_title_source(text, known_title))
        deque(map(append, map(title_lists.__getitem__, heading), repeat(doc)), maxlen=0)
        if authors:  # kept apart from the abstract's words: BM25's lengths and related papers read the abstract only
            names = _author_words(authors)
            deque(map(append, map(author_lists.__getitem__, names), repeat(doc)), maxlen=0)
        skipped.clear()
    stems = list(id_of_stem)
    order = sorted(range(len(stems)), key=stems.__getitem__)
    return IndexData(
        terms=tuple(stems[i] for i in order),
        body=_counted(body_docs, order),
        title=_flatten(title_docs, order),
        lengths=lengths,
        authors=_flatten(author_docs, order),
    )


def _sorted_union(sorted_terms: list[Sequence[str]]) -> Iterator[str]:
    """The terms of parts (each sorted, without repeats) in order, each once: merged a term at a time, not sorted in
    one call, which held the interpreter 70 ms at 100,000 papers (the UI waiting for it)."""
    last = None
    for term in heapq.merge(*sorted_terms):
        if term != last:
            yield term
            last = term


def merge(parts: Sequence[IndexData]) -> IndexData:
    """One index of parts built apart, in the order of their papers (each numbered from where the one before ends):
    the same index as one build of all their papers. A loop of small steps, so the thread running it never holds
    the interpreter long (a UI thread beside it keeps drawing)."""
    if len(parts) == 1:
        return parts[0]
    terms = list(_sorted_union([part.terms for part in parts]))
    lookups = [dict(zip(part.terms, range(len(part.terms)), strict=True)) for part in parts]
    kinds = ("body", "title", "authors")
    merged = {kind: Postings(array("I", [0]), array("I"), array("H") if kind == "body" else None) for kind in kinds}
    for n, term in enumerate(terms):
        if not n & 255:
            time.sleep(0)  # let a waiting thread (the UI's) run now, not after the interpreter's 5 ms
        for part, lookup in zip(parts, lookups, strict=True):
            tid = lookup.get(term)
            if tid is None:
                continue
            for kind in kinds:
                source, target = getattr(part, kind), merged[kind]
                start, end = source.starts[tid], source.starts[tid + 1]
                if start != end:
                    target.docs.extend(source.docs[start:end])
                    if target.tfs is not None and source.tfs is not None:
                        target.tfs.extend(source.tfs[start:end])
        for postings in merged.values():
            postings.starts.append(len(postings.docs))
    lengths = array("I")
    for part in parts:
        lengths.extend(part.lengths)
    return IndexData(tuple(terms), merged["body"], merged["title"], lengths, merged["authors"])
