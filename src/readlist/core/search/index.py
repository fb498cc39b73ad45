"""Ranked, typo-tolerant search over one paper list.

An index is built once per list (`SearchIndex.build`, or `index_cache.load_or_build`); each query
touches the vocabulary and the postings of its words, never every abstract. Scores are BM25 with
a bonus for title hits, scaled down for other word forms, prefix and typo matches. Papers holding
every word come first; the others, holding some word, follow by score (a near form of a missing word,
"revision" for "revise", ranks them higher).
"""

from __future__ import annotations

import math
import threading
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import add, mul, truediv
from pathlib import Path
from typing import Any

from ..papers.paper import Paper
from .evaluate import Evaluation, Kept, evaluate
from .fields import FieldLookups
from .matching import PREFIX, WordMatcher
from .postings import BuildCancelled, IndexData, build_data
from .query import QueryError, parse
from .record_fields import RecordFields

__all__ = ["BuildCancelled", "QueryError", "SearchIndex", "SearchResult"]


K1, B = 1.2, 0.75
TITLE_BOOST = 1.6  # a title hit counts this many times the word's weight, on top of the abstract's
SCORED_PAIRS = 100_000  # postings of prefix completions scored per query word (see word_scores)
SENTENCE_BOOST = 0.2  # the same for a paper without a title line, whose first sentence stands in (a weak hint)
AUTHOR_BOOST = 1.0  # an author's name holding the word counts this many times the word's weight
MADE_AT_ONCE = 16_384  # papers whose kept scores are made at a weight between two looks at `cancelled` (Packed)
KEPT_VARIANT = 5_000  # papers holding a variant whose scores word_scores keeps for the next keys (when given where)
BISECTED = 10_000  # terms looked up by bisection (about 15 ms of CPU at 100k papers) before their dict is made


@dataclass(frozen=True)
class SearchResult:
    query: str
    positions: Sequence[int]
    scores: Sequence[float]
    full_matches: int
    error: str | None = None
    missing: bool = False
    partial: bool = False  # found without the index (see scan): its answer replaces this one
    _evaluation: Evaluation | None = field(default=None, repr=False, compare=False)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """[start, end) spans of `text` (a title or an abstract's plain text) to highlight."""
        if self._evaluation is None or not text:
            return []
        return self._evaluation.spans(text)

    def matched_terms(self, position: int) -> list[str]:
        """The words of the paper (title, abstract, note, tags) that the query matched."""
        if self._evaluation is None:
            return []
        return self._evaluation.matched_terms(position)


@dataclass(frozen=True, eq=False)
class Packed:
    """A variant's scores kept for the next keys (see word_scores) in two flat arrays: 12 bytes a paper, where the
    dict they are made back into holds about 100 (made back in 4 ms for 90k papers, where scoring them took 20)."""

    docs: array  # "I"
    values: array  # "d": the same floats, in the same order

    def __len__(self) -> int:
        return len(self.docs)

    def scores(self, weight: float, cancelled: threading.Event | None = None) -> dict[int, float]:
        """The scores at `weight`, made MADE_AT_ONCE papers at a time, raising BuildCancelled once `cancelled` is set
        between two: made in one call, 90k papers' held the interpreter 8-10 ms, the query typed next waiting."""
        docs, values, out = self.docs, self.values, {}
        for start in range(0, len(docs), MADE_AT_ONCE):
            if start and cancelled is not None and cancelled.is_set():
                raise BuildCancelled
            stop = start + MADE_AT_ONCE
            out.update(zip(docs[start:stop], map(weight.__mul__, values[start:stop]), strict=True))
        return out


def length_norms(lengths: Sequence[int]) -> array:
    """Each paper's BM25 length norm (10-20 ms of CPU at 100,000 papers: kept in the cache file, see Lookups)."""
    average = (sum(lengths) / len(lengths) if lengths else 0) or 1.0
    return array("d", [K1 * (1 - B + B * length / average) for length in lengths])


def length_order(terms: Sequence[str]) -> array:
    """The term ids in order of their term's length, each length's in the terms' order (a stable sort)."""
    sizes = list(map(len, terms))
    return array("I", sorted(range(len(terms)), key=sizes.__getitem__))


@dataclass(frozen=True, eq=False)
class Lookups:
    """What an index makes of its data and papers to search it, kept in its cache file beside the data (see
    index_cache): each paper's length norm, the term ids in order of length, which the typo search reads a length at a
    time, and how many papers have a title of their own (FieldLookups.titled: 7 ms of CPU at 100,000 papers, the
    first search waiting; the content key of the file says which papers have one)."""

    norms: array  # "d"
    by_length: array  # "I" (see length_order)
    titled: int | None = None  # None: counted when first asked for

    @classmethod
    def of(cls, data: IndexData) -> Lookups:
        return cls(length_norms(data.lengths), length_order(data.terms))


class Buckets(Mapping):
    """Length -> the terms of that length, in order: each made from the terms' order by length (Lookups.by_length)
    when first asked for, not all when the index opens (7-10 ms of CPU at 100,000 papers, the first search waiting)."""

    def __init__(self, terms: Sequence[str], order: Sequence[int]) -> None:
        self.terms = terms
        self.order = order
        self.made: dict[int, list[str]] = {}

    def __getitem__(self, length: int) -> list[str]:
        bucket = self.made.get(length)
        if bucket is None:
            terms, order = self.terms, self.order
            lo = bisect_left(order, length, key=lambda tid: len(terms[tid]))
            hi = bisect_left(order, length + 1, lo, key=lambda tid: len(terms[tid]))
            bucket = self.made[length] = list(map(terms.__getitem__, order[lo:hi]))  # two threads may make it: alike
        if not bucket:
            raise KeyError(length)
        return bucket

    def __iter__(self) -> Iterator[int]:
        return iter(sorted({len(term) for term in self.terms}))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class TermIds(Mapping):
    """Term -> its id, its place among the sorted terms: found by bisection until `whole` has made the dict of them all
    (16 ms of CPU at 100,000 papers, which the first search waited for when the index opened). The app makes it once
    the index has answered; a loop looking up many terms asks for it, and so do BISECTED lookups by bisection."""

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = terms
        self._ids: dict[str, int] | None = None
        self._bisected = 0

    def whole(self) -> dict[str, int]:
        ids = self._ids
        if ids is None:  # two threads may make it: the same
            ids = self._ids = dict(zip(self.terms, range(len(self.terms)), strict=True))
            self.get = ids.get  # type: ignore[method-assign]  # looked up in the dict itself from now on, at C speed
        return ids

    def get(self, term: str, default: int | None = None) -> int | None:  # type: ignore[override]
        self._bisected += 1
        if self._bisected > BISECTED:
            return self.whole().get(term, default)
        terms = self.terms
        at = bisect_left(terms, term)
        return at if at < len(terms) and terms[at] == term else default

    def __getitem__(self, term: str) -> int:
        tid = self.get(term)
        if tid is None:
            raise KeyError(term)
        return tid

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self.terms)

    def __len__(self) -> int:
        return len(self.terms)


def _add(scores: dict[int, float], docs: list[int], amounts: Iterable[float]) -> None:
    """scores[doc] += amount for each paper (from 0.0), in C-level loops: a common word's title hits are thousands."""
    scores.update(zip(docs, map(add, map(scores.get, docs, repeat(0.0)), amounts), strict=False))


class SearchIndex:
    """An immutable index of a sequence of papers; safe to search from several threads."""

    def __init__(self, papers: Sequence[Paper], data: IndexData, lookups: Lookups | None = None) -> None:
        """`lookups`: those of `data`, read with it from the cache (else made here)."""
        if len(papers) != data.size:
            raise ValueError("index does not belong to these papers")
        self.papers = tuple(papers)
        self.data = data
        self.term_ids = TermIds(data.terms)
        if lookups is None:
            by_length: dict[int, list[str]] = {}
            for term in data.terms:
                by_length.setdefault(len(term), []).append(term)
            self.by_length: Mapping[int, list[str]] = by_length
            self.norms = length_norms(data.lengths)
        else:
            self.by_length = Buckets(data.terms, lookups.by_length)
            self.norms = lookups.norms
        self.annotated_by_object: dict = {}  # see evaluate.annotated_positions
        self.fields = FieldLookups(self.papers, data, self.term_ids, self.df)  # title:, author:, phrases, compounds
        if lookups is not None and lookups.titled is not None:
            self.fields.titled = lookups.titled  # in place of the count made when first asked for
        self.records = RecordFields(self.papers)  # year:, venue:, cat:
        self.has_authors = bool(data.authors.docs)  # a list without names pays nothing for them
        self.cache_file: Path | None = None  # where index_cache keeps this index, when it does
        self.unsaved: tuple | None = None  # built and not yet in index_cache: see index_cache.save_built

    @cached_property
    def position_of_id(self) -> dict[str, int]:
        """Each paper's position by its id, made when a search first reads annotations (8 MB at 100k papers, held by
        no list whose annotations hold no words)."""
        return {paper.id: n for n, paper in enumerate(self.papers)}

    @classmethod
    def build(cls, papers: Sequence[Paper], cancelled: threading.Event | None = None) -> SearchIndex:
        """Index the papers; raises BuildCancelled if `cancelled` is set meanwhile."""
        papers = tuple(papers)
        return cls(papers, build_data(papers, cancelled))

    def __len__(self) -> int:
        return len(self.papers)

    @property
    def everything(self) -> range:
        """Every paper's position: a range, which answers `in` and `len` holding no set of 100,000 numbers (7 MB)."""
        return range(len(self.papers))

    # -- term statistics ------------------------------------------------------------------

    def df(self, term: str) -> int:
        tid = self.term_ids.get(term)
        if tid is None:
            return 0
        return self.tid_df(tid)

    def tid_df(self, tid: int) -> int:
        """Papers holding term `tid`, in the abstract, the title or an author's name (a title word need not be in
        the abstract, and a name is seldom in either)."""
        data = self.data
        count = max(data.body.count(tid), data.title.count(tid))
        return max(count, data.authors.count(tid)) if self.has_authors else count

    def idf(self, df: int) -> float:
        n = len(self.papers)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def expand(self, matcher: WordMatcher) -> dict[int, float]:
        """Term ids a query word matches, with weights (exact 1, prefix and typo variants less)."""
        found = matcher.expand(self.data.terms, self.by_length, self.df)
        return {self.term_ids[term]: weight for term, weight in found.items()}

    def word_idf(self, variants: Mapping[int, float]) -> float:
        """A query word's weight: that of its commonest best-matching term (the rarest weight when none)."""
        if not variants:
            return self.idf(0)
        top = max(variants.values())
        df = max(self.tid_df(tid) for tid, alpha in variants.items() if alpha == top)
        return self.idf(df)

    def word_scores(
        self,
        variants: Mapping[int, float],
        candidates: set[int] | range,
        title_only: bool = False,
        cap: float | None = None,
        cancelled: threading.Event | None = None,
        kept: Kept | None = None,
    ) -> dict[int, float]:
        """For each candidate holding a variant, the best of the variants' BM25 scores (title and author hits boosted).

        No variant's weight goes above `cap` (the query word's own): a rare typo variant is no better than the word.
        Completions of a one- or two-letter prefix ("l") hold most papers: past SCORED_PAIRS postings, the rarer
        ones only list their papers (they still match) without adding to their scores. Candidates that are a range
        are every paper (`everything`): each posting is kept, with no test, and a common variant's scores are kept
        in `kept` for the next keys (see variant_scores). Raises BuildCancelled when `cancelled` is set, checked at
        each variant: a search typed over goes on in its thread until it stops, its memory with it.
        """
        every = isinstance(candidates, range)
        body = self.data.body
        mine: dict[int, float] = {}
        budget = SCORED_PAIRS
        for tid, alpha in sorted(variants.items(), key=lambda item: (-item[1], -body.count(item[0]))):
            budget -= body.count(tid)
            if budget < 0 and alpha == PREFIX:
                continue
            if cancelled is not None and cancelled.is_set():
                raise BuildCancelled
            idf = self.idf(self.tid_df(tid))
            weight = alpha * (idf if cap is None else min(idf, cap))
            if every and kept is not None and body.count(tid) >= KEPT_VARIANT:
                packed = kept.get((tid, title_only))
                if packed is None:
                    unit = self.variant_scores(tid, candidates, title_only)
                    packed = Packed(array("I", unit), array("d", unit.values()))
                    del unit  # before its scores at this weight are made: 9 MB for 90k papers
                    kept.put((tid, title_only), packed)
                local = packed.scores(weight, cancelled)
            else:
                unit = self.variant_scores(tid, candidates, title_only)
                local = dict(zip(unit, map(weight.__mul__, unit.values()), strict=True))
            if not mine:
                mine = local
                continue
            keys = list(local)  # each paper's best variant
            mine.update(zip(keys, map(max, local.values(), map(mine.get, keys, repeat(0.0))), strict=False))
        return mine

    def variant_scores(self, tid: int, candidates: set[int] | range, title_only: bool = False) -> dict[int, float]:
        """One variant's BM25 score at weight 1 for each candidate holding it (title and author hits boosted), which
        word_scores multiplies by the variant's weight. A common variant of the word typed ("model" for "m", "mode",
        "model" and "models", each at a weight of its own) is kept at weight 1: made once, not again at each key (20
        ms for 90k papers)."""
        every = isinstance(candidates, range)
        body, title, norms, papers = self.data.body, self.data.title, self.norms, self.papers
        authors = self.data.authors
        local: dict[int, float] = {}
        if not title_only or self.fields.titled < len(papers):  # a derived title's paper is scored by its abstract
            docs, tfs = body.docs_of(tid), body.tfs_of(tid)
            if len(candidates) * 8 < len(docs):
                size = len(docs)
                for doc in candidates:
                    at = bisect_left(docs, doc)
                    if at < size and docs[at] == doc:
                        tf = tfs[at]
                        local[doc] = tf * (K1 + 1) / (tf + norms[doc])
            else:  # the same sum for every posting, in C-level loops: a common word has tens of thousands
                sums = map(mul, tfs, repeat(K1 + 1))
                scores = map(truediv, sums, map(add, tfs, map(norms.__getitem__, docs)))
                pairs = zip(docs, scores, strict=True)
                local = dict(pairs if every else compress(pairs, map(candidates.__contains__, docs)))
        if title_only and self.fields.titled:
            local = {doc: score for doc, score in local.items() if not papers[doc].known_title}
        titled, untitled = TITLE_BOOST, 0.0 if title_only else SENTENCE_BOOST
        heads = list(title.docs_of(tid)) if every else list(candidates.intersection(title.docs_of(tid)))
        _add(local, heads, self._title_boosts(heads, titled, untitled))
        if self.has_authors and not title_only and authors.count(tid):
            named = authors.docs_of(tid)
            named = list(named) if every else list(candidates.intersection(named))
            _add(local, named, repeat(AUTHOR_BOOST))
        return local

    def _title_boosts(self, docs: list[int], titled: float, untitled: float) -> Iterable[float]:
        """Each paper's boost for a title hit: its file's title counts more than a first sentence standing in."""
        if not self.fields.titled:
            return repeat(untitled)
        if self.fields.titled == len(self.papers):
            return repeat(titled)
        papers = self.papers
        return [titled if papers[doc].known_title else untitled for doc in docs]

    def derived_titles(self) -> dict[str, array] | None:
        """Stem -> the papers whose derived title holds it, None until every title is derived (see FieldLookups);
        the app calls it in the background once they are, so that no `title:` search waits for it."""
        return self.fields.derived_titles()

    # -- searching ------------------------------------------------------------------------

    def search(
        self,
        query: str,
        annotations: Mapping[str, Any] | None = None,
        limit: int | None = None,
        cancelled: threading.Event | None = None,
    ) -> SearchResult:
        """Rank the papers for a query. Never raises for any query string: problems come back in `error`.

        Raises BuildCancelled if `cancelled` is set while titles are being derived for a `title:` term, or while
        the texts are read for an excluded common word (`-the`).
        """
        try:
            parsed = parse(query)
        except QueryError as exc:
            return SearchResult(query, (), (), 0, error=str(exc))
        if parsed.asks_for_missing:
            return SearchResult(query, (), (), 0, missing=True)
        if parsed.blank:
            positions = range(len(self.papers))
            return SearchResult(query, positions[:limit], [0.0] * len(positions[:limit]), len(positions[:limit]))
        evaluation = evaluate(self, parsed, annotations or {}, cancelled)
        positions, scores, full = evaluation.ranked()
        if limit is not None:
            positions, scores, full = positions[:limit], scores[:limit], min(full, limit)
        return SearchResult(query, positions, scores, full, _evaluation=evaluation)
