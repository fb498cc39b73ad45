"""The arXiv API: search abstracts by phrases (`abs:"…" AND abs:"…"`), read the Atom feed it answers with.

As documented in the arXiv API User's Manual: `search_query`, `start`, `max_results`; each `<entry>` has
`<id>` (the abstract page, version included), `<title>`, `<summary>`, `<published>`, `<author><name>`,
`<link rel="alternate">` and `<link title="pdf">`, `<category term>`, and in the arxiv namespace
`<primary_category term>`, `<journal_ref>` and `<doi>`. An error is a feed whose one entry has an id under
/api/errors and the message as its summary.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

from .answers import ident_of, text_of, url_of, xml_root
from .client import HostClient, SourceError
from .records import Hit, Match

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
MAX_RESULTS = 10


def query(phrases: list[str]) -> str:
    """The search_query for abstracts holding every phrase."""
    return " AND ".join(f'abs:"{phrase}"' for phrase in phrases)


def search(client: HostClient, base_url: str, phrases: list[str]) -> list[Hit]:
    """The entries whose abstracts hold every phrase, in the API's order (most relevant first)."""
    params = {"search_query": query(phrases), "start": "0", "max_results": str(MAX_RESULTS)}
    root = xml_root(client.get(base_url, params))
    return parse_feed(root, client.host)


def parse_feed(root: Element, host: str) -> list[Hit]:
    if root.tag != f"{ATOM}feed":
        raise SourceError(host, "XML that is not an Atom feed")
    hits = []
    for entry in root.iter(f"{ATOM}entry"):
        entry_id = (entry.findtext(f"{ATOM}id") or "").strip()
        if "/api/errors" in entry_id:
            message = text_of(entry.findtext(f"{ATOM}summary")) or "an error"
            raise SourceError(host, f"arXiv says: {message}")
        hit = _entry(entry, entry_id)
        if hit is not None:
            hits.append(hit)
    return hits


def arxiv_id(url: str) -> str | None:
    """2210.12590 of http://arxiv.org/abs/2210.12590v2 (and hep-ex/0307015 of .../abs/hep-ex/0307015v1)."""
    _, found, rest = url.partition("/abs/")
    if not found or not rest:
        return None
    rest = rest.strip().strip("/")
    head, v, version = rest.rpartition("v")
    if v and head and version.isdigit() and head[-1].isdigit():
        rest = head
    return rest or None


def _entry(entry: Element, entry_id: str) -> Hit | None:
    title = text_of(entry.findtext(f"{ATOM}title"))
    the_id = arxiv_id(entry_id)
    if not title or not the_id:
        return None
    page, pdf = None, None
    for link in entry.iter(f"{ATOM}link"):
        if link.get("rel") == "alternate":
            page = url_of(link.get("href")) or page
        elif link.get("title") == "pdf":
            pdf = url_of(link.get("href")) or pdf
    published = (entry.findtext(f"{ATOM}published") or "").strip()[:10] or None
    primary = entry.find(f"{ARXIV}primary_category")
    categories = tuple(term for c in entry.iter(f"{ATOM}category") if (term := ident_of(c.get("term"))))
    match = Match(
        title=title,
        source="arxiv",
        record_url=page or url_of(entry_id) or "",
        authors=tuple(name for a in entry.iter(f"{ATOM}author") if (name := text_of(a.findtext(f"{ATOM}name")))),
        year=int(published[:4]) if published and published[:4].isdigit() else None,
        arxiv_id=the_id,
        doi=ident_of(entry.findtext(f"{ARXIV}doi")),
        url=page or url_of(entry_id),
        pdf_url=pdf,
        primary_category=ident_of(primary.get("term")) if primary is not None else None,
        categories=categories,
        journal_ref=text_of(entry.findtext(f"{ARXIV}journal_ref")),
        published=published,
    )
    return Hit(match, entry.findtext(f"{ATOM}summary") or None)
