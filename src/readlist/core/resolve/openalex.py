"""OpenAlex's works search, asked only when the user gave a key (READLIST_OPENALEX_KEY).

As documented (developers.openalex.org): `GET /works?search=…&per_page=N&api_key=KEY` answers
`{"meta": {...}, "results": [work]}`; a work has `id` (its OpenAlex page), `doi` (as a doi.org link),
`title`, `publication_year`, `publication_date`, `authorships` [{author: {display_name}}],
`primary_location` {landing_page_url, pdf_url, source: {display_name}}, `best_oa_location` {pdf_url},
`locations` (an arXiv one has its abstract page), and the abstract as `abstract_inverted_index`
(word -> positions), which is put back in order here to verify the match.
"""

from __future__ import annotations

from typing import Any

from .answers import json_value, need, text_of, url_of, year_of
from .client import HostClient
from .records import Hit, Match
from .semantic_scholar import landing_page

PER_PAGE = 5
_LONGEST = 100_000  # words in an abstract; a position past this is not one
_DOI_LINK = "https://doi.org/"
_ARXIV_DOI = "10.48550/arxiv."


def search(client: HostClient, base_url: str, words: str, key: str) -> list[Hit]:
    params = {"search": words, "per_page": str(PER_PAGE), "api_key": key}
    data = json_value(client.get(f"{base_url.rstrip('/')}/works", params))
    works = need(need(data, dict, client.host, "not an object").get("results", []), list, client.host, "results")
    return [hit for work in works if isinstance(work, dict) and (hit := _hit(work)) is not None]


def abstract_text(inverted: Any) -> str | None:
    """The abstract an inverted index (word -> positions) was made from."""
    if not isinstance(inverted, dict):
        return None
    at: dict[int, str] = {}
    for word, positions in inverted.items():
        if isinstance(word, str) and isinstance(positions, list):
            at.update((p, word) for p in positions if type(p) is int and 0 <= p < _LONGEST)
    return " ".join(at[p] for p in sorted(at)) or None


def _arxiv_id(work: dict[str, Any], doi: str | None) -> str | None:
    if doi and doi.lower().startswith(_ARXIV_DOI):
        return doi[len(_ARXIV_DOI) :]
    locations = work.get("locations") if isinstance(work.get("locations"), list) else []
    for location in locations:
        page = url_of(location.get("landing_page_url")) if isinstance(location, dict) else None
        if page and "arxiv.org/abs/" in page:
            return page.split("arxiv.org/abs/", 1)[1].strip("/") or None
    return None


def _hit(work: dict[str, Any]) -> Hit | None:
    title = text_of(work.get("title")) or text_of(work.get("display_name"))
    if not title:
        return None
    doi_link = url_of(work.get("doi"))
    doi = doi_link[len(_DOI_LINK) :] if doi_link and doi_link.lower().startswith(_DOI_LINK) else None
    primary = work.get("primary_location") if isinstance(work.get("primary_location"), dict) else {}
    source = primary.get("source") if isinstance(primary.get("source"), dict) else {}
    venue = text_of(source.get("display_name"))
    best = work.get("best_oa_location") if isinstance(work.get("best_oa_location"), dict) else {}
    authorships = work.get("authorships") if isinstance(work.get("authorships"), list) else []
    authors = [a.get("author") for a in authorships if isinstance(a, dict) and isinstance(a.get("author"), dict)]
    arxiv_id = _arxiv_id(work, doi)
    published = text_of(work.get("publication_date"))
    match = Match(
        title=title,
        source="openalex",
        record_url=url_of(work.get("id")) or "",
        authors=tuple(name for author in authors if (name := text_of(author.get("display_name")))),
        year=year_of(work.get("publication_year")),
        venue=None if venue and "arxiv" in venue.lower() else venue,
        arxiv_id=arxiv_id,
        doi=doi,
        url=landing_page(arxiv_id, doi) or url_of(primary.get("landing_page_url")),
        pdf_url=url_of(best.get("pdf_url")) or url_of(primary.get("pdf_url")),
        published=published[:10] if published else None,
    )
    return Hit(match, abstract_text(work.get("abstract_inverted_index")))
