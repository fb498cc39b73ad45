"""BibTeX (.bib): one paper per entry, through bibtexparser; LaTeX in titles, names and venues as Unicode.

`@string`s are resolved by the library; a `crossref` gives an entry the venue and year of the entry it names
(which is then no paper of its own unless it has an abstract). The abstract is kept as written, as a paper
file's would be, so the same abstract has the same id in both.
"""

from __future__ import annotations

import logging
import re

from ...text.normalize import field_to_text
from ..identifiers import arxiv_category, arxiv_id, doi
from ..paper import PaperList, Record
from ..records import Collector, names, shown, year_of
from ..source import ReadError

NAME = "bibtex"
_CONTAINERS = ("proceedings", "book", "collection", "mvproceedings", "mvbook")
_INHERITED = ("booktitle", "journal", "journaltitle", "year", "date")
_KEYWORD_SPLIT = re.compile(r"[,;]")


def parse(text: str, source: str) -> PaperList:
    import bibtexparser
    from bibtexparser import model

    logging.getLogger("bibtexparser").setLevel(logging.CRITICAL)  # it logs each bad block; we say it once
    try:
        library = bibtexparser.parse_string(text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n"))
    except Exception as exc:  # the library's own errors on input it cannot split
        raise ReadError(f"{source}: cannot be read as BibTeX ({_reason(exc)})") from None
    entries = []
    for block in library.blocks:
        if isinstance(block, (model.DuplicateBlockKeyBlock, model.DuplicateFieldKeyBlock)):
            block = block.ignore_error_block  # the entry itself: a repeated key or field is read as BibTeX does
        if isinstance(block, model.ParsingFailedBlock):
            raise ReadError(f"{source}: line {_line(block)}: not a BibTeX entry ({_reason(block.error)})")
        if isinstance(block, model.Entry):
            entries.append(block)
    if not entries:
        raise ReadError(f"{source}: no BibTeX entries (@article{{key, title = {{...}}, ...}})")
    fields = [_fields(entry) for entry in entries]
    by_key = {entry.key.lower(): found for entry, found in zip(entries, fields, strict=True)}
    places = [f"entry {shown(entry.key)} (line {_line(entry)})" for entry in entries]
    del library, entries, block  # the library's blocks (twice the file's size) are gone before the papers are made
    parents = set()
    for found in fields:
        parent = by_key.get(found.get("crossref", "").strip().lower())
        if parent is not None and parent is not found:
            parents.add(id(parent))
            _inherit(found, parent)
    papers = Collector(source)
    for where, found in zip(places, fields, strict=True):
        if id(found) in parents and not found.get("abstract", "").strip():
            continue  # a proceedings volume its papers name, not a paper
        title = found.get("title")
        papers.add(where, found.get("abstract", ""), field_to_text(title) if title else None, _record(found))
    return papers.paper_list(NAME)


def _line(block) -> int:
    return (block.start_line or 0) + 1


def _reason(error: BaseException) -> str:
    reason = getattr(error, "abort_reason", None) or str(error) or type(error).__name__
    return " ".join(reason.split())


def _fields(entry) -> dict[str, str]:
    """The entry's fields by lowercase name, the first of a repeated one winning (as in BibTeX); the entry's
    type under "@type"."""
    fields: dict[str, str] = {"@type": entry.entry_type.lower()}
    for field in entry.fields:
        if isinstance(field.value, str):
            fields.setdefault(field.key.lower(), field.value)
    return fields


def _inherit(child: dict[str, str], parent: dict[str, str]) -> None:
    for name in _INHERITED:
        if name in parent:
            child.setdefault(name, parent[name])
    if parent["@type"] in _CONTAINERS and "title" in parent:
        child.setdefault("booktitle", parent["title"])


def _record(fields: dict[str, str]) -> Record:
    prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip().lower()
    eprint = arxiv_id(fields["eprint"]) if "eprint" in fields and prefix in ("arxiv", "") else None
    primary = arxiv_category(fields.get("primaryclass", "")) if eprint else None
    venue = fields.get("booktitle") or fields.get("journal") or fields.get("journaltitle")
    keywords = fields.get("keywords", "")
    return Record(
        authors=_authors(fields.get("author", "")),
        year=year_of(fields.get("year")) or year_of(fields.get("date")),
        venue=(field_to_text(venue) or None) if venue else None,
        arxiv_id=eprint,
        doi=doi(fields.get("doi", "").replace("\\_", "_")),
        url=fields.get("url", "").strip() or None,
        categories=(primary,) if primary else (),
        keywords=names(map(field_to_text, _KEYWORD_SPLIT.split(keywords))) if keywords else (),
    )


def _authors(value: str) -> tuple[str, ...]:
    """BibTeX names ("Doe, Jane and {Barnes and Noble}") in display order ("Jane Doe", "Barnes and Noble")."""
    if not value.strip():
        return ()
    if "{" in value or "\\" in value:  # braces group words (and protect an "and"): the library's parser
        from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

        found = []
        for name in split_multiple_persons_names(value):
            try:
                name = parse_single_name_into_parts(name, strict=False).merge_first_name_first
            except Exception:  # a name the library cannot take apart is shown as written
                pass
            found.append(field_to_text(name))
        return names(found)
    return names(map(_display_order, _AND.split(value)))  # the same, 20 times faster


_AND = re.compile(r"[ \t\r\n]+and[ \t\r\n]+", re.IGNORECASE)


def _display_order(name: str) -> str:
    """A BibTeX name without braces in display order: "von Last, First" and "von Last, Jr, First" turned."""
    parts = [part.strip() for part in name.split(",")]
    if len(parts) == 1:
        return field_to_text(name)
    first, last, jr = parts[-1], parts[0], parts[1:-1]
    return field_to_text(" ".join(part for part in (first, last, *jr) if part))
