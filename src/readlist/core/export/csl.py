"""The CSL-JSON export: the papers as Citation Style Language items, what Zotero, pandoc (`--citeproc`) and most
reference managers import. Each item's `id` is its cite key, as in the BibTeX export."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..papers.paper import Paper
from ..text.normalize import strip_control
from .citation import Citation, Name, citations

TYPES = {"inproceedings": "paper-conference", "article": "article-journal", "misc": "article"}  # article: a preprint


def csl_name(name: str) -> dict[str, str]:
    """A name as CSL takes it apart: family, given, particle and suffix; one word (an organisation) as a literal."""
    parts = Name.of(name)
    if parts.literal:
        return {"literal": parts.literal}
    out = {"family": parts.family, "given": parts.given}
    if parts.particle:
        out["non-dropping-particle"] = parts.particle
    if parts.suffix:
        out["suffix"] = parts.suffix
    return out


def item(citation: Citation) -> dict[str, Any]:
    paper = citation.paper
    out: dict[str, Any] = {"id": citation.key, "citation-key": citation.key, "type": TYPES[citation.kind]}
    out["title"] = citation.title
    if paper.authors:
        out["author"] = [csl_name(name) for name in paper.authors]
    if citation.year:
        out["issued"] = {"date-parts": [[citation.year]]}
    if citation.venue:
        out["container-title"] = citation.venue
    if paper.arxiv_id:
        out["number"] = f"arXiv:{paper.arxiv_id}"
        out["archive"] = "arXiv"
        if citation.kind == "misc":
            out["publisher"] = "arXiv"  # what a style prints for a preprint
    if paper.doi:
        out["DOI"] = strip_control(paper.doi)
    if citation.url:
        out["URL"] = strip_control(citation.url)
    if paper.text.strip():
        out["abstract"] = strip_control(paper.plain)
    if citation.keywords:
        out["keyword"] = ", ".join(citation.keywords)
    if citation.note:
        out["annote"] = citation.note
    return out


def to_csl_json(papers: Sequence[Paper], annotations: Mapping[str, Any], list_name: str | None = None) -> str:
    items = [item(citation) for citation in citations(papers, annotations, list_name)]
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
