"""Turning what a user types (`#12`, `3fa9`, a full id) into a paper."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .paper import Paper

_HEX = re.compile(r"[0-9a-f]+")
MIN_PREFIX = 4


class RefError(Exception):
    """A reference that names no paper, or more than one."""


def resolve(ref: str, papers: Sequence[Paper]) -> Paper:
    ref = ref.strip()
    if ref.startswith("#"):
        number = ref[1:]
        if not (number.isascii() and number.isdecimal()):  # 0-9: not ² (isdigit), nor ١ (int() reads it), nor a sign
            raise RefError(f"{ref!r}: expected #N with N a paper number")
        digits = number.lstrip("0")
        # More digits than the list's size has is no paper (and int() refuses over 4300 of them).
        n = int(digits) if digits and len(digits) <= len(str(len(papers))) else None
        if n is None or n > len(papers):
            raise RefError(f"{ref!r}: no paper #{digits or 0} (the list has {len(papers)})")
        return papers[n - 1]
    key = ref.lower()
    if not _HEX.fullmatch(key):
        raise RefError(f"{ref!r}: not a paper id, id prefix or #N")
    if len(key) < MIN_PREFIX:
        raise RefError(f"{ref!r}: an id prefix needs at least {MIN_PREFIX} characters{_number_hint(key, papers)}")
    matches = [paper for paper in papers if paper.id.startswith(key)]
    if not matches:
        raise RefError(f"{ref!r}: no paper has this id{_number_hint(key, papers)}")
    if len(matches) > 1:
        shown = ", ".join(paper.id for paper in matches[:5])
        raise RefError(f"{ref!r}: ambiguous, matches {len(matches)} papers ({shown})")
    return matches[0]


def _number_hint(key: str, papers: Sequence[Paper]) -> str:
    """For digits meant as a paper's number (a short one, or one the list has): how to say so."""
    if not key.isdigit():
        return ""
    n = int(key)
    if 1 <= n <= len(papers):
        return f" (use #{n} for {'the first paper' if n == 1 else f'paper number {n}'})"
    return f" (#N names paper number N; the list has {len(papers)})" if len(key) < MIN_PREFIX else ""
