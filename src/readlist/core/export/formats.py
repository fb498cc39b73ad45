"""Exporting papers with their annotations: the formats (Markdown notes, JSON, CSV, and the citations: BibTeX
in bibtex.py, CSL-JSON in csl.py), choosing one by a file's name, and the papers to export. Writing the result to
a file is `files`'s."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..papers.paper import Paper
from ..search.index import QueryError, SearchIndex
from ..text.normalize import strip_control
from .bibtex import to_bibtex
from .common import annotation_fields, shown_title, without_escapes
from .csl import to_csl_json
from .markdown import markdown_parts, to_markdown
from .paper_json import paper_json

FORMATS = ("md", "json", "csv", "bibtex", "csl-json")
LABELS = {
    "md": "Markdown reading notes",
    "json": "JSON",
    "csv": "CSV",
    "bibtex": "BibTeX",
    "csl-json": "CSL-JSON (Zotero, pandoc)",
}
SUFFIXES = {"md": ".md", "json": ".json", "csv": ".csv", "bibtex": ".bib", "csl-json": ".csl.json"}  # a new file's
# The annotation, then what the paper file says of the paper, named as the CSV reader reads them back.
CSV_FIELDS = ("id", "index", "title", "status", "starred", "tags", "note", "abstract", "authors", "year", "venue",
              "doi", "arxiv", "url", "pdf", "categories", "keywords")  # fmt: skip
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
    """The export format a file's extension stands for (case aside): .md, .json, .csv, .bib, .csl.json, ...;
    else None."""
    if Path(path).name.lower().endswith(SUFFIXES["csl-json"]):
        return "csl-json"
    return EXTENSION_FORMATS.get(Path(path).suffix.lower())


def with_suffix(path: Path, fmt: str) -> Path:
    """`path` named for format `fmt`: its export suffix (.md, .csl.json, ...) in place of the one it has."""
    name = path.name
    for suffix in sorted({*SUFFIXES.values(), *EXTENSION_FORMATS}, key=len, reverse=True):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    return path.with_name(name + SUFFIXES[fmt])


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


def to_json(papers: Sequence[Paper], annotations: Mapping[str, Any]) -> str:
    """The papers in the shape every JSON of readlist's holds them (paper_json.py), under the export's version."""
    return "".join(json_parts(papers, annotations))


def json_parts(papers: Iterable[Paper], annotations: Mapping[str, Any]) -> Iterator[str]:
    """`to_json`'s text a paper at a time, made as it is printed: the text `json.dumps(..., indent=2)` gives."""
    head = f'{{\n  "version": {JSON_VERSION},\n  "papers": ['
    for n, paper in enumerate(map(without_escapes, papers)):
        row = json.dumps(paper_json(paper, annotations.get(paper.id), stripped=True), ensure_ascii=False, indent=2)
        yield (head if n == 0 else ",") + "\n    " + row.replace("\n", "\n    ")
        head = ""
    yield (head + "]" if head else "\n  ]") + "\n}\n"


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
    """A row per paper: its annotation, then its abstract as written and the paper file's fields (so that
    `--papers notes.csv` reads it back as the same papers)."""
    return "".join(csv_parts(papers, annotations))


def csv_parts(papers: Iterable[Paper], annotations: Mapping[str, Any]) -> Iterator[str]:
    """`to_csv`'s text a row at a time (the header first), made as it is printed."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for paper in map(without_escapes, papers):
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        note = annotations.get(paper.id)
        f = annotation_fields(note)
        starred = "true" if f["starred"] else "false"
        tags = TAG_SEPARATOR.join(map(_csv_tag, f["tags"]))
        row = [paper.id, paper.index, shown_title(paper, note), f["status"], starred, tags, f["note"]]
        row += [strip_control(paper.text, keep_tabs=True), TAG_SEPARATOR.join(paper.authors), paper.year or ""]
        row += [paper.venue, paper.doi, paper.arxiv_id, paper.url, paper.pdf_url]
        row += [TAG_SEPARATOR.join(paper.categories), TAG_SEPARATOR.join(paper.keywords)]
        writer.writerow([_csv_cell(value or "") for value in row])
    yield buffer.getvalue()


_WRITERS = {"md": to_markdown, "json": to_json, "csv": to_csv}
_CITATIONS = {"bibtex": to_bibtex, "csl-json": to_csl_json}  # these also take the list's name (a venue, a year)
CITATION_FORMATS = tuple(_CITATIONS)


STREAMED = {"md": markdown_parts, "json": json_parts, "csv": csv_parts}  # made a paper at a time as printed


def export_parts(papers: Iterable[Paper], annotations: Mapping[str, Any], fmt: str) -> Iterator[str]:
    """`export`'s text for a format of STREAMED, a paper at a time: printing 100,000 papers starts at once."""
    return STREAMED[fmt](papers, annotations)


def export(papers: Sequence[Paper], annotations: Mapping[str, Any], fmt: str, list_name: str | None = None) -> str:
    """`papers` (already selected, in list order) with their annotations in format `fmt`; `list_name` is the
    name of the list they come from, which citations take as the venue when it names a conference and year."""
    if fmt in _CITATIONS:
        return _CITATIONS[fmt](papers, annotations, list_name)
    try:
        writer = _WRITERS[fmt]
    except KeyError:
        raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})") from None
    return writer(papers, annotations)
