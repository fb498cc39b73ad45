"""The search bar's small query language.

graph neural          every word must match (typos tolerated; the last word is a prefix while typing)
"exact phrase"        the words in this order
-word  -"phrase"      leave out papers that have it
title:word  note:word  tag:name  id:prefix   (each also with a "quoted phrase" and a leading -)
is:starred is:unread is:reading is:read is:noted is:missing
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.normalize import latex_to_text

FIELDS = ("title", "note", "tag", "id", "is")
FLAGS = ("starred", "unread", "reading", "read", "noted", "missing")
_FIELD = re.compile(r"(title|note|tag|id|is):", re.IGNORECASE)


class QueryError(ValueError):
    """A query the search bar cannot run; the message is shown to the user as is."""


@dataclass(frozen=True)
class Term:
    kind: str  # "word", "phrase" or a field name from FIELDS
    value: str
    negated: bool = False
    quoted: bool = False
    prefix: bool = False  # the last thing typed, with no space after it yet


@dataclass(frozen=True)
class Query:
    text: str
    terms: tuple[Term, ...]

    @property
    def blank(self) -> bool:
        return not self.terms

    def of_kind(self, *kinds: str) -> list[Term]:
        return [term for term in self.terms if term.kind in kinds]


def _flag_error(value: str) -> QueryError:
    return QueryError(f"unknown is:{value} (try {', '.join(FLAGS)})")


def parse(text: str) -> Query:
    """Parse a query. Raises QueryError for an unclosed quote, an unknown is: value, or is:missing with more."""
    source = text
    if "\\" in text or "$" in text:
        text = latex_to_text(text)  # `$\epsilon$` searches like ε
    terms: list[Term] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        negated = text[i] == "-" and i + 1 < n and not text[i + 1].isspace()
        if negated:
            i += 1
        field = None
        match = _FIELD.match(text, i)
        if match:
            field = match.group(1).lower()
            i = match.end()
        quoted = i < n and text[i] == '"'
        if quoted:
            end = text.find('"', i + 1)
            if end < 0:
                raise QueryError("unclosed quote")
            value, i = text[i + 1 : end], end + 1
        else:
            end = i
            while end < n and not text[end].isspace() and text[end] != '"':
                end += 1
            value, i = text[i:end], end
        typing = i == n and not quoted
        value = " ".join(value.split())
        if field == "is":
            flag = value.lower()
            if flag in FLAGS:
                terms.append(Term("is", flag, negated))
            elif not (typing and any(f.startswith(flag) for f in FLAGS)):
                raise _flag_error(value)
            continue
        if not value:
            continue
        kind = field or ("phrase" if quoted else "word")
        terms.append(Term(kind, value, negated, quoted, typing and not negated))
    missing = [t for t in terms if t.kind == "is" and t.value == "missing"]
    if missing and (len(terms) > 1 or missing[0].negated):
        # missing papers are annotations without a paper: there is nothing else to match them against
        raise QueryError("is:missing stands alone (no other words or filters, no minus)")
    return Query(source, tuple(terms))
