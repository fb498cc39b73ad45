"""DBLP's publication search API: a verified title in, the venue, year, DOI and DBLP key of its exact match out.

As documented (dblp.org/faq, "How to use the dblp search API"): GET with `q`, `format=json` and `h` (hits);
the answer is `{"result": {"status": {"@code"}, "hits": {"@total", "hit": [{"info": {...}}]}}}` where `info`
holds `title` (ending in a period), `authors.author` (one object or a list, each with `text`), `venue`
(text or list), `year`, `type`, `key`, `doi`, `ee` and `url` (the record's page).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .answers import ident_of, json_value, need, text_of, url_of, year_of
from .client import HostClient, SourceError
from .records import Match
from .similarity import same_title, share_an_author

HITS = 10
INFORMAL = "Informal"  # the type DBLP gives arXiv preprints (venue CoRR): no venue to cite


def search(client: HostClient, base_url: str, title: str) -> list[Match]:
    """DBLP's records for a title search, in its order."""
    data = json_value(client.get(base_url, {"q": title, "format": "json", "h": str(HITS)}))
    result = need(need(data, dict, client.host, "not an object").get("result"), dict, client.host, "no result")
    status = result.get("status")
    if isinstance(status, dict) and str(status.get("@code", "200")) != "200":
        raise SourceError(client.host, f"DBLP says: {text_of(status.get('text')) or status.get('@code')}")
    hits = need(result.get("hits", {}), dict, client.host, "result.hits is not an object").get("hit", [])
    if isinstance(hits, dict):  # one hit may come unwrapped
        hits = [hits]
    records = []
    for hit in need(hits, list, client.host, "result.hits.hit is not a list"):
        info = hit.get("info") if isinstance(hit, dict) else None
        if isinstance(info, dict) and (record := _record(info)) is not None:
            records.append(record)
    return records


def _record(info: dict[str, Any]) -> Match | None:
    title = text_of(info.get("title"))
    if not title:
        return None
    venue = info.get("venue")
    if isinstance(venue, list):
        venue = ", ".join(v for v in venue if isinstance(v, str))
    authors = info.get("authors", {})
    people = authors.get("author", []) if isinstance(authors, dict) else []
    if isinstance(people, dict):
        people = [people]
    names = [text_of(p.get("text")) if isinstance(p, dict) else text_of(p) for p in people]
    kind = text_of(info.get("type")) or ""
    return Match(
        title=title.removesuffix("."),
        source="dblp",
        record_url=url_of(info.get("url")) or "",
        authors=tuple(name for name in names if name),
        year=year_of(info.get("year")),
        venue=None if kind.startswith(INFORMAL) else text_of(venue),
        doi=ident_of(info.get("doi")),
        url=url_of(info.get("ee")) if isinstance(info.get("ee"), str) else None,
        dblp_key=ident_of(info.get("key")),
    )


def venue_for(match: Match, records: list[Match]) -> Match | None:
    """The record that gives `match` a venue: same title exactly, an author in common, a venue that is not
    an informal one (CoRR); the newest when several (a workshop paper later published at the conference)."""
    fitting = [
        record
        for record in records
        if record.venue and same_title(record.title, match.title) and share_an_author(match.authors, record.authors)
    ]
    if not fitting:
        return None
    return max(fitting, key=lambda record: record.year or 0)


def add_venue(match: Match, record: Match) -> Match:
    """`match` with DBLP's venue, year, DOI (when the match has none) and key."""
    return dataclasses.replace(
        match,
        venue=record.venue,
        year=record.year or match.year,
        doi=match.doi or record.doi,
        dblp_key=record.dblp_key,
        source=f"{match.source}+dblp",
    )
