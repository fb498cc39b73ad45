"""Ranked, typo-tolerant search over one paper list.

An index is built once per list (`SearchIndex.build`, or `index_cache.load_or_build`); each query
touches the vocabulary and the postings of its words, never every abstract. Scores are BM25 with
a bonus for title hits, scaled down for other word forms, prefix and typo matches. Papers holding
every word come first; the others follow by score, papers holding only a near form of a word
("revision" for "revise") among them.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .matching import EXACT, FAINT, PREFIX, WordMatcher
from .paper import Paper
from .postings import BuildCancelled, IndexData, build_data, title_source
from .query import QueryError, parse
from .search_eval import Evaluation, evaluate
from .tokens import STOPWORDS, index_form, phrase_finder, split_words, stem

__all__ = ["BuildCancelled", "QueryError", "SearchIndex", "SearchResult"]


K1, B = 1.2, 0.75
TITLE_BOOST = 1.6  # a title hit counts this many times the word's weight, on top of the abstract's
MIN_PART = 3  # letters in each part of a compound word read as two words
RARE = 5  # papers: a word this common is not read as two
SCORED_PAIRS = 100_000  # postings of prefix completions scored per query word (see score_into)
SENTENCE_BOOST = 0.2  # the same for a paper without a title line, whose first sentence stands in (a weak hint)


@dataclass(frozen=True)
class SearchResult:
    query: str
    positions: Sequence[int]
    scores: Sequence[float]
    full_matches: int
    error: str | None = None
    missing: bool = False
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


class SearchIndex:
    """An immutable index of a sequence of papers; safe to search from several threads."""

    def __init__(self, papers: Sequence[Paper], data: IndexData) -> None:
        if len(papers) != data.size:
            raise ValueError("index does not belong to these papers")
        self.papers = tuple(papers)
        self.data = data
        self.term_ids = {term: n for n, term in enumerate(data.terms)}
        by_length: dict[int, list[str]] = {}
        for term in data.terms:
            by_length.setdefault(len(term), []).append(term)
        self.by_length = by_length
        average = (sum(data.lengths) / len(data.lengths) if data.lengths else 0) or 1.0
        self.norms = [K1 * (1 - B + B * length / average) for length in data.lengths]
        self.position_of_id = {paper.id: n for n, paper in enumerate(self.papers)}
        self._shown: dict[int, tuple[str, frozenset[str]]] = {}  # position -> its title folded, and its stems

    @classmethod
    def build(cls, papers: Sequence[Paper], cancelled: threading.Event | None = None) -> SearchIndex:
        """Index the papers; raises BuildCancelled if `cancelled` is set meanwhile."""
        papers = tuple(papers)
        return cls(papers, build_data(papers, cancelled))

    def __len__(self) -> int:
        return len(self.papers)

    @cached_property
    def file_titles(self) -> bool:
        """Whether the papers' titles come from the file (a file has title lines for all or none)."""
        return any(paper.file_title for paper in self.papers)

    @cached_property
    def everything(self) -> frozenset[int]:
        return frozenset(range(len(self.papers)))

    # -- term statistics ------------------------------------------------------------------

    def df(self, term: str) -> int:
        tid = self.term_ids.get(term)
        if tid is None:
            return 0
        return self.tid_df(tid)

    def tid_df(self, tid: int) -> int:
        """Papers holding term `tid`, in the abstract or the title (a title word need not be in the abstract)."""
        return max(self.data.body.count(tid), self.data.title.count(tid))

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

    def docs(
        self, variants: Mapping[int, float], title_only: bool = False, matcher: WordMatcher | None = None
    ) -> set[int]:
        """Papers holding one of the terms; with `title_only`, in the title shown (see `title_docs`)."""
        if title_only:
            return self.title_docs(variants, matcher)
        body, title = self.data.body, self.data.title
        out: set[int] = set()
        for tid in variants:
            out.update(body.docs_of(tid))
            out.update(title.docs_of(tid))
        return out

    def shown_title(self, position: int) -> tuple[str, frozenset[str]]:
        """A paper's title as the list shows it (the file's title line, else the derived title), folded
        for matching, and its word stems; derived once per paper."""
        shown = self._shown.get(position)
        if shown is None:
            folded = index_form(self.papers[position].title)
            stems = frozenset(stem(word) for word in split_words(folded) if word not in STOPWORDS)
            shown = self._shown[position] = (folded, stems)
        return shown

    def title_docs(self, variants: Mapping[int, float], matcher: WordMatcher | None = None) -> set[int]:
        """Papers whose title as shown holds one of the terms. A derived title is made of the abstract's
        words, in these or other forms ("exploiting" for "exploits"), so its candidates are the papers
        whose abstract holds the terms; `matcher` judges forms the index does not hold."""
        body, title, papers, terms = self.data.body, self.data.title, self.papers, self.data.terms
        wanted = {terms[tid]: weight for tid, weight in variants.items()}
        out: set[int] = set()
        pool: set[int] = set()
        for tid in variants:
            if self.file_titles:
                out.update(doc for doc in title.docs_of(tid) if papers[doc].file_title)
            pool.update(body.docs_of(tid))
        for doc in pool.difference(out):
            if papers[doc].file_title:
                continue
            for term in self.shown_title(doc)[1]:
                weight = wanted.get(term)
                if weight is None and matcher is not None and term not in self.term_ids:
                    weight = matcher.weight(term)
                if weight and weight > FAINT:
                    out.add(doc)
                    break
        return out

    def score_into(
        self,
        variants: Mapping[int, float],
        candidates: set[int],
        best: dict[int, float],
        title_only: bool = False,
        cap: float | None = None,
    ) -> None:
        """For each candidate, the best of the variants' BM25 scores (title hits boosted), added to `best`.

        No variant's weight goes above `cap` (the query word's own): a rare typo variant is no better than the word.
        Completions of a one- or two-letter prefix ("l") hold most papers: past SCORED_PAIRS postings, the rarer
        ones only list their papers (they still match) without adding to their scores.
        """
        body, title, norms, papers = self.data.body, self.data.title, self.norms, self.papers
        mine: dict[int, float] = {}
        budget = SCORED_PAIRS
        for tid, alpha in sorted(variants.items(), key=lambda item: (-item[1], -body.count(item[0]))):
            budget -= body.count(tid)
            if budget < 0 and alpha == PREFIX:
                continue
            idf = self.idf(self.tid_df(tid))
            weight = alpha * (idf if cap is None else min(idf, cap))
            local: dict[int, float] = {}
            if not title_only or not self.file_titles:  # a derived title's paper is scored by its abstract
                docs, tfs = body.docs_of(tid), body.tfs_of(tid)
                if len(candidates) * 8 < len(docs):
                    size = len(docs)
                    for doc in candidates:
                        at = bisect_left(docs, doc)
                        if at < size and docs[at] == doc:
                            tf = tfs[at]
                            local[doc] = weight * tf * (K1 + 1) / (tf + norms[doc])
                else:
                    for doc, tf in zip(docs, tfs, strict=True):
                        if doc in candidates:
                            local[doc] = weight * tf * (K1 + 1) / (tf + norms[doc])
            titled, untitled = weight * TITLE_BOOST, weight * SENTENCE_BOOST
            if title_only and not self.file_titles:
                untitled = 0.0
            for doc in candidates.intersection(title.docs_of(tid)):
                local[doc] = local.get(doc, 0.0) + (titled if papers[doc].file_title else untitled)
            for doc, score in local.items():
                if score > mine.get(doc, 0.0):
                    mine[doc] = score
        for doc, score in mine.items():
            best[doc] = best.get(doc, 0.0) + score

    def compounds(self, word: str) -> list[tuple[str, str]]:
        """Ways to read a rare or unknown word as two indexed words ("multiuser": multi, user)."""
        ids = self.term_ids
        if len(word) < 2 * MIN_PART or not word.isalpha() or self.df(stem(word)) >= RARE:
            return []
        out = []
        for cut in range(MIN_PART, len(word) - MIN_PART + 1):
            head, tail = word[:cut], word[cut:]
            if head not in STOPWORDS and tail not in STOPWORDS and stem(head) in ids and stem(tail) in ids:
                out.append((head, tail))
        return out

    def phrase_docs(self, words: list[str], title_only: bool, most: int | None = None) -> set[int]:
        """Papers whose title as shown (or abstract) has these folded words in a row (plurals allowed)."""
        keys = [self.term_ids.get(stem(w)) for w in words if w not in STOPWORDS]
        if title_only and not self.file_titles:
            keys = [key for key in keys if key is not None]  # a derived title may hold a form no abstract has
        if not keys or None in keys:
            return set()
        pool: set[int] | None = None
        body, title = self.data.body, self.data.title
        for tid in sorted(keys, key=title.count if title_only and self.file_titles else body.count):
            found = set(title.docs_of(tid)) if title_only and self.file_titles else self.docs({tid: EXACT})
            pool = found if pool is None else pool & found
        if most is not None and len(pool or ()) > most:
            return set()
        found = phrase_finder(words)
        out = set()
        for doc in pool or ():
            paper = self.papers[doc]
            if paper.file_title and found(title_source(paper)):
                out.add(doc)
            elif title_only:
                if not paper.file_title and found(self.shown_title(doc)[0]):
                    out.add(doc)
            elif found(index_form(paper.text)):  # a first sentence standing in for the title is part of it
                out.add(doc)
        return out

    # -- searching ------------------------------------------------------------------------

    def search(
        self, query: str, annotations: Mapping[str, Any] | None = None, limit: int | None = None
    ) -> SearchResult:
        """Rank the papers for a query. Never raises for any query string: problems come back in `error`."""
        try:
            parsed = parse(query)
        except QueryError as exc:
            return SearchResult(query, (), (), 0, error=str(exc))
        if any(term.kind == "is" and term.value == "missing" and not term.negated for term in parsed.terms):
            return SearchResult(query, (), (), 0, missing=True)
        if parsed.blank:
            positions = range(len(self.papers))
            return SearchResult(query, positions[:limit], [0.0] * len(positions[:limit]), len(positions[:limit]))
        evaluation = evaluate(self, parsed, annotations or {})
        positions, scores, full = evaluation.ranked()
        if limit is not None:
            positions, scores, full = positions[:limit], scores[:limit], min(full, limit)
        return SearchResult(query, positions, scores, full, _evaluation=evaluation)
