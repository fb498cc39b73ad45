"""The fields of a paper's record a search filters on: `year:`, `venue:` and `cat:` (`author:` is in the index).

Each lookup is built from the papers on first use (a few milliseconds for 100,000 papers) and kept: a list
without years, venues or categories pays nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from ..papers.paper import Paper
from ..text.tokens import STOPWORDS, fold, phrase_finder, split_words, stem
from .matching import FAINT, WordMatcher


def _positions(pairs) -> dict:
    """Key -> the positions holding it, in order, from (key, position) pairs."""
    out: dict = {}
    for key, pos in pairs:
        out.setdefault(key, []).append(pos)
    return out


class RecordFields:
    """The papers' years, venues and arXiv categories, each by value."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = papers

    @cached_property
    def years(self) -> dict[int, list[int]]:
        return _positions((paper.year, pos) for pos, paper in enumerate(self.papers) if paper.year)

    def year_docs(self, low: int | None, high: int | None) -> set[int]:
        """Papers published from `low` to `high` (either None: open); a paper without a year is in no range."""
        out: set[int] = set()
        for year, docs in self.years.items():
            if (low is None or year >= low) and (high is None or year <= high):
                out.update(docs)
        return out

    @cached_property
    def venues(self) -> list[str | None]:
        """Each paper's venue, folded (None without one)."""
        return [fold(paper.venue) if paper.venue else None for paper in self.papers]

    @cached_property
    def venue_terms(self) -> dict[str, list[int]]:
        """Stem of a venue's word -> the papers whose venue holds it."""
        return _positions(
            (term, pos)
            for pos, venue in enumerate(self.venues)
            if venue
            for term in {stem(word) for word in split_words(venue) if word not in STOPWORDS}
        )

    def venue_docs(self, matcher: WordMatcher) -> set[int]:
        """Papers whose venue holds the word (in another form, as a prefix while typing, with a typo)."""
        out: set[int] = set()
        for term, docs in self.venue_terms.items():
            if matcher.weight(term) > FAINT:
                out.update(docs)
        return out

    def venue_phrase_docs(self, words: list[str]) -> set[int]:
        """Papers whose venue holds these folded words in a row."""
        found = phrase_finder(words)
        return {pos for pos, venue in enumerate(self.venues) if venue and found(venue)}

    @cached_property
    def categories(self) -> dict[str, list[int]]:
        """An arXiv category, in lower case ("cs.lg") -> the papers listed in it."""
        return _positions(
            (category, pos)
            for pos, paper in enumerate(self.papers)
            for category in {category.lower() for category in paper.categories}
        )

    def category_docs(self, value: str, prefix: bool = False) -> set[int]:
        """Papers in the category `value` (case aside), or in one of its archive's (`cs` is cs.LG, cs.AI...);
        with `prefix` (being typed), in any category starting with it."""
        wanted = value.lower()
        out: set[int] = set()
        for category, docs in self.categories.items():
            if category == wanted or category.startswith(wanted + ".") or (prefix and category.startswith(wanted)):
                out.update(docs)
        return out
