"""How one query word matches index terms and displayed words: exactly, as a prefix, or with typos."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from .tokens import STOPWORDS, fold, split_words, stem

EXACT, PREFIX, ONE_TYPO, TWO_TYPOS = 1.0, 0.75, 0.55, 0.4
MAX_PREFIX_TERMS = 120  # a one-letter prefix keeps its most common completions only
MAX_FUZZY_TERMS = 60


def max_typos(word: str) -> int:
    """One typo (wrong, missing, extra or swapped letter) from 4 letters, two from 8; none in numbers."""
    if not word.isalpha() or word in STOPWORDS:
        return 0
    return 2 if len(word) >= 8 else 1 if len(word) >= 4 else 0


@dataclass(frozen=True)
class WordMatcher:
    word: str  # folded
    stem: str
    prefix: bool
    typos: int

    @classmethod
    def of(cls, word: str, prefix: bool = False) -> WordMatcher:
        return cls(word, stem(word), prefix, max_typos(word))

    def weight(self, term: str) -> float:
        """How well an index term (a stemmed folded word) matches; 0.0 for no match."""
        if term == self.stem:
            return EXACT
        if self.prefix and term.startswith(self.word):
            return PREFIX
        if self.typos and abs(len(term) - len(self.stem)) <= self.typos:
            distance = OSA.distance(self.stem, term, score_cutoff=self.typos)
            if distance <= self.typos:
                return ONE_TYPO if distance == 1 else TWO_TYPOS
        return 0.0

    def expand(self, terms: Sequence[str], by_length: dict[int, list[str]], df) -> dict[str, float]:
        """Index terms this word matches, with their weights. `terms` is sorted; `df(term)` counts papers."""
        found: dict[str, float] = {}
        at = bisect_left(terms, self.stem)
        if at < len(terms) and terms[at] == self.stem:
            found[self.stem] = EXACT
        if self.prefix:
            lo = bisect_left(terms, self.word)
            hi = bisect_left(terms, self.word + "\U0010ffff")
            completions = [t for t in terms[lo:hi] if t not in found]
            if len(completions) > MAX_PREFIX_TERMS:
                completions = sorted(completions, key=df, reverse=True)[:MAX_PREFIX_TERMS]
            for term in completions:
                found[term] = PREFIX
        if self.typos:
            near: list[tuple[int, str]] = []
            for length in range(len(self.stem) - self.typos, len(self.stem) + self.typos + 1):
                bucket = by_length.get(length)
                if bucket:  # one small call per length: other threads get the interpreter in between
                    hits = process.extract(self.stem, bucket, scorer=OSA.distance, score_cutoff=self.typos, limit=None)
                    near.extend((distance, term) for term, distance, _ in hits if distance)
            near.sort(key=lambda hit: (hit[0], -df(hit[1]), hit[1]))
            for distance, term in near[:MAX_FUZZY_TERMS]:
                found.setdefault(term, ONE_TYPO if distance == 1 else TWO_TYPOS)
        return found


def matchers(text: str, prefix: bool = False) -> list[WordMatcher]:
    """One matcher per word of a query term; stopwords drop out unless they are the word being typed."""
    words = split_words(fold(text))
    out = []
    for n, word in enumerate(words):
        last = prefix and n == len(words) - 1
        if word in STOPWORDS and not last:
            continue
        out.append(WordMatcher.of(word, last))
    return out
