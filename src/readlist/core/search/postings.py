"""The inverted index behind search: sorted terms, and for each term the papers (and counts) that hold it.

Everything lives in a few flat arrays so the index is compact, immutable, and quick to save and load.
"""

from __future__ import annotations

import gc
import re
import sys
import threading
import time
from array import array
from bisect import bisect_left
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, repeat
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
