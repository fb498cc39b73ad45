"""Paper ids and the identifiers sources give: arXiv ids, DOIs and categories recognised and written one way.

A paper's id is the hash of its abstract (`paper_id`), so the same abstract read from any format shares its
annotations. A record without an abstract takes its id from its DOI, else its arXiv id, else its title,
hashed apart from abstracts: an abstract that reads like a DOI never gets a DOI's id.
"""

from __future__ import annotations

import hashlib
import re

from ..text.normalize import normalize_ws, paper_id, to_plain
from ..text.tokens import WORD, fold

# New-style ids (2210.12590, 0704.0001v2) and old-style ones (math/0501001, cs.AI/0102004v1).
_ARXIV = re.compile(r"(\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]{2})?/\d{7})(?:v\d+)?", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:arxiv:|https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIX = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)", re.IGNORECASE)
# An arXiv category, with a hyphen where its dot belongs as in folder names: cs.AI, cs-AI, astro-ph.CO, hep-th.
_CATEGORY = re.compile(r"([a-z]+(?:-[a-z]+)?)(?:[.-]([A-Z]{2}))?")


def arxiv_id(value: str) -> str | None:
    """The arXiv id in `value` (an id, `arXiv:` id, or abs/pdf link) without its version; None if it is none."""
    value = _ARXIV_PREFIX.sub("", value.strip())
    if value.lower().endswith(".pdf"):
        value = value[:-4]
    match = _ARXIV.fullmatch(value)
    return match.group(1) if match else None


def doi(value: str) -> str | None:
    """The DOI in `value` (a DOI, `doi:` one, or a doi.org link) as written; None if it is none."""
    value = _DOI_PREFIX.sub("", value.strip())
    return value if _DOI.fullmatch(value) else None


def arxiv_category(value: str) -> str | None:
    """An arXiv category as arXiv writes it (`cs-AI` → `cs.AI`); None for anything else."""
    match = _CATEGORY.fullmatch(value.strip())
    if match is None:
        return None
    return f"{match.group(1)}.{match.group(2)}" if match.group(2) else match.group(1)


def normal_title(title: str) -> str:
    """A title as compared: its words, folded (case, accents, LaTeX and punctuation aside)."""
    return " ".join(WORD.findall(fold(to_plain(title))))


def record_id(abstract: str, doi: str | None = None, arxiv: str | None = None, title: str | None = None) -> str | None:
    """The id of a paper with this abstract; for one without: from its DOI, arXiv id or title (None if none)."""
    if abstract.strip():
        return paper_id(abstract)
    if doi:
        key = "doi " + normalize_ws(doi).lower()  # DOIs ignore case
    elif arxiv:
        key = "arxiv " + arxiv.lower()
    elif title and (words := normal_title(title)):
        key = "title " + words
    else:
        return None
    # Personalised: a hash apart from abstracts' (same length, so ids look and resolve alike).
    return hashlib.blake2b(key.encode("utf-8"), digest_size=6, person=b"readlist-rec").hexdigest()
