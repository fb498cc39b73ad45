"""Distinctive phrases of an abstract to search for: runs of plain words, the rarest first, from different sentences.

A phrase is 4 consecutive words (3 when a run is shorter) written only with letters, digits and inner hyphens,
taken from the abstract as written: the service holds it as written too, so LaTeX is left out rather than
converted (math between dollars, a command, braces, a word cut at a line-break hyphen, symbols, quotes and
numbers with points all break a run). Rarity is a word's inverse document frequency in
common_words.tsv (CS abstracts); a word that list lacks counts as rare. A phrase neither starts nor ends
with a very common word ("of the", "we").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import cache, lru_cache
from importlib import resources
from itertools import pairwise

from ..text.normalize import fold, normalize_ws, strip_control

LENGTH = 4
SHORTEST = 3
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLEAN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")
_CLOSING = ",;:.!?"  # a word followed by one of these ends its run (the word itself is kept)
_EDGE_MAX_SHARE = 0.2  # a phrase does not start or end with a word in more than this share of abstracts


@cache
def _document_counts() -> tuple[int, dict[str, int]]:
    text = resources.files(__package__).joinpath("common_words.tsv").read_text(encoding="utf-8")
    total, counts = 0, {}
    for line in text.splitlines():
        if line.startswith("#"):
            if line.startswith("# documents\t"):
                total = int(line.split("\t")[1])
            continue
        word, count = line.split("\t")
        counts[word] = int(count)
    return total, counts


@lru_cache(maxsize=1 << 16)  # the same words come back in every abstract
def rarity(word: str) -> float:
    """log(documents / documents holding the word); a hyphenated word is as rare as its rarest part."""
    total, counts = _document_counts()
    return max(math.log(total / counts.get(part, 1)) for part in fold(word).split("-") if part)


@lru_cache(maxsize=1 << 16)
def _common(word: str) -> bool:
    total, counts = _document_counts()
    return counts.get(fold(word), 0) > total * _EDGE_MAX_SHARE


def _runs(sentence: str) -> Iterator[list[str]]:
    """Runs of clean words in a sentence, split wherever something else stands between words. The tail of a word
    cut at a line-break hyphen ("demon- strate") is no word either: it is how the text reads, not the paper."""
    run: list[str] = []
    previous = ""
    for token in sentence.split():
        word = token.rstrip(_CLOSING)
        if _CLEAN_WORD.fullmatch(word) and not previous.endswith("-"):
            run.append(word)
            if word != token:
                yield run
                run = []
        else:
            if run:
                yield run
            run = []
        previous = token
    if run:
        yield run


def _outside_math(abstract: str) -> str:
    """The abstract on one line, control characters removed, each $math$ span a run breaker."""
    text = normalize_ws(strip_control(abstract))
    if "$" in text and text.count("$") % 2 == 0:
        text = " $ ".join(text.split("$")[0::2])
    return text


def _windows(run: list[str]) -> list[tuple[float, str]]:
    """The run's phrases of 4 words, or of 3 when it has none (too short, or every 4 has a common word at an end)."""
    for size in (LENGTH, SHORTEST):
        windows = [run[start : start + size] for start in range(len(run) - size + 1)]
        found = [
            (sum(rarity(word) for word in window), " ".join(window))
            for window in windows
            if not _common(window[0]) and not _common(window[-1])
        ]
        if found:
            return found
    return []


def distinctive_phrases(abstract: str, count: int = 4) -> list[str]:
    """Up to `count` phrases of the abstract, the most distinctive first, each from another sentence while
    sentences last (an edited sentence then costs one phrase, not all)."""
    scored: list[tuple[float, int, str]] = []
    for number, sentence in enumerate(_SENTENCE_END.split(_outside_math(abstract))):
        for run in _runs(sentence):
            if len(run) >= SHORTEST:
                scored.extend((score, number, phrase) for score, phrase in _windows(run))
    scored.sort(key=lambda item: (-item[0], item[1]))
    chosen: list[str] = []
    used_sentences: set[int] = set()
    for same_sentence_allowed in (False, True):
        for _score, number, phrase in scored:
            if len(chosen) == count:
                return chosen
            if phrase in chosen or any(_overlap(phrase, other) for other in chosen):
                continue
            if number in used_sentences and not same_sentence_allowed:
                continue
            chosen.append(phrase)
            used_sentences.add(number)
    return chosen


def _overlap(a: str, b: str) -> bool:
    """Whether two phrases share a word sequence (windows of one run overlap): searching both adds little."""
    return bool(_pairs(a) & _pairs(b))


def _pairs(phrase: str) -> set[tuple[str, str]]:
    return set(pairwise(phrase.split()))
