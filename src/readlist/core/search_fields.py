"""Which papers hold a word in one field: the title as shown (a file's title line, else the derived
title), a phrase in a row, a word read as two. A part of `SearchIndex`, kept apart for size."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from .matching import EXACT, FAINT, WordMatcher
from .paper import Paper
from .postings import IndexData, title_source
from .tokens import STOPWORDS, index_form, phrase_finder, split_words, stem

if TYPE_CHECKING:
    from collections.abc import Callable

MIN_PART = 3  # letters in each part of a compound word read as two words
RARE = 5  # papers: a word this common is not read as two


class FieldLookups:
    """Needs `papers`, `data`, `term_ids`, `df` and `_shown` from the index it is mixed into."""

    papers: tuple[Paper, ...]
    data: IndexData
    term_ids: dict[str, int]
    _shown: dict[int, tuple[str, frozenset[str]]]
    df: Callable[[str], int]

    @cached_property
    def file_titles(self) -> bool:
        """Whether the papers' titles come from the file (a file has title lines for all or none)."""
        return any(paper.file_title for paper in self.papers)

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
