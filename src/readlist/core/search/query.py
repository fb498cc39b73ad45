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
from ..text.tokens import fold, split_words


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
    Operator("author", "name", "a word of an author's name (free words find names too)"),
    Operator("year", "2023", "published that year, or in a range: year:2020..2023, year:2020.., year:..2020"),
    Operator("venue", "word", "in the venue, the conference or journal the paper file names"),
    Operator("cat", "cs.LG", "an arXiv category; cat:cs is any cs.* one"),
    Operator("in", "all", "search every list opened with this database, each hit naming its list"),
    Operator("is", "starred", "the papers you starred", hint=True),
    Operator("is", "unread", "the papers not marked reading or read"),
    Operator("is", "reading", "the papers marked reading"),
    Operator("is", "read", "the papers marked read"),
    Operator("is", "noted", "the papers with a note"),
    Operator("is", "missing", "annotations whose paper is no longer in the file (stands alone)"),
)
FLAGS = tuple(op.value for op in OPERATORS if op.flag)
_NAMES = "|".join(re.escape(name) for name in dict.fromkeys(op.field for op in OPERATORS))  # title|note|...|is
_FIELD = re.compile(rf"({_NAMES}):", re.IGNORECASE)


WORDED = ("word", "phrase", "title", "note")  # the terms made of words: punctuation alone says nothing


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
    def says_nothing(self) -> bool:
        """No term holds a word or a filter (`''`, `title:`, `"!!"`): every paper would be listed, none for a reason."""
        return all(term.kind in WORDED and not split_words(fold(term.value)) for term in self.terms)

    @property
    def everywhere(self) -> bool:
        """The query holds `in:all`: the papers of every known list are searched, not only this list's."""
        return any(term.kind == "in" for term in self.terms)

    @property
    def asks_for_missing(self) -> bool:
        """The query is `is:missing`: the annotations whose paper is no longer in the file (it stands alone)."""
        return self.terms == (Term("is", "missing"),)


def _flag_error(value: str) -> QueryError:
    return QueryError(f"unknown is:{value} (try {', '.join(FLAGS)})")


PLACES = ("all",)  # what `in:` takes


_YEARS = re.compile(r"(\d{1,4})?(\.\.)?(\d{1,4})?")
_YEARS_BEING_TYPED = re.compile(r"\d{0,4}\.{1,2}\d{0,3}")  # "2023.", "2025..20": a range not finished yet


def year_range(value: str) -> tuple[int | None, int | None]:
    """The first and last year a `year:` value stands for (None: open): 2023, 2020..2023, 2020.., ..2020.
    Raises QueryError for anything else, or a range that ends before it starts."""
    match = _YEARS.fullmatch(value)
    if not match or not (match.group(1) or match.group(3)) or (match.group(3) and not match.group(2)):
        raise QueryError(f"year:{value} is not a year (try year:2023, year:2020..2023, year:2020.. or year:..2020)")
    low = int(match.group(1)) if match.group(1) else None
    high = int(match.group(3)) if match.group(3) else None if match.group(2) else low
    if low is not None and high is not None and low > high:
        raise QueryError(f"year:{value} ends before it starts (try year:{high}..{low})")
    return low, high


def parse(text: str) -> Query:
    """Parse a query. Raises QueryError for an unclosed quote, an unknown is: or in: value, a year: value that is
    no year or range of years, or is:missing with more."""
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
        if field == "in":
            place = value.lower()
            if place in PLACES and not negated:
                terms.append(Term("in", place))
            elif negated or not (typing and any(p.startswith(place) for p in PLACES)):
                raise QueryError(f"unknown {'-' if negated else ''}in:{value} (try in:all)")
            continue
        if not value:
            continue
        if field == "year":
            try:
                year_range(value)
            except QueryError:
                if typing and _YEARS_BEING_TYPED.fullmatch(value):
                    continue  # no filter until the range is typed
                raise
        kind = field or ("phrase" if quoted else "word")
        terms.append(Term(kind, value, negated, quoted, typing and not negated))
    query = Query(source, tuple(terms))
    if not query.asks_for_missing and any(term.kind == "is" and term.value == "missing" for term in terms):
        # missing papers are annotations without a paper: there is nothing else to match them against
        raise QueryError("is:missing stands alone (no other words or filters, no minus)")
    return query
