"""Nearness of query words in a paper: words typed side by side and found side by side earn a bonus.

A known-item query is often a few words of a title, and titles' words tend to stay together in the
abstract ("trust-region adaptive policy"). Only the best-ranked papers are scanned, once per query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .tokens import index_form, split_words, stem

WINDOW = 3  # words apart at most (a stopword or two may sit between)
PAIR_BONUS = 1.0  # per pair of neighbouring query words found together, times the pair's lesser weight
SCANNED = 60  # papers scanned per group (full matches, then papers missing a word)


class Proximity:
    """Which query words each index term stands for, and the bonus of one paper's text."""

    def __init__(self, words: Sequence[Mapping[str, float]], idfs: Sequence[float]) -> None:
        """`words[k]` maps the index terms query word k matches to their weights; `idfs[k]` is its weight."""
        self.count = len(words)
        self.pairs = [PAIR_BONUS * min(idfs[k], idfs[k + 1]) for k in range(self.count - 1)]
        self.masks: dict[str, int] = {}
        for k, terms in enumerate(words):
            for term in terms:
                self.masks[term] = self.masks.get(term, 0) | 1 << k
        self._memo: dict[str, int] = {}

    def mask(self, token: str) -> int:
        found = self._memo.get(token)
        if found is None:
            found = self._memo[token] = self.masks.get(stem(token), 0)
        return found

    def bonus(self, text: str) -> float:
        """The bonus for a paper's raw text: each neighbouring pair of query words counts once."""
        if self.count < 2:
            return 0.0
        last = [-WINDOW - 1] * self.count
        paired = [False] * (self.count - 1)
        mask = self.mask
        for at, token in enumerate(split_words(index_form(text))):
            bits = mask(token)
            if not bits:
                continue
            k = 0
            while bits:
                if bits & 1:
                    last[k] = at
                    if k and at - last[k - 1] <= WINDOW:
                        paired[k - 1] = True
                    if k + 1 < self.count and at - last[k + 1] <= WINDOW:
                        paired[k] = True
                bits >>= 1
                k += 1
        return sum(bonus for bonus, hit in zip(self.pairs, paired, strict=True) if hit)
