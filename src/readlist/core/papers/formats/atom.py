"""The arXiv API's Atom feed (.atom, .xml): one paper per `entry`, the feed's title naming the list.

Read with the standard library's XML parser. A document with a DTD is refused before parsing, so no entity
can expand (the arXiv API never sends one). The arXiv id is kept without its version (`2210.12590`, not
`2210.12590v2`), as the other formats give it; the abs link with its version stays the paper's page.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ..identifiers import arxiv_category, arxiv_id, doi
from ..paper import PaperList, Record
from ..records import Collector, names, one_line, shown, year_of
from ..source import ReadError

NAME = "atom"
ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
_DTD = re.compile(r"<!(?:DOCTYPE|ENTITY)", re.IGNORECASE)
API_ERRORS = "http://arxiv.org/api/errors"  # the id of the one entry an API error returns
CHUNK = 1 << 20  # characters parsed at a time


def parse(text: str, source: str) -> PaperList:
    if _DTD.search(text):
        raise ReadError(f"{source}: holds a DTD (<!DOCTYPE or <!ENTITY), which an Atom feed does not; not read")
    papers = Collector(source)
    try:
        root = _read_entries(text.removeprefix("\ufeff"), source, papers)
    except ET.ParseError as exc:
        line, column = exc.position
        raise ReadError(f"{source}: line {line}, column {column + 1}: not well-formed XML") from None
    if not papers.papers and not papers.left_out:
        raise ReadError(f"{source}: the feed has no entries")
    return papers.paper_list(NAME, name=_text(root, f"{ATOM}title"))


def _read_entries(text: str, source: str, papers: Collector) -> ET.Element:
    """Give each entry of the feed to `papers` as soon as it is parsed, then empty it (a whole tree of 100k
    entries takes ten times the file's size); the feed's root element is returned, the last one to end."""
    parser = ET.XMLPullParser(events=("end",))
    element: ET.Element | None = None
    n = 0
    for start in range(0, len(text), CHUNK):
        parser.feed(text[start : start + CHUNK])
        for _, element in parser.read_events():
            if element.tag == f"{ATOM}entry":
                n += 1
                _add(papers, n, element, source)
                element.clear()
    parser.close()  # raises ParseError for a document cut short, or without an element
    for _, last in parser.read_events():
        element = last
    if element is None or element.tag != f"{ATOM}feed":
        tag = _local(element.tag) if element is not None else ""
        raise ReadError(f"{source}: not an Atom feed (its root is <{tag}>, not <feed>)")
    return element


def _add(papers: Collector, n: int, entry: ET.Element, source: str) -> None:
    """One entry, its children read in one pass (finding each by name took three times as long)."""
    texts: dict[str, str] = {}
    authors, terms = [], []
    page = pdf = None
    for child in entry:
        tag = child.tag
        if tag == _AUTHOR:
            authors.append(child.findtext(_NAME))
        elif tag == _LINK:
            if child.get("title") == "pdf":
                pdf = pdf or child.get("href")
            elif child.get("rel", "alternate") == "alternate":
                page = page or child.get("href")
        elif tag == _PRIMARY:
            terms.insert(0, child.get("term", ""))
        elif tag == _CATEGORY:
            terms.append(child.get("term", ""))
        elif child.text:
            texts.setdefault(tag, child.text)
    entry_id = texts.get(_ID, "")
    if entry_id.startswith(API_ERRORS):
        raise ReadError(f"{source}: the arXiv API answered with an error: {one_line(texts.get(_SUMMARY))}")
    record = Record(
        authors=names(authors),
        year=year_of(texts.get(_PUBLISHED)),
        venue=one_line(texts.get(_JOURNAL)),
        arxiv_id=arxiv_id(entry_id) if entry_id else None,
        doi=doi(texts.get(_DOI, "")),
        url=one_line(page or (entry_id if entry_id.startswith("http") else None)),
        pdf_url=one_line(pdf),
        categories=names(category for category in map(arxiv_category, terms) if category),
    )
    where = f"entry {n}" + (f" ({shown(entry_id)})" if entry_id else "")
    papers.add(where, texts.get(_SUMMARY, ""), texts.get(_TITLE), record)


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _text(element: ET.Element, path: str) -> str | None:
    found = element.find(path)
    return found.text if found is not None and found.text else None


_ID, _TITLE, _SUMMARY, _PUBLISHED = f"{ATOM}id", f"{ATOM}title", f"{ATOM}summary", f"{ATOM}published"
_AUTHOR, _NAME, _LINK, _CATEGORY = f"{ATOM}author", f"{ATOM}name", f"{ATOM}link", f"{ATOM}category"
_PRIMARY, _DOI, _JOURNAL = f"{ARXIV}primary_category", f"{ARXIV}doi", f"{ARXIV}journal_ref"
