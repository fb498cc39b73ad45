"""Deriving a one-line title for an abstract that has none."""

from __future__ import annotations

import re

MAX_TITLE = 90
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def cut(text: str, limit: int = MAX_TITLE) -> str:
    """Cut at a word boundary so the result is at most `limit` characters (ellipsis included)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ,;:-(") + "…"


def first_sentence(plain: str) -> str:
    return _SENTENCE.split(plain.strip(), maxsplit=1)[0].rstrip(".")


def derive_title(plain: str) -> str:
    return cut(first_sentence(plain))
