"""Papers with what resolving found, and resolving papers into the store.

`with_found` is how every reader of papers and the store together (the commands, the terminal UI) sees the
found titles, authors, ids and links: a paper whose resolution is FOUND gets a record holding the match's
fields where the paper file gave none (the file's own values are never replaced), its `found_title` and
`found_by`. Only those papers are copied; a list without resolutions is returned as it is.

`look_up` resolves papers one after another, saving each result as it arrives (a run stopped or killed keeps
what it found, and the next run skips it), and yields it to the caller (a command's progress, a worker's
callback): it holds no state of its own, so any thread may run it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from ..papers.paper import NO_RECORD, Paper, PaperList, Record
from ..resolve.records import Match, Resolution, Status
from ..text.normalize import to_plain
from .store import Store

if TYPE_CHECKING:  # the engine imports the HTTP client, which reading papers with the database never needs
    from ..resolve.engine import PaperQuery, Resolver


def found_record(record: Record | None, match: Match) -> Record:
    """The paper's record with the match's fields where it has none, the found title and its source."""
    base = record or NO_RECORD
    categories = tuple(dict.fromkeys(c for c in (match.primary_category, *match.categories) if c))
    offered = {
        "authors": match.authors,
        "year": match.year,
        "venue": match.venue or match.journal_ref,
        "arxiv_id": match.arxiv_id,
        "doi": match.doi,
        "url": match.url,
        "pdf_url": match.pdf_url,
        "categories": categories,
    }
    fields = {name: getattr(base, name) for name in Record.__slots__}  # the constructor: 3x faster than replace
    fields.update((name, value) for name, value in offered.items() if value and not fields[name])
    fields.update(found_title=match.title or None, found_by=match.source)
    return Record(**fields)


def with_found(papers: PaperList, resolutions: Mapping[str, Resolution]) -> PaperList:
    """The list with each found paper's record completed by its match (see the module docstring)."""
    matches = {pid: r.match for pid, r in resolutions.items() if r.status is Status.FOUND and r.match is not None}
    if not matches:
        return papers
    by_id = papers.by_id
    items: list[Paper] | None = None
    for pid, match in matches.items():
        paper = by_id.get(pid)
        if paper is None:
            continue
        if items is None:
            items = list(papers.papers)
        position = paper.index - 1
        if not (0 <= position < len(items) and items[position] is paper):  # numbered otherwise: look it up
            position = items.index(paper)
        record = found_record(paper.record, match)
        items[position] = Paper(paper.id, paper.index, paper.text, paper.given_title, record)
    return papers if items is None else replace(papers, papers=tuple(items))


def query_for(paper: Paper, own_title: str | None = None) -> PaperQuery:
    """What resolving is given of a paper: its abstract, and a title only when the user or the file gave one."""
    from ..resolve.engine import PaperQuery

    title = own_title or (to_plain(paper.given_title) if paper.given_title else None)
    return PaperQuery(paper.id, paper.text, title)


def look_up(
    store: Store, resolver: Resolver, queries: Iterable[PaperQuery], *, keep: bool = True
) -> Iterator[Resolution]:
    """Each paper's resolution as it is made, saved first when `keep` (a failure is never saved: what was known
    before stays). Stops quietly when the resolver's `cancel` is set; raises OSError or filelock.Timeout when the
    database cannot be written (the resolution is then not yielded)."""
    for resolution in resolver.resolve_many(queries):
        if keep and resolution.status is not Status.FAILED:
            store.keep_resolutions([resolution])
            if store.pending_error and not store.flush():
                raise OSError(store.pending_error)
        yield resolution
