"""Finding a paper again after its text (and so its id) changed, by comparing the stored snippet."""

from __future__ import annotations

from collections.abc import Mapping

from .text import fold

THRESHOLD = 90.0  # rapidfuzz ratio (0-100); a typo fix scores ~99, a different abstract rarely 60
MIN_CHARS = 40  # shorter snippets say too little to re-attach on


def match_key(snippet: str) -> str:
    return fold(snippet)


def find_moved(snippet: str, candidates: Mapping[str, str], threshold: float = THRESHOLD) -> str | None:
    """The one candidate id whose key is close to `snippet`'s; None when none is, or more than one is."""
    key = match_key(snippet)
    if len(key) < MIN_CHARS or not candidates:
        return None
    from rapidfuzz import fuzz, process

    hits = process.extract(key, candidates, scorer=fuzz.ratio, score_cutoff=threshold, limit=2)
    if len(hits) != 1:
        return None
    return hits[0][2]
