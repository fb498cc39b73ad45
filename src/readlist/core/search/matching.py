"""How one query word matches index terms and displayed words: exactly, in another form, as a prefix, or with typos."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA

from ..text.tokens import MIN_ROOT, STOPWORDS, fold, root, split_words, stem

# Weights of the index terms a query word matches. A word missing from the vocabulary is a typo: its
# nearest real words take nearly its full weight. A real word keeps its typo variants faint.
EXACT, FAMILY, PREFIX, NEAREST = 1.0, 0.85, 0.75, 0.9
ONE_TYPO, TWO_TYPOS = 0.55, 0.4
NEAR_FORM = 0.25  # a longer or shorter word on the same stem ("revise", "revision"): never counts as the word
FAINT = 0.3  # a typo variant of a word that exists as typed: ranks, but does not count as a match
HAPAX = 2  # unless the word as typed is in this few papers (a typo in them?)
OUTNUMBER = 10  # and the variant in this many times as many: then the variant counts as a near word
MAX_FAMILY_OF_NEAREST = 4
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
    family: bool = True  # also the word's other forms ("evaluated" for "evaluation")

    @classmethod
    def of(cls, word: str, prefix: bool = False) -> WordMatcher:
        return cls(word, stem(word), prefix, max_typos(word))

    @property
    def exact(self) -> WordMatcher:
        """This word as typed: no typos, no other forms, no completions."""
        return WordMatcher(self.word, self.stem, False, 0, False)

    @property
    def root(self) -> str:
        return root(self.stem)

    def typo_starts(self) -> list[tuple[str, int]]:
        """Readings of a word that is not in the index to look for typo variants from, each with the typos it
        already assumes. A typo near the end can hide a plural from the stemmer: "wnis" is "win" (as "wni")
        and "seriez" is "sery" (series) with one typo, "antibodiej" is "antibody"."""
        word, starts = self.word, {self.stem: 0}
        if word != self.stem:
            starts.setdefault(word, 0)
        if word.endswith("s") and len(word) >= 4:
            starts.setdefault(word[:-1], 0)
        for size in (2, 3, 4):
            tail = word[-size:]
            if len(word) - size >= 3:
                cost = OSA.distance(tail, "ies", score_cutoff=1)
                if cost <= min(1, self.typos):
                    starts.setdefault(word[:-size] + "y", cost)
        return list(starts.items())

    def weight(self, term: str) -> float:
        """How well an index term (a stemmed folded word) matches; 0.0 for no match."""
        if term == self.stem:
            return EXACT
        if self.family and len(self.root) >= MIN_ROOT and term.startswith(self.root) and root(term) == self.root:
            return FAMILY
        if self.prefix and term.startswith(self.word):
            return PREFIX
        if self.typos and abs(len(term) - len(self.stem)) <= self.typos:
            distance = OSA.distance(self.stem, term, score_cutoff=self.typos)
            if distance <= self.typos:
                return typo_weight(distance)
        return 0.0

    def expand(self, terms: Sequence[str], by_length: Mapping[int, list[str]], df) -> dict[str, float]:
        """Index terms this word matches, with their weights. `terms` is sorted; `df(term)` counts papers."""
        found: dict[str, float] = {}
        at = bisect_left(terms, self.stem)
        if at < len(terms) and terms[at] == self.stem:
            found[self.stem] = EXACT
        if self.family:
            for term in family(self.stem, terms):
                found.setdefault(term, FAMILY)
        real = self.stem in found  # a word not in the index whose root is (genreative: genre) may be a typo
        if self.prefix:
            lo = bisect_left(terms, self.word)
            hi = bisect_left(terms, self.word + "\U0010ffff")
            completions = [t for t in terms[lo:hi] if t not in found]
            if len(completions) > MAX_PREFIX_TERMS:
                completions = sorted(completions, key=df, reverse=True)[:MAX_PREFIX_TERMS]
            for term in completions:
                found[term] = PREFIX
        if self.typos:
            closest_to: dict[str, int] = {}
            for start, cost in [(self.stem, 0)] if real else self.typo_starts():
                budget = self.typos - cost
                for length in range(len(start) - budget, len(start) + budget + 1):
                    bucket = by_length.get(length)
                    if bucket:  # one small call per length: other threads get the interpreter in between
                        hits = process.extract(start, bucket, scorer=OSA.distance, score_cutoff=budget, limit=None)
                        for term, distance, _ in hits:
                            if distance + cost and term != self.stem:
                                closest_to[term] = min(closest_to.get(term, 99), distance + cost)
            near = sorted(((d, term) for term, d in closest_to.items()), key=lambda hit: (hit[0], -df(hit[1]), hit[1]))
            near = near[:MAX_FUZZY_TERMS]
            if real:
                seen = max(df(term) for term, weight in found.items() if weight != PREFIX)
                common = OUTNUMBER * seen if seen <= HAPAX else 1 << 62
                for distance, term in near:
                    found.setdefault(term, typo_weight(distance) if df(term) >= common else FAINT)
            elif PREFIX in found.values():  # completions of a word being typed come before its typo variants
                for distance, term in near:
                    found.setdefault(term, typo_weight(distance))
            elif near:
                closest = near[0][0]
                if closest == 1:  # one letter from a real word, its own family is a guess ("genreative", "genre")
                    found.update(dict.fromkeys(found, ONE_TYPO))
                for distance, term in near:
                    found[term] = max(found.get(term, 0.0), NEAREST if distance == closest else typo_weight(distance))
                if self.family:
                    for _, term in near[:MAX_FAMILY_OF_NEAREST]:
                        if found[term] == NEAREST:
                            for other in family(term, terms):
                                found[other] = max(found.get(other, 0.0), NEAREST * FAMILY)
        if self.family:  # last: every other reading of a term weighs more
            nearest = [term for term, weight in found.items() if weight == NEAREST]
            for base in [self.stem] if real else [self.stem, *nearest[:MAX_FAMILY_OF_NEAREST]]:
                for term in near_forms(base, terms):
                    found.setdefault(term, NEAR_FORM)
        return found


def typo_weight(distance: int) -> float:
    return ONE_TYPO if distance == 1 else TWO_TYPOS


def family(term: str, terms: Sequence[str]) -> list[str]:
    """Index terms sharing `term`'s root (itself included when indexed); none for short roots."""
    base = root(term)
    if len(base) < MIN_ROOT:
        return []
    lo = bisect_left(terms, base)
    hi = bisect_left(terms, base + "\U0010ffff", lo)
    return [t for t in terms[lo:hi] if root(t) == base]


NEAR_SLACK = 2  # letters of a root's end a near form may differ in
NEAR_MIN = 5  # letters a near form shares at least


def near_forms(term: str, terms: Sequence[str]) -> list[str]:
    """Index terms starting with `term`'s root less its last NEAR_SLACK letters, at least NEAR_MIN letters:
    "revision" for "revise", "trustworthiness" for "trustworthy", "causality" for "causal"."""
    base = root(term)
    size = max(NEAR_MIN, len(base) - NEAR_SLACK)
    if len(base) < size:
        return []
    head = base[:size]
    lo = bisect_left(terms, head)
    hi = bisect_left(terms, head + "\U0010ffff", lo)
    return [t for t in terms[lo:hi] if t != term]


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
