"""Exporting papers with their annotations: Markdown notes, JSON, CSV and BibTeX. Writing the result to a
file is `export_files`'s."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..papers.paper import Paper
from ..search.index import QueryError, SearchIndex
from ..store.annotation import title_of
from ..text.normalize import has_escape, strip_control
from .paper_json import paper_json

FORMATS = ("md", "json", "csv", "bibtex")
CSV_FIELDS = ("id", "index", "title", "status", "starred", "tags", "note")
EXTENSION_FORMATS = {
    ".md": "md",
    ".markdown": "md",
    ".json": "json",
    ".csv": "csv",
    ".bib": "bibtex",
    ".bibtex": "bibtex",
}
TAG_SEPARATOR = "; "
JSON_VERSION = 1


def format_for(path: str | os.PathLike[str]) -> str | None:
    """The export format a file's extension stands for (case aside): .md, .json, .csv, .bib, ...; else None."""
    return EXTENSION_FORMATS.get(Path(path).suffix.lower())


def is_annotated(note: Any) -> bool:
    """The default export selection: a star, a note or at least one tag."""
    return note is not None and (bool(note.starred) or bool(note.note.strip()) or bool(note.tags))


def search_positions(
    papers: Sequence[Paper], annotations: Mapping[str, Any], query: str, index: SearchIndex | None = None
) -> list[int]:
    """Positions of the papers matching all of `query` (the search language: words, "phrases", tag:, note:,
    ...); papers missing one of its words, which a search lists after the matches, are not exported.

    Raises QueryError for a query that does not parse.
    """
    if index is None:
        index = SearchIndex.build(papers)
    result = index.search(query, annotations)
    if result.error:
        raise QueryError(result.error)
    return list(result.positions[: result.full_matches])


def select(
    papers: Sequence[Paper],
    annotations: Mapping[str, Any],
    query: str | None = None,
    *,
    everything: bool = False,
    index: SearchIndex | None = None,
) -> list[Paper]:
    """The papers to export, in list order: all, those matching `query`, or (default) the annotated ones.

    `index` is the search index of `papers` when the caller has one (built otherwise).
    """
    if everything:
        return list(papers)
    if query is not None and query.strip():
        return [papers[position] for position in sorted(search_positions(papers, annotations, query, index))]
    return [paper for paper in papers if is_annotated(annotations.get(paper.id))]


def _fields(paper: Paper, note: Any) -> dict[str, Any]:
    """The annotation's fields as exported: no terminal escape sequences or control characters (a note
    keeps its tabs and newlines)."""
    return {
        "status": strip_control(getattr(note, "status", "unread")),
        "starred": bool(getattr(note, "starred", False)),
        "tags": [strip_control(tag) for tag in getattr(note, "tags", ())],
        "note": strip_control(getattr(note, "note", ""), keep_tabs=True),
    }


def _without_escapes(paper: Paper) -> Paper:
    """`paper`, or a copy without the terminal escape sequences in its text, so that its abstract and
    derived title keep nothing of them (the display form only drops their control characters)."""
    if not has_escape(paper.text) and not has_escape(paper.given_title or ""):
        return paper
    given_title = strip_control(paper.given_title) if paper.given_title else paper.given_title
    return replace(paper, text=strip_control(paper.text, keep_tabs=True), given_title=given_title)


def _title(paper: Paper, note: Any) -> str:
    return strip_control(title_of(paper, note))


# `<` and `&name;` would be read as HTML (an unknown tag such as <think> vanishes when rendered); an odd run of
# backslashes before them would escape the `&` of the replacement, so it gets one more.
_MD_HTML = re.compile(r"(\\*)(<|&(?=#?[0-9A-Za-z]+;))")
# A first character that could open a block: a heading, a list, a link definition for the whole document.
_MD_BLOCK_START = re.compile(r"^(?=[#>\[\-+*=_`~|])")


def _html_escape(match: re.Match[str]) -> str:
    backslashes = match.group(1) + "\\" * (len(match.group(1)) % 2)
    return backslashes + ("&lt;" if match.group(2) == "<" else "&amp;")


def _markdown_text(text: str) -> str:
    """Plain text as one line of Markdown text that reads as written, never as HTML."""
    return _MD_HTML.sub(_html_escape, " ".join(text.split()))


# A heading's closing run of '#' (after a space) is not shown: "C #" would read as "C".
_MD_CLOSING_HASHES = re.compile(r"(^|[ \t])(#+)$")


def _heading(text: str) -> str:
    """Plain text as the text of an ATX heading that shows all of it."""
    return _MD_CLOSING_HASHES.sub(lambda m: m.group(1) + "\\" + m.group(2), _markdown_text(text))


def _quote(text: str) -> str:
    """Plain text as a one-line block quote holding one paragraph."""
    return "> " + _MD_BLOCK_START.sub("\\\\", _markdown_text(text))


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall("`+", text)), default=0)


def _code_span(text: str) -> str:
    """`text` as inline code that its own backticks cannot close."""
    ticks = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fenced(text: str) -> str:
    """`text` as a fenced block that no line of it can close, so nothing in it reaches the rest of the file."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}markdown\n{text}\n{fence}"


def to_markdown(papers: Sequence[Paper], annotations: Mapping[str, Any], heading: str = "Reading notes") -> str:
    """One section per paper: title, marks, the abstract quoted, the note as written in a fenced block."""
    parts = [f"# {_heading(strip_control(heading))}\n"]
    for paper in map(_without_escapes, papers):
        note = annotations.get(paper.id)
        f = _fields(paper, note)
        meta = [f"`{paper.id}`", f"#{paper.index}", f["status"]]
        if f["starred"]:
            meta.append("★ starred")
        if f["tags"]:
            meta.append("tags: " + ", ".join(_code_span(tag) for tag in f["tags"]))
        title = _heading(_title(paper, note))
        section = [f"## {title}", "", " · ".join(meta), "", _quote(strip_control(paper.plain))]
        if f["note"].strip():
            section += ["", _fenced(f["note"].strip("\n"))]
        parts.append("\n".join(section) + "\n")
    return "\n".join(parts)


def to_json(papers: Sequence[Paper], annotations: Mapping[str, Any]) -> str:
    """The papers in the shape every JSON of readlist's holds them (paper_json.py), under the export's version."""
    rows = [paper_json(paper, annotations.get(paper.id), stripped=True) for paper in map(_without_escapes, papers)]
    return json.dumps({"version": JSON_VERSION, "papers": rows}, ensure_ascii=False, indent=2) + "\n"


# Cells a spreadsheet reads as a formula (=1+1, - strong baseline, =HYPERLINK(...)).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> str:
    """`value` as a CSV cell spreadsheets show as text: one starting like a formula gets a leading quote (OWASP)."""
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _csv_tag(tag: str) -> str:
    """A tag as written in the tags cell: its backslashes doubled and its ';' escaped (`\\;`), so that a tag
    `a; b` cannot be read as two tags."""
    return tag.replace("\\", "\\\\").replace(";", "\\;")


def to_csv(papers: Sequence[Paper], annotations: Mapping[str, Any]) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for paper in map(_without_escapes, papers):
        note = annotations.get(paper.id)
        f = _fields(paper, note)
        starred = "true" if f["starred"] else "false"
        tags = TAG_SEPARATOR.join(map(_csv_tag, f["tags"]))
        row = [paper.id, paper.index, _title(paper, note), f["status"], starred, tags, f["note"]]
        writer.writerow([_csv_cell(value) for value in row])
    return buffer.getvalue()


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
    "^": r"\^{}",
    "~": r"\~{}",
}
_BIBTEX_SPECIAL = re.compile("|".join(re.escape(ch) for ch in _BIBTEX_ESCAPES))


_LINE_START_AT = re.compile(r"(?m)^([ \t]*)@")


def bibtex_escape(text: str) -> str:
    """Plain text as a brace-delimited BibTeX value: LaTeX specials escaped, braces always balanced, and
    an @ that starts a line braced (parsers read it as the start of a new entry)."""
    escaped = _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_ESCAPES[m.group(0)], strip_control(text))
    return _LINE_START_AT.sub(r"\1{@}", escaped) if "@" in escaped else escaped


# Braces would unbalance the entry and a backslash could escape its closing brace; none is valid in a URI
# (RFC 3986), where the percent-encoded form is the one to write anyway.
_URL_ESCAPES = {"{": "%7B", "}": "%7D", "\\": "%5C"}


def bibtex_url(url: str) -> str:
    """A URL as a brace-delimited BibTeX value: as it is, since url fields are verbatim (biblatex, \\url) and
    LaTeX escapes would become part of the link; only braces and backslashes are percent-encoded."""
    return "".join(_URL_ESCAPES.get(ch, ch) for ch in strip_control(url))


def bibtex_key(paper: Paper) -> str:
    return f"readlist:{paper.id}"


def _keyword(tag: str) -> str:
    """A tag as one BibTeX keyword: commas, which separate keywords, become spaces ("a,b" is "a b")."""
    return " ".join(tag.replace(",", " ").split())


def to_bibtex(papers: Sequence[Paper], annotations: Mapping[str, Any]) -> str:
    entries = []
    for paper in map(_without_escapes, papers):
        note = annotations.get(paper.id)
        f = _fields(paper, note)
        fields = [("title", bibtex_escape(title_of(paper, note))), ("abstract", bibtex_escape(paper.plain))]
        if paper.urls:
            fields.append(("url", bibtex_url(paper.urls[0])))
        if f["note"].strip():
            fields.append(("note", bibtex_escape(f["note"].strip())))
        keywords = [keyword for keyword in map(_keyword, f["tags"]) if keyword]
        if keywords:
            fields.append(("keywords", bibtex_escape(", ".join(keywords))))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{bibtex_key(paper)},\n{body}\n}}\n")
    return "\n".join(entries)


_WRITERS = {"md": to_markdown, "json": to_json, "csv": to_csv, "bibtex": to_bibtex}


def export(papers: Sequence[Paper], annotations: Mapping[str, Any], fmt: str) -> str:
    """`papers` (already selected, in list order) with their annotations in format `fmt`."""
    try:
        writer = _WRITERS[fmt]
    except KeyError:
        raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return writer(papers, annotations)
