"""A paper's record as a person reads it: its authors (shortened when many), first author's surname, venue and
year, identifiers, and where the title shown comes from. Plain strings, for the detail pane, rows and `show`."""

from __future__ import annotations

from .paper import Paper

SHOWN_AUTHORS = 6  # more authors than this are shortened to the first ones, "…", and the last
# Lower-case particles that belong to a surname: "Jan van der Berg" is filed under "van der Berg".
_PARTICLES = frozenset("van von der den de del della di da dos du la le ter ten zu bin ibn".split())
_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())
# Who found a title online (Record.found_by: "arxiv", "arxiv+dblp"), as people write the services' names.
SOURCE_NAMES = {"arxiv": "arXiv", "dblp": "DBLP", "s2": "Semantic Scholar", "openalex": "OpenAlex"}
ORIGINS = {
    "yours": "your title",
    "given": "title from the file",
    "found": "title found online",
    "derived": "title derived from the abstract",
}


def short_authors(authors: tuple[str, ...] | list[str], limit: int = SHOWN_AUTHORS) -> str:
    """'A, B, C' — or, past `limit` names, the first `limit - 2`, '…' and the last: 'A, B, C, D, … Z'."""
    if len(authors) <= limit:
        return ", ".join(authors)
    return ", ".join([*authors[: max(limit - 2, 1)], "…"]) + " " + authors[-1]


def surname(name: str) -> str:
    """A name's family part as shown ("Jane Doe" -> "Doe", "Jan van der Berg" -> "van der Berg", "Sam Roe Jr." ->
    "Roe"); a one-word name whole."""
    words = name.split()
    while len(words) > 1 and words[-1].lower().rstrip(",") in _SUFFIXES:
        words.pop()
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:  # the first word is a given name, even "de"
        start -= 1
    return " ".join(words[start:]).rstrip(",")


def venue_and_year(paper: Paper) -> str:
    """'CoRR 2022', 'ICML 2023' (a venue naming its year is not given it twice), '2022', or ''."""
    venue, year = paper.venue or "", str(paper.year) if paper.year else ""
    if venue and year and year in venue:
        return venue
    return " ".join(part for part in (venue, year) if part)


def identifiers(paper: Paper) -> str:
    """'arXiv 2210.12590 · DOI 10.48550/arXiv.2210.12590', the ones the paper has ('' for none)."""
    ids = []
    if paper.arxiv_id:
        ids.append(f"arXiv {paper.arxiv_id}")
    if paper.doi:
        ids.append(f"DOI {paper.doi}")
    return " · ".join(ids)


def where_and_ids(paper: Paper) -> str:
    """The venue, year and ids on one line: 'CoRR 2022 · arXiv 2210.12590 · DOI 10.48550/arXiv.2210.12590'."""
    return " · ".join(part for part in (venue_and_year(paper), identifiers(paper)) if part)


def title_origin(paper: Paper, own_title: str | None = None) -> str:
    """Where the title shown comes from: "yours" (`T`), else the paper's `title_origin` (given, found, derived)."""
    return "yours" if own_title else paper.title_origin


def title_origin_line(paper: Paper, own_title: str | None = None) -> str:
    """Where the title shown comes from, said: 'your title', 'title found on arXiv (with DBLP)', 'title derived from
    the abstract', 'title from the file'."""
    origin = title_origin(paper, own_title)
    if origin == "found" and paper.found_by:
        first, *others = [SOURCE_NAMES.get(name, name) for name in paper.found_by.split("+") if name]
        return f"title found on {first}" + (f" (with {', '.join(others)})" if others else "")
    return ORIGINS[origin]
