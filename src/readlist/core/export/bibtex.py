"""The BibTeX export: an entry per paper that reference managers and LaTeX read as the paper, with a readable
cite key, its kind (`@inproceedings`, `@article`, `@misc`), authors, year, venue and identifiers, the abstract
as written and the user's note and tags."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..papers.paper import Paper
from ..text.normalize import strip_control
from .citation import Citation, Name, citations

# BibTeX counts braces even when escaped, so braces and backslashes become brace-balanced commands.
_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_BIBTEX_SPECIAL = re.compile("|".join(re.escape(ch) for ch in _BIBTEX_ESCAPES))


_LINE_START_AT = re.compile(r"(?m)^([ \t]*)@")


def bibtex_escape(text: str) -> str:
    """Plain text as a brace-delimited BibTeX value: LaTeX specials escaped, braces always balanced, and
    an @ that starts a line braced (parsers read it as the start of a new entry)."""
    escaped = _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_ESCAPES[m.group(0)], strip_control(text))
    return _at_line_start(escaped)


def _at_line_start(value: str) -> str:
    return _LINE_START_AT.sub(r"\1{@}", value) if "@" in value else value


# Braces would unbalance the entry and a backslash could escape its closing brace; none is valid in a URI
# (RFC 3986), where the percent-encoded form is the one to write anyway.
_URL_ESCAPES = {"{": "%7B", "}": "%7D", "\\": "%5C"}


def bibtex_url(url: str) -> str:
    """A URL as a brace-delimited BibTeX value: as it is, since url fields are verbatim (biblatex, \\url) and
    LaTeX escapes would become part of the link; only braces and backslashes are percent-encoded."""
    return "".join(_URL_ESCAPES.get(ch, ch) for ch in strip_control(url))


def bibtex_title(title: str) -> str:
    """A title escaped, each word holding a capital after its first letter (BERT, PoisonBench, GPT-4) in braces,
    so that a style setting titles in sentence case keeps it as written."""
    return " ".join(map(_protected, title.split()))


_WORD_CORE = re.compile(r"^([^\w\\{}]*)(.*?)([^\w\\{}]*)$", re.DOTALL)  # punctuation around a word, the word


def _protected(word: str) -> str:
    """One word of a title escaped, its letters in braces when a capital follows the first ("{BERT}:")."""
    before, core, after = _WORD_CORE.match(word).groups()
    if any(ch.isupper() for ch in core[1:]):
        return f"{bibtex_escape(before)}{{{bibtex_escape(core)}}}{bibtex_escape(after)}"
    return bibtex_escape(word)


def bibtex_name(name: str) -> str:
    """A name as BibTeX reads it unambiguously: "van der Berg, Jan", "King, Jr., Martin"; one word as it is."""
    parts = Name.of(name)
    if parts.literal:
        written = bibtex_escape(parts.literal)
    else:
        family = " ".join(part for part in (parts.particle, parts.family) if part)
        written = ", ".join(bibtex_escape(part) for part in (family, parts.suffix, parts.given) if part)
    # An "and" or a comma inside one name would split it: braces keep it whole.
    return f"{{{written}}}" if parts.literal and (" and " in written or "," in written) else written


def bibtex_abstract(text: str) -> str:
    """The abstract as written (LaTeX and all, so that reading the entry back gives the paper's id), unless its
    braces do not balance or one follows a backslash (BibTeX counts it, some parsers do not): then escaped."""
    depth = 0
    for ch in text:
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            break
    as_written = depth == 0 and not _ESCAPED_BRACE.search(text) and not text.endswith("\\")  # nor the field's
    return _at_line_start(text) if as_written else bibtex_escape(text)


_ESCAPED_BRACE = re.compile(r"\\[{}]")


def _keyword(tag: str) -> str:
    """A tag as one BibTeX keyword: commas, which separate keywords, become spaces ("a,b" is "a b")."""
    return " ".join(tag.replace(",", " ").split())


def entry(citation: Citation) -> str:
    paper = citation.paper
    fields = []
    if paper.authors:
        fields.append(("author", " and ".join(map(bibtex_name, paper.authors))))
    fields.append(("title", bibtex_title(citation.title)))
    if citation.venue:
        fields.append(("booktitle" if citation.kind == "inproceedings" else "journal", bibtex_escape(citation.venue)))
    if citation.year:
        fields.append(("year", str(citation.year)))
    if paper.arxiv_id:
        fields += [("eprint", bibtex_url(paper.arxiv_id)), ("archivePrefix", "arXiv")]
        if paper.categories:
            fields.append(("primaryClass", bibtex_url(paper.categories[0])))
    if paper.doi:
        fields.append(("doi", bibtex_url(paper.doi)))
    if citation.url:
        fields.append(("url", bibtex_url(citation.url)))
    if paper.text.strip():
        fields.append(("abstract", bibtex_abstract(strip_control(paper.text))))
    keywords = [keyword for keyword in map(_keyword, citation.keywords) if keyword]
    if keywords:
        fields.append(("keywords", bibtex_escape(", ".join(keywords))))
    if citation.note:
        fields.append(("annote", bibtex_escape(citation.note)))  # `note` would be printed in the bibliography
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{citation.kind}{{{citation.key},\n{body}\n}}\n"


def to_bibtex(papers: Sequence[Paper], annotations: Mapping[str, Any], list_name: str | None = None) -> str:
    return "\n".join(map(entry, citations(papers, annotations, list_name)))
