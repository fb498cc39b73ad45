"""The inverted index behind search: sorted terms, and for each term the papers (and counts) that hold it.

Everything lives in a few flat arrays so the index is compact, immutable, and quick to save and load.
"""

from __future__ import annotations

import gc
import os
import re
import sys
import threading
import time
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress
from operator import add, is_not, ne
from typing import TypeVar

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


STEP = 4096  # items handed to one C-level call where a thread beside it may wait: about a millisecond each at most
MAX_TF = 0xFFFF  # counts are kept in 16 bits (a word said 65,536+ times in one paper: BM25 saturates long before)


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


class _Ids(dict):
    """Folded word -> its term's id as 4 bytes (b"" for a stopword, which is not indexed), made the first time the
    word is met: a paper's words joined are its term ids, stopwords gone, in one C-level step."""

    def __init__(self, made: Callable[[str], bytes]) -> None:
        super().__init__(dict.fromkeys(STOPWORDS, b""))
        self.made = made

    def __missing__(self, word: str) -> bytes:
        self[word] = tid = self.made(word)
        return tid


def _build(rows: Iterable[Row], first: int, cancelled: threading.Event | None, alone: bool) -> IndexData:
    """Each paper's words become their term ids, joined as bytes onto one run for the abstracts (one for the titles,
    one for the authors' names), and how many it said is noted: a lookup per word and a join per paper, in C. The runs
    are then grouped by term by numpy (see _postings): a list for each term, appended to at each word and counted at
    the end, took a worker's 50,000 papers 3.1-3.8 s of CPU, now 2.5-2.9 s with numpy's import."""
    id_of_stem: dict[str, int] = {}

    def made(word: str) -> bytes:
        s = stem(word)
        tid = id_of_stem.get(s)
        if tid is None:
            tid = id_of_stem[s] = len(id_of_stem)
        return tid.to_bytes(4, sys.byteorder)

    word_ids = _Ids(made).__getitem__
    join = b"".join
    body, title, names = runs = (bytearray(), bytearray(), bytearray())  # the term ids of each paper in turn
    lengths, in_title, in_names = said = (array("I"), array("I"), array("I"))  # of each run's ids, each paper's
    for doc, (text, known_title, authors) in enumerate(rows, first):
        if not doc & 15:
            if not alone:  # on a busy machine each pause may give the core to another process for a while
                time.sleep(0)  # let a waiting thread (the UI's, when built in its process) run every ~2 ms, not 5
            if cancelled is not None and cancelled.is_set():
                raise BuildCancelled
        found = join(map(word_ids, split_words(index_form(text))))
        body += found
        lengths.append(len(found) >> 2)
        heading = join(map(word_ids, split_words(_title_source(text, known_title))))
        title += heading
        in_title.append(len(heading) >> 2)
        # kept apart from the abstract's words: BM25's lengths and related papers read the abstract only
        named = join(map(word_ids, _author_words(authors))) if authors else b""
        names += named
        in_names.append(len(named) >> 2)
    stems = list(id_of_stem)
    order = sorted(range(len(stems)), key=stems.__getitem__)
    body_postings, title_postings, author_postings = (
        _postings(run, count, first, order, counted)
        for run, count, counted in zip(runs, said, (True, False, False), strict=True)
    )
    return IndexData(
        terms=tuple(map(stems.__getitem__, order)),
        body=body_postings,
        title=title_postings,
        lengths=lengths,
        authors=author_postings,
    )


def _postings(run: bytearray, said: array, first: int, order: list[int], counted: bool) -> Postings:
    """Postings of a run of term ids, said[k] of them paper first + k's, the terms numbered as met and put in `order`:
    each (term, paper) once, in the terms' order and each term's papers ascending, with how many times the paper says
    the term (`counted`). Made a block of terms at a time (see _blocks), each block's words put in order by numpy."""
    np = _numpy()

    rank = np.empty(len(order), np.uint32)  # a term's place among the terms, by the number it was met as
    rank[order] = np.arange(len(order), dtype=np.uint32)
    terms = rank[np.frombuffer(run, np.uint32)] if run else np.zeros(0, np.uint32)
    run.clear()
    before = np.zeros(len(order) + 1, np.intp)  # how many words come before each term's, once in the terms' order
    np.cumsum(np.bincount(terms, minlength=len(order)), out=before[1:])
    papers = np.repeat(np.arange(first, first + len(said), dtype=np.uint32), np.frombuffer(said, np.uint32))
    starts, docs, tfs = array("I", [0]), array("I"), array("H")
    for lo, hi in _blocks(before):
        held = papers[_by_term(terms, lo, hi, len(order))]  # the block's words' papers, by term, each term's in turn
        new = np.empty(len(held), bool)  # where a (term, paper) pair starts: at a term's first word, or another paper
        new[:1] = True
        np.not_equal(held[1:], held[:-1], out=new[1:])
        firsts = before[lo:hi] - before[lo]
        new[firsts[firsts < len(held)]] = True
        at = np.flatnonzero(new)
        _extend(starts, (np.searchsorted(at, before[lo + 1 : hi + 1] - before[lo]) + len(docs)).astype(np.uint32))
        _extend(docs, held[at])
        if counted:
            _extend(tfs, np.minimum(np.diff(at, append=len(held)), MAX_TF).astype(np.uint16))
    return Postings(starts, docs, tfs if counted else None)


BLOCK_WORDS = 1 << 20  # words put in order at a time: a worker's 50,000 papers say 6 million


def _blocks(before) -> Iterator[tuple[int, int]]:
    """Ranges of terms (lo to hi) of at most 65,536 terms and about BLOCK_WORDS words each, a term said more often
    being a block alone: each block's words are put in order by a radix sort of 16-bit numbers, and what it needs
    is let go before the next (the whole run in one sort held a worker 80 MB more, and took longer)."""
    np = _numpy()

    count = len(before) - 1
    lo = 0
    while lo < count:
        hi = int(np.searchsorted(before, before[lo] + BLOCK_WORDS, side="right")) - 1
        hi = min(max(hi, lo + 1), lo + (1 << 16), count)
        yield lo, hi
        lo = hi


def _by_term(terms, lo: int, hi: int, count: int):
    """The positions of the words of terms lo to hi - 1 among `terms` (numbers below `count`), in the terms' order,
    each term's in the order they came."""
    np = _numpy()

    if lo == 0 and hi == count:
        return np.argsort(terms.astype(np.uint16), kind="stable")
    inside = terms >= lo
    inside &= terms < hi
    at = np.flatnonzero(inside)
    return at[np.argsort((terms[at] - np.uint32(lo)).astype(np.uint16), kind="stable")]


def _numpy():
    """numpy, imported by a build alone: a large list's app only merges the parts its workers built, and would hold
    numpy's 17 MB and spend its 0.1 s of import for nothing. Its linear algebra's threads are not started (the build
    does none): each would spin 60 ms of CPU after the import, on cores the build's other workers need."""
    if "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        import numpy

        return numpy
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # read as numpy is imported, then gone: a program the app starts later
    try:  # does not inherit it
        import numpy
    finally:
        os.environ.pop("OPENBLAS_NUM_THREADS", None)
    return numpy


def _extend(out: array, values) -> None:
    """Extend an array by numpy's numbers, copied as bytes (not read one number at a time)."""
    out.frombytes(memoryview(values).cast("B"))


KINDS = ("body", "title", "authors")
_Kept = TypeVar("_Kept", list, array, bytearray, deque)


def merge(parts: Sequence[IndexData]) -> IndexData:
    """One index of parts built apart, in the order of their papers (each numbered from where the one before ends):
    the same index as one build of all their papers. Neighbours are merged two at a time until one is left."""
    while len(parts) > 1:
        parts = [_merged(*parts[n : n + 2]) if n + 1 < len(parts) else parts[n] for n in range(0, len(parts), 2)]
    return parts[0]


def _merged(a: IndexData, b: IndexData) -> IndexData:
    """One index of two, b's papers after a's. Each part's terms are placed among the other's by bisection; the
    postings of a run of a's terms with none of b's between them follow each other in the merged index as in a, and
    are copied in one step (and so are b's). Every step is a C-level call over at most STEP items, so the thread
    merging never holds the interpreter long (a UI thread beside it keeps drawing); a loop over every term, each
    looked up in each part, took 0.4 s of CPU at 100,000 papers. What it keeps of each term is in arrays: lists of
    numbers would hold the app 16 MB more at 100,000 papers while the parts and the merged index are all held."""
    na, nb = len(a.terms), len(b.terms)
    # of b's terms, how many come before each of a's (and of a's before each of b's)
    b_before = _stepped(partial(map, partial(bisect_left, b.terms)), a.terms, kept=array("I"))
    a_before = _stepped(partial(map, partial(bisect_left, a.terms)), b.terms, kept=array("I"))
    # a's term i goes to place i + b_before[i], b's term j to j + a_before[j]: a term of both parts goes to one place
    # from each, leaving one of the na + nb places empty
    at_a = _stepped(partial(map, add), range(na), b_before, kept=array("I"))
    at_b = _stepped(partial(map, add), range(nb), a_before, kept=array("I"))
    places: list[str | None] = [None] * (na + nb)
    _stepped(partial(map, places.__setitem__), at_a, a.terms, kept=deque(maxlen=0))
    _stepped(partial(map, places.__setitem__), at_b, b.terms, kept=deque(maxlen=0))
    held = _stepped(partial(map, partial(is_not, None)), places, kept=bytearray())
    terms = tuple(_stepped(compress, places, held, kept=[]))
    # a's runs: a term starts one where a term of b comes between it and the term before (or b's copy of that term)
    new_run = _stepped(partial(map, ne), b_before[1:], b_before, kept=bytearray())
    runs = _stepped(compress, range(1, na), new_run, kept=[0]) if na else []
    a_cuts = [*runs, na]  # a's run k: its terms a_cuts[k] to a_cuts[k + 1]
    b_cuts = [0, *map(b_before.__getitem__, runs), nb]  # b's terms before a's first run, then those after each run
    merged = {}
    for kind in KINDS:
        one, other = getattr(a, kind), getattr(b, kind)
        if not one.docs and not other.docs:  # no paper has authors, say
            merged[kind] = Postings(
                array("I", [0]) * (len(terms) + 1), array("I"), None if one.tfs is None else array("H")
            )
            continue
        starts = array("I", [0]) * (na + nb)  # where each place's postings start in the merged postings
        _stepped(partial(_place, starts, other.starts), at_a, b_before, one.starts, kept=deque(maxlen=0))
        _stepped(partial(_place, starts, one.starts), at_b, a_before, other.starts, kept=deque(maxlen=0))
        starts = _stepped(compress, starts, held, kept=array("I"))
        starts.append(len(one.docs) + len(other.docs))
        a_at, b_at = [one.starts[n] for n in a_cuts], [other.starts[n] for n in b_cuts]
        docs = _joined(one.docs, other.docs, a_at, b_at)
        tfs = _joined(one.tfs, other.tfs, a_at, b_at) if one.tfs is not None and other.tfs is not None else None
        merged[kind] = Postings(starts, docs, tfs)
    return IndexData(terms, merged["body"], merged["title"], a.lengths + b.lengths, merged["authors"])


def _place(starts: array, others: array, at: Sequence[int], before: Sequence[int], own: Sequence[int]) -> Iterator:
    """Set where a part's terms' postings start in the merged postings (at their places `at`): after those of its own
    terms before it (`own`, its starts), and after those of the other part's terms before it (`before` of them, whose
    starts are `others`)."""
    return map(starts.__setitem__, at, map(add, own, map(others.__getitem__, before)))


def _joined(one: array, other: array, one_at: list[int], other_at: list[int]) -> array:
    """The postings of one's runs (one[one_at[k]:one_at[k + 1]]) and other's between and around them, in turn: other's
    before one's first run, then one's first, then other's next, ..."""
    joined = array(one.typecode, other[other_at[0] : other_at[1]])
    step = STEP // 4  # runs: each a slice made and copied, about a microsecond
    for at in range(0, len(one_at) - 1, step):
        time.sleep(0)  # let a waiting thread (the UI's) run now, not after the interpreter's 5 ms
        ones = map(one.__getitem__, map(slice, one_at[at : at + step], one_at[at + 1 : at + step + 1]))
        others = map(other.__getitem__, map(slice, other_at[at + 1 : at + step + 1], other_at[at + 2 : at + step + 2]))
        deque(map(joined.extend, chain.from_iterable(zip(ones, others, strict=True))), maxlen=0)
    return joined


def _stepped(make: Callable[..., Iterable], *sequences: Sequence, kept: _Kept) -> _Kept:
    """`kept` extended with make(*sequences), made STEP items of each sequence at a time, letting a waiting thread (the
    UI's) run before each step."""
    for at in range(0, len(sequences[0]), STEP):
        time.sleep(0)
        kept.extend(make(*(sequence[at : at + STEP] for sequence in sequences)))
    return kept
