"""What a query asks of the papers' records that no paper of the list has: `year:2024` over a list of plain
abstracts matches nothing because the file gives no years, which an empty result alone does not say."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..papers.paper import Paper
from .query import QueryError, parse

# A record field's search name -> what it is called and how a paper gives it.
RECORD_FIELDS: dict[str, tuple[str, Callable[[Paper], object]]] = {
    "author": ("authors", lambda paper: paper.authors),
    "year": ("years", lambda paper: paper.year),
    "venue": ("venues", lambda paper: paper.venue),
    "cat": ("arXiv categories", lambda paper: paper.categories),
}


def absent_fields(text: str, papers: Sequence[Paper]) -> list[str]:
    """The record fields `text` filters on (not negated) that no paper gives, by their plural names; [] for a query
    that does not parse (its error says enough)."""
    try:
        terms = parse(text).terms
    except QueryError:
        return []
    asked = dict.fromkeys(term.kind for term in terms if term.kind in RECORD_FIELDS and not term.negated)
    return [RECORD_FIELDS[kind][0] for kind in asked if not any(map(RECORD_FIELDS[kind][1], papers))]


def absent_fields_hint(text: str, papers: Sequence[Paper]) -> str:
    """'the paper file gives no years' (or no years and venues), or '' when every field asked for is there."""
    absent = absent_fields(text, papers)
    return f"the paper file gives no {' and no '.join(absent)}" if absent else ""
