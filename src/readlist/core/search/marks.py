"""What a query marks in a paper's title and abstract: the words it matched and its phrases."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..text.tokens import fold, stem, word_spans
from .matching import WordMatcher


@dataclass
class Highlighter:
    words: list[WordMatcher] = field(default_factory=list)
    phrases: list[tuple[str, ...]] = field(default_factory=list)  # also words read as two ("multi user")
    stems: set[str] = field(default_factory=set)  # index terms the words matched ("win" for "wnis")
    _memo: dict[str, bool] = field(default_factory=dict)

    def hit(self, word: str) -> bool:
        """Whether a folded word of a text matches a query word (in any form, typos included)."""
        hit = self._memo.get(word)
        if hit is None:
            term = stem(word)
            hit = self._memo[word] = term in self.stems or any(m.weight(term) for m in self.words)
        return hit

    def spans(self, text: str) -> list[tuple[int, int]]:
        """[start, end) spans of display text to highlight, merged where they touch."""
        tokens = list(word_spans(text))
        found = [(start, end) for start, end, word in tokens if word and self.hit(word)]
        for phrase in self.phrases:
            size, stems = len(phrase), [stem(word) for word in phrase]
            for n in range(len(tokens) - size + 1):
                if all(stem(tokens[n + k][2]) == stems[k] for k in range(size)):
                    found.append((tokens[n][0], tokens[n + size - 1][1]))
        merged: list[tuple[int, int]] = []
        for start, end in sorted(found):
            if merged and start <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
            else:
                merged.append((start, end))
        return merged

    def terms(self, texts: Iterable[str], words: Iterable[str] = ()) -> list[str]:
        """The matched words of display texts and of already folded words (notes, tags), in order."""
        out: dict[str, None] = {}
        for text in texts:
            for start, end in self.spans(text):
                out[fold(text[start:end])] = None
        for word in words:
            if self.hit(word):
                out[word] = None
        return list(out)
