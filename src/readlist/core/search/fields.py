"""Which papers hold a word in one field: the title as shown (a file's title line, else the derived
title), a phrase in a row, a word read as two. A search index owns one (`SearchIndex.fields`)."""

from __future__ import annotations

import re
import threading
from array import array
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from ..papers.held_titles import Titles, held
from ..papers.paper import Paper
from ..papers.title_cache import complete
from ..text.tokens import STOPWORDS, index_form, phrase_finder, split_words, stem
from .matching import EXACT, FAINT, WordMatcher
from .postings import BuildCancelled, IndexData, title_source

if TYPE_CHECKING:
    from .index import TermIds

MIN_PART = 3  # letters in each part of a compound word read as two words
RARE = 5  # papers: a word this common is not read as two


class FieldLookups:
    """The field lookups over an index's papers and postings; `df` is the index's count of papers holding a term."""

    def __init__(self, papers: tuple[Paper, ...], data: IndexData, term_ids: TermIds, df: Callable[[str], int]) -> None:
        self.papers = papers
        self.data = data
        self.term_ids = term_ids
        self.df = df
        self._derived: dict[str, array] | None = None  # see derived_titles
        self._derived_only: dict[str, array] = {}  # the stems of `_derived` that the index does not hold
        self._folded: Titles | None = None  # each derived title folded ("" for the others), with `_derived`
        self._derived_lock = threading.Lock()

    @cached_property
    def titled(self) -> int:
        """How many papers have a title line in the file (all, none, or a few a reader could not title)."""
        return sum(1 for paper in self.papers if paper.known_title)

    def docs(
        self,
        variants: Mapping[int, float],
        title_only: bool = False,
        matcher: WordMatcher | None = None,
        cancelled: threading.Event | None = None,
    ) -> set[int]:
        """Papers holding one of the terms; with `title_only`, in the title shown (see `title_docs`)."""
        if title_only:
            return self.title_docs(variants, matcher, cancelled)
        body, title, authors = self.data.body, self.data.title, self.data.authors
        out: set[int] = set()
        for tid in variants:
            out.update(body.docs_of(tid))
            out.update(title.docs_of(tid))
        if authors.docs:
            for tid in variants:
                out.update(authors.docs_of(tid))
        return out

    def author_docs(self, variants: Mapping[int, float]) -> set[int]:
        """Papers with an author whose name holds one of the terms (`author:`)."""
        authors = self.data.authors
        out: set[int] = set()
        for tid in variants:
            out.update(authors.docs_of(tid))
        return out

    def author_phrase_docs(self, words: list[str]) -> set[int]:
        """Papers with an author whose name holds these folded words in a row (`author:"jane doe"`)."""
        keys = [self.term_ids.get(stem(w)) for w in words if w not in STOPWORDS]
        if not keys or None in keys:
            return set()
        pool = set.intersection(*(set(self.data.authors.docs_of(tid)) for tid in keys))
        return {doc for doc in pool if _named(self.papers[doc], phrase_finder(words))}

    def title_terms(self, position: int) -> tuple[str, frozenset[str]]:
        """The terms `title:` matches: a paper's title as the list shows it (the file's title line, else the
        derived title), folded for matching, and its word stems."""
        folded = self.shown_folded(position)
        return folded, frozenset(stem(word) for word in split_words(folded) if word not in STOPWORDS)

    def shown_folded(self, position: int) -> str:
        folded = self._folded[position] if self._folded is not None else ""
        return folded or index_form(self.papers[position].title)

    def derived_titles(self) -> dict[str, array] | None:
        """Stem -> the papers without a title line whose derived title holds it; None until every derived
        title has been computed (the app derives them in the background and caches them on disk)."""
        if self._derived is None:
            papers = self.papers
            if not complete(papers):
                return None
            with self._derived_lock:
                if self._derived is None:
                    found: dict[str, array] = {}
                    folded = Titles()  # kept, as one block: title:"phrase" checks them at each key
                    cached = held(papers)  # read from the cache: not kept by each paper (see held_titles.py)
                    for pos, paper in enumerate(papers):
                        if paper.known_title:
                            folded.append("")
                        else:
                            text = index_form(cached[pos] if cached is not None else paper.title)
                            folded.append(text)
                            for term in {stem(word) for word in split_words(text) if word not in STOPWORDS}:
                                docs = found.get(term)
                                if docs is None:
                                    docs = found[term] = array("I")
                                docs.append(pos)
                    self._folded = folded
                    ids = self.term_ids.whole()
                    self._derived_only = {term: docs for term, docs in found.items() if term not in ids}
                    self._derived = found  # last: the others are set when this is
        return self._derived

    def title_docs(
        self,
        variants: Mapping[int, float],
        matcher: WordMatcher | None = None,
        cancelled: threading.Event | None = None,
    ) -> set[int]:
        """Papers whose title as shown holds one of the terms; `matcher` judges the words only a derived
        title holds ("exploiting" where the abstract says "exploits")."""
        title, papers, terms = self.data.title, self.papers, self.data.terms
        out: set[int] = set()
        if self.titled:
            for tid in variants:
                out.update(doc for doc in title.docs_of(tid) if papers[doc].known_title)
        if self.titled == len(papers):
            return out
        derived = self.derived_titles()
        if derived is not None:
            for tid in variants:
                out.update(derived.get(terms[tid], ()))
            if matcher is not None:
                for term, docs in self._derived_only.items():  # words no abstract holds as such
                    if matcher.weight(term) > FAINT:
                        out.update(docs)
            return out
        return out | self._derive_and_check(variants, matcher, cancelled)

    def _derive_and_check(
        self, variants: Mapping[int, float], matcher: WordMatcher | None, cancelled: threading.Event | None
    ) -> set[int]:
        """Before every title is derived: the papers whose abstract holds a term (a derived title is made of
        the abstract's words), checked one by one; raises BuildCancelled if `cancelled` is set meanwhile."""
        body, papers, terms, ids = self.data.body, self.papers, self.data.terms, self.term_ids.whole()
        wanted = {terms[tid]: weight for tid, weight in variants.items()}
        pool: set[int] = set()
        for tid in variants:
            pool.update(body.docs_of(tid))
        out = set()
        for n, doc in enumerate(pool):
            _check(cancelled, n)
            if papers[doc].known_title:
                continue
            for term in self.title_terms(doc)[1]:
                weight = wanted.get(term)
                if weight is None and matcher is not None and term not in ids:
                    weight = matcher.weight(term)
                if weight and weight > FAINT:
                    out.add(doc)
                    break
        return out

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

    @cached_property
    def _common_words(self) -> dict[str, frozenset[int]]:
        return {}

    def common_word_docs(self, word: str, cancelled: threading.Event | None = None) -> frozenset[int]:
        """Papers whose abstract (or title line) holds `word`, one of the stopwords the index leaves out: found
        by reading the texts (once per word), which only excluding such a word (`-the`, `-not`) needs.
        Raises BuildCancelled if `cancelled` is set meanwhile (seconds for 100,000 papers)."""
        if word not in self._common_words:
            found = re.compile(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", re.IGNORECASE).search
            docs = []
            for n, paper in enumerate(self.papers):
                _check(cancelled, n)
                if found(paper.text) or found(paper.known_title or ""):
                    docs.append(n)
            self._common_words[word] = frozenset(docs)
        return self._common_words[word]

    def phrase_docs(
        self, words: list[str], title_only: bool, most: int | None = None, cancelled: threading.Event | None = None
    ) -> set[int]:
        """Papers whose title as shown (or abstract) has these folded words in a row (plurals allowed)."""
        if title_only:
            return self._title_phrase_docs(words, cancelled)
        keys = [self.term_ids.get(stem(w)) for w in words if w not in STOPWORDS]
        if not keys or None in keys:
            return set()
        pool: set[int] | None = None
        for tid in sorted(keys, key=self.data.body.count):
            found = self.docs({tid: EXACT})
            pool = found if pool is None else pool & found
        if most is not None and len(pool or ()) > most:
            return set()
        found = phrase_finder(words)
        out = set()
        for doc in pool or ():
            paper = self.papers[doc]
            # a first sentence standing in for the title is part of the abstract
            titled = paper.known_title and found(title_source(paper))
            if titled or found(index_form(paper.text)) or _named(paper, found):  # or a name: "jane doe"
                out.add(doc)
        return out

    def _title_phrase_docs(self, words: list[str], cancelled: threading.Event | None) -> set[int]:
        title, body, papers = self.data.title, self.data.body, self.papers
        derived = self.derived_titles() if self.titled < len(papers) else {}
        pool: set[int] | None = None
        for word in words:
            if word in STOPWORDS:
                continue
            term = stem(word)
            tid = self.term_ids.get(term)
            if tid is None and derived is None:
                continue  # a form only a derived title holds: checked below
            docs = set() if tid is None else {doc for doc in title.docs_of(tid) if papers[doc].known_title}
            if derived is not None:
                docs.update(derived.get(term, ()))
            elif tid is not None:
                docs.update(doc for doc in body.docs_of(tid) if not papers[doc].known_title)
            pool = docs if pool is None else pool & docs
        found = phrase_finder(words)
        out = set()
        for n, doc in enumerate(pool or ()):
            _check(cancelled, n)
            if found(title_source(papers[doc]) if papers[doc].known_title else self.shown_folded(doc)):
                out.add(doc)
        return out


def _named(paper: Paper, found: Callable[[str], bool]) -> bool:
    """Whether one of the paper's authors' names holds the phrase `found` looks for (each name on its own)."""
    return any(found(index_form(name)) for name in paper.authors)


def _check(cancelled: threading.Event | None, n: int) -> None:
    """Every 64 papers checked (a title derived on the way costs 0.1 ms): stop if the caller gave up."""
    if cancelled is not None and not n & 63 and cancelled.is_set():
        raise BuildCancelled
