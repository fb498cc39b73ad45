"""The Semantic Scholar Academic Graph API: the fallback when arXiv has no match.

As documented (api.semanticscholar.org/api-docs/graph): `GET /paper/search/match?query=TITLE&fields=…` answers
`{"data": [paper]}` with the closest title, or 404 `{"error": "Title match not found"}`; `GET /paper/search
?query=…&limit=N&fields=…` answers `{"total", "offset", "data": [paper]}`. A paper has the fields asked for:
`title`, `abstract` (null when the publisher withholds it), `authors` [{name}], `year`, `venue`,
`externalIds` {ArXiv, DOI, DBLP}, `url`, `openAccessPdf` {url}. A key, when given, goes in `x-api-key`.
"""

from __future__ import annotations

from typing import Any

from .answers import ident_of, json_value, need, text_of, url_of, year_of
from .client import HostClient, SourceError
from .records import Hit, Match

FIELDS = "title,abstract,authors,year,venue,externalIds,url,openAccessPdf"
LIMIT = 5


def match_title(client: HostClient, base_url: str, title: str, key: str | None) -> list[Hit]:
    """The paper whose title is closest to `title` (none when Semantic Scholar has no close title)."""
    reply = client.get(
        f"{base_url.rstrip('/')}/paper/search/match", {"query": title, "fields": FIELDS}, _headers(key), ok=(200, 404)
    )
    data = json_value(reply)
    if reply.status == 404:
        if isinstance(data, dict) and "error" in data:
            return []
        raise SourceError(client.host, "HTTP 404 Not Found")
    return _papers(data, client.host)


def search(client: HostClient, base_url: str, words: str, key: str | None) -> list[Hit]:
    """The most relevant papers for `words` (plain text: Semantic Scholar's search takes no query syntax)."""
    params = {"query": words, "limit": str(LIMIT), "fields": FIELDS}
    return _papers(json_value(client.get(f"{base_url.rstrip('/')}/paper/search", params, _headers(key))), client.host)


def _headers(key: str | None) -> dict[str, str]:
    return {"x-api-key": key} if key else {}


def _papers(data: Any, host: str) -> list[Hit]:
    papers = need(need(data, dict, host, "not an object").get("data", []), list, host, "data is not a list")
    return [hit for paper in papers if isinstance(paper, dict) and (hit := _hit(paper)) is not None]


def _hit(paper: dict[str, Any]) -> Hit | None:
    title = text_of(paper.get("title"))
    if not title:
        return None
    ids = paper.get("externalIds") if isinstance(paper.get("externalIds"), dict) else {}
    arxiv_id, doi = ident_of(ids.get("ArXiv")), ident_of(ids.get("DOI"))
    pdf = paper.get("openAccessPdf") if isinstance(paper.get("openAccessPdf"), dict) else {}
    authors = paper.get("authors") if isinstance(paper.get("authors"), list) else []
    page = url_of(paper.get("url")) or ""
    match = Match(
        title=title,
        source="s2",
        record_url=page,
        authors=tuple(name for a in authors if isinstance(a, dict) and (name := text_of(a.get("name")))),
        year=year_of(paper.get("year")),
        venue=text_of(paper.get("venue")),
        arxiv_id=arxiv_id,
        doi=doi,
        url=landing_page(arxiv_id, doi) or page or None,
        pdf_url=url_of(pdf.get("url")),
        dblp_key=ident_of(ids.get("DBLP")),
    )
    abstract = paper.get("abstract")
    return Hit(match, abstract if isinstance(abstract, str) and abstract.strip() else None)


def landing_page(arxiv_id: str | None, doi: str | None) -> str | None:
    """The paper's own page: its arXiv abstract page, else its DOI's."""
    if arxiv_id:
        return f"https://arxiv.org/abs/{arxiv_id}"
    if doi:
        return f"https://doi.org/{doi}"
    return None
