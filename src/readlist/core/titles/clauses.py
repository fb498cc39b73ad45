"""Cutting an abstract's sentences down to a title's worth: sentence ends and first clauses."""

from __future__ import annotations

import re
import unicodedata

from . import rules as rules

MIN_CLAUSE = 40  # a clause boundary closer to the start than this is not taken
CLAUSE_LIMIT = 260  # a clause longer than this is cut anyway
_SENTENCE_END = re.compile(r"[.!?](?:\s+(?=[A-Z\"“(])|$)")


def sentence_end(text: str, start: int) -> int:
    match = _SENTENCE_END.search(text, start)
    return match.start() if match else len(text)


def first_clause(text: str) -> str:
    """The first clause of `text`, without parentheticals and promotional adjectives."""
    text = text[:CLAUSE_LIMIT]
    match = rules.CLAUSE_END.search(text, MIN_CLAUSE)
    if match:
        text = text[: match.start()]
    if "(" in text:
        text = rules.PAREN.sub("", text)
    lowered = text.lower()
    if any(map(lowered.__contains__, rules.FLUFF_HINTS)) or (
        "ly " in lowered and any(map(lowered.__contains__, rules.FLUFF_ADVERBS))
    ):
        text = rules.fix_articles(rules.FLUFF.sub("", text))
    if "the first " in lowered:
        text = rules.fix_articles(rules.FIRST.sub(_an_article, text))
    return text.strip(" ,;:.-–—\"”'(")


def _an_article(match: re.Match[str]) -> str:
    return "A " if match.group(1) == "T" else "a "


def capital(text: str) -> str:
    """The first letter in upper case, unless it is a Greek letter, a symbol: "ε-greedy", not "Ε-greedy"."""
    if text[:1] and unicodedata.name(text[0], "").startswith("GREEK"):
        return text
    return text[:1].upper() + text[1:]
