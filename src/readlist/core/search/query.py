"""The search bar's small query language.

graph neural          every word must match (typos tolerated; the last word is a prefix while typing)
"exact phrase"        the words in this order
-word  -"phrase"      leave out papers that have it
title:word  is:starred a field or a flag: each is a row of OPERATORS below, with its help (a field also takes
                      a "quoted phrase", and each a leading -)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.normalize import latex_to_text


@dataclass(frozen=True)
class Operator:
    """One form of the query language that has a name: a field (`title:word`) or a flag (`is:starred`)."""

    field: str  # the name before the colon: a field's, or "is" for a flag
    value: str  # after the colon: what a field takes ("word", "prefix"), a flag's own name
    help: str  # what it finds
    hint: bool = False  # named in the search bar's hint (which has room for a few)

    @property
    def flag(self) -> bool:
        return self.field == "is"

    @property
    def label(self) -> str:
        """What the user types before the value: `title:` for a field, all of `is:starred` for a flag."""
        return f"{self.field}:{self.value}" if self.flag else f"{self.field}:"


# The query language's named forms, in the order the help lists them. Each one is evaluated in
# search/evaluate.py (`Evaluation.add`; a flag in search/notes.py's `flag_docs`).
OPERATORS = (
    Operator("title", "word", "in the title the list shows, yours if you renamed the paper", hint=True),
    Operator("note", "word", "in your note"),
    Operator("tag", "name", "a tag as a whole (a prefix while typing it)", hint=True),
    Operator("id", "prefix", "the papers whose id starts with it"),
    Operator("is", "starred", "the papers you starred", hint=True),
    Operator("is", "unread", "the papers not marked reading or read"),
    Operator("is", "reading", "the papers marked reading"),
    Operator("is", "read", "the papers marked read"),
    Operator("is", "noted", "the papers with a note"),
    Operator("is", "missing", "annotations whose paper is no longer in the file (stands alone)"),
)
FLAGS = tuple(op.value for op in OPERATORS if op.flag)
_NAMES = "|".join(re.escape(name) for name in dict.fromkeys(op.field for op in OPERATORS))  # title|note|tag|id|is
_FIELD = re.compile(rf"({_NAMES}):", re.IGNORECASE)


class QueryError(ValueError):
    """A query the search bar cannot run; the message is shown to the user as is."""


@dataclass(frozen=True)
class Term:
    kind: str  # "word", "phrase" or an operator's field ("title", "is", ...)
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

    @property
    def asks_for_missing(self) -> bool:
        """The query is `is:missing`: the annotations whose paper is no longer in the file (it stands alone)."""
        return self.terms == (Term("is", "missing"),)


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
    query = Query(source, tuple(terms))
    if not query.asks_for_missing and any(term.kind == "is" and term.value == "missing" for term in terms):
        # missing papers are annotations without a paper: there is nothing else to match them against
        raise QueryError("is:missing stands alone (no other words or filters, no minus)")
    return query
