"""Verifying a candidate: how closely its abstract matches ours, and whether two titles are the same title.

The score is the word-level similarity of the two abstracts (rapidfuzz's Indel distance, normalised to 0..1,
over case-, accent- and LaTeX-folded words), so a reworded sentence costs its words, not its letters.

The threshold was chosen on the shared arXiv sample (6,307 cs abstracts; `bench/bench_resolve.py --calibrate`
prints these numbers): against its nearest other paper an abstract scores 0.151 (median), 0.228 (99th
percentile), at most 0.553 (the two near-duplicate pairs by the same authors score 0.553 and 0.457); against
itself with one sentence dropped it scores 0.931 (median), 0.786 (1st percentile), at least 0.679, and its
first 70% at least 0.764. 0.70 sits between: 0.15 above any other paper, below 2 of 1,488 shortened versions.
A version with a sentence dropped and another replaced scores 0.799 (median), 0.446 at least: the 12% of
those under 0.70 are kept as possible matches, as is anything from 0.40 up; below that it is another paper.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz.distance import Indel

from ..text.normalize import fold, to_plain

THRESHOLD = 0.70
POSSIBLE_FLOOR = 0.40

_WORD = re.compile(r"\w+")
_JOINED = str.maketrans("", "", "_^{}")  # L_0 and L₀ (folded: L0), MT^{3} and MT³ are one word each
_NUMBERED_AUTHOR = re.compile(r"\s+\d{4}$")  # DBLP's homonym number: "Wei Wang 0001"


@lru_cache(maxsize=256)  # our abstract is compared with every candidate a search returns
def words(text: str) -> tuple[str, ...]:
    """The words of `text` as they are compared: LaTeX as Unicode, case and accents folded, punctuation gone."""
    return tuple(_WORD.findall(fold(to_plain(text)).translate(_JOINED)))


def abstract_score(ours: str, theirs: str) -> float:
    """0..1: how much of the two abstracts' wording is shared, in order."""
    a, b = words(ours), words(theirs)
    if not a or not b:
        return 0.0
    return Indel.normalized_similarity(a, b)


def title_key(title: str) -> str:
    """A title as compared for an exact match: LaTeX, case, accents, punctuation and DBLP's final period folded
    away ("Attention Is All You Need." and "attention is all you need" are the same title)."""
    return " ".join(words(title))


def same_title(a: str, b: str) -> bool:
    key = title_key(a)
    return bool(key) and key == title_key(b)


def surname(name: str) -> str:
    """The folded last word of an author's name, DBLP's homonym number left out."""
    name_words = words(_NUMBERED_AUTHOR.sub("", name))
    return name_words[-1] if name_words else ""


def share_an_author(ours: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """True when either list is empty (nothing to contradict), else when a surname appears in both."""
    if not ours or not theirs:
        return True
    return bool({surname(name) for name in ours} & {surname(name) for name in theirs} - {""})
