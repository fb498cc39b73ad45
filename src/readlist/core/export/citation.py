"""What a citation of a paper says, for the BibTeX and CSL-JSON exports: its cite key, its kind (a conference
paper, a journal article, a preprint), its full title, authors, year, venue and identifiers.

Cite keys read `firstauthorYEARfirstword` (`doe2023graph`): the first author's family name and the title's first
word that is not a stopword, folded to ASCII in lower case. Without authors the key starts with `paper`,
without a year it has none, and a title with no Latin word gives the paper's id instead. A key already taken
in the export gets `a`, `b`, ... in list order, so the same papers give the same keys on every run.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..papers.describe import surname
from ..papers.links import IN_ABSTRACT, source_links
from ..papers.paper import Paper
from ..text.normalize import strip_control
from ..text.tokens import STOPWORDS, fold
from ..titles.derive import derive_title
from .common import annotation_fields, shown_title, without_escapes

CITED_TITLE = 240  # characters a derived title may have in a citation (the list cuts it at 90)

# Letters that do not decompose into a Latin letter and an accent.
_ASCII_LETTERS = str.maketrans({"ø": "o", "ł": "l", "đ": "d", "æ": "ae", "œ": "oe", "þ": "th", "ð": "d", "ı": "i"})
_CONFERENCE_WORDS = re.compile(
    r"\b(?:conference|proceedings|proc\.|workshops?|symposium|meeting|congress|colloquium|summit)\b", re.IGNORECASE
)
_CONFERENCES = re.compile(
    r"\b(?:neurips|nips|icml|iclr|cvpr|iccv|eccv|wacv|bmvc|acl|emnlp|naacl|eacl|coling|conll|aaai|ijcai|kdd|www|"
    r"sigir|sigmod|vldb|icde|wsdm|cikm|recsys|icra|iros|corl|rss|aistats|uai|colt|interspeech|icassp|chi|uist|"
    r"miccai|facct)\b",
    re.IGNORECASE,
)
_PREPRINT = re.compile(r"^\s*(?:arxiv|corr|biorxiv|medrxiv|ssrn)\b", re.IGNORECASE)  # a venue that is no venue
_YEAR = re.compile(r"(?<![\w.])((?:19|20)\d\d)(?![\w.])")
_TRIMMED_END = re.compile(r"[\s,;:\-–—(]+$")


@dataclass(frozen=True)
class Citation:
    """One paper as a reference."""

    paper: Paper  # without terminal escape sequences
    key: str
    kind: str  # "inproceedings", "article" (a journal's) or "misc" (no venue: a preprint)
    title: str  # the title shown, whole
    year: int | None
    venue: str | None  # the paper's, else the list's name's (a paper file "ICML 2025"), with its year
    url: str | None
    note: str
    keywords: tuple[str, ...]


def ascii_words(text: str) -> list[str]:
    """The words of `text` in lower-case ASCII ("Schölkopf" is "scholkopf", "ε-greedy" is "epsilon", "greedy")."""
    folded = fold(text).translate(_ASCII_LETTERS)
    folded = unicodedata.normalize("NFKD", folded).encode("ascii", "ignore").decode()
    return re.findall(r"[a-z0-9]+", folded)


@dataclass(frozen=True)
class Name:
    """A name in display order ("Jan van der Berg") taken apart; an organisation's (one word, or holding "and")
    is `literal`."""

    given: str = ""
    particle: str = ""
    family: str = ""
    suffix: str = ""
    literal: str = ""

    @classmethod
    def of(cls, name: str) -> Name:
        """Taken apart as the list shows a surname (`describe.surname`): "Jan van der Berg" is Berg with the
        particle "van der", "Sam Roe Jr." Roe with the suffix "Jr."."""
        words = name.split()
        if len(words) < 2 or "and" in words:  # "Barnes and Noble": an organisation
            return cls(literal=" ".join(words))
        family = surname(name).split()
        if not family:  # punctuation alone after the first word ("0 ,"): no surname to take apart
            return cls(literal=" ".join(words))
        start = len(words) - len(family)
        while start > 0 and [word.rstrip(",") for word in words[start : start + len(family)]] != family:
            start -= 1  # before the suffixes
        rest = " ".join(words[start + len(family) :]).strip(", ")
        return cls(" ".join(words[:start]).rstrip(","), " ".join(family[:-1]), family[-1], rest)


def family_key(name: str) -> str:
    """The part of a cite key an author gives: the family name folded ("Bernhard Schölkopf": "scholkopf")."""
    parts = Name.of(name)
    return "".join(ascii_words(parts.family or parts.literal))


def list_venue(name: str) -> tuple[str, int] | None:
    """The conference and year a list's name gives ("ICML 2025 accepted papers": ICML, 2025), or None when it
    names no conference: the words before a year, from the first acronym (ICML, NeurIPS), or all of them when
    they name a conference or workshop."""
    match = _YEAR.search(name)
    if match is None:
        return None
    words = []
    for word in reversed(name[: match.start()].split()):
        if not (word[:1].isupper() or word in ("on", "of", "for", "and", "in", "the", "&")):
            break
        words.insert(0, word)
    while words and not words[0][:1].isupper():
        words.pop(0)
    acronyms = [n for n, word in enumerate(words) if _acronym(word)]
    if acronyms:
        venue = " ".join(words[acronyms[0] :])
    elif _CONFERENCE_WORDS.search(" ".join(words)):
        venue = " ".join(words)
    else:
        return None
    venue = _TRIMMED_END.sub("", venue).rstrip("'’")
    return (venue, int(match.group(1))) if venue and not _PREPRINT.match(venue) else None


def _acronym(word: str) -> bool:
    """ICML, NeurIPS, CoRL: at least two capitals, and as many capitals as other letters."""
    letters = [ch for ch in word if ch.isalpha()]
    capitals = sum(ch.isupper() for ch in letters)
    return capitals >= 2 and capitals * 2 >= len(letters)


def own_venue(paper: Paper) -> str | None:
    """The venue the paper file gives, unless it names a preprint server ("CoRR", "arXiv preprint ...")."""
    venue = paper.venue
    return None if not venue or _PREPRINT.match(venue) else venue


def venue_notice(papers: Sequence[Paper], list_name: str | None) -> str | None:
    """What to tell the user when citations of `papers` take their venue and year from the list's name."""
    venue = list_venue(list_name) if list_name else None
    count = sum(1 for paper in papers if not own_venue(paper)) if venue else 0
    return f"{count} paper(s) without a venue cited as {venue[0]}, {venue[1]}, from the list's name" if count else None


def kind_of(venue: str | None, from_list: bool) -> str:
    """The entry's kind: a conference paper when the venue reads as a conference (or is the list's), else a
    journal article; a preprint (`misc`) without a venue."""
    if not venue:
        return "misc"
    if from_list or _CONFERENCE_WORDS.search(venue) or _CONFERENCES.search(venue):
        return "inproceedings"
    return "article"


def citable_title(paper: Paper, note: Any) -> str:
    """The title shown, whole: a derived title the list cuts short is derived again with room to end where its
    phrase ends; one longer still ends without its `…` and the words left hanging ("… in tensor parallelism
    by…" ends "in tensor parallelism")."""
    title = shown_title(paper, note)
    if getattr(note, "title", None) or paper.title_origin != "derived" or not title.endswith("…"):
        return title
    title = strip_control(derive_title(paper.plain, CITED_TITLE))
    if not title.endswith("…"):
        return title
    words = title[:-1].split()
    while len(words) > 1 and words[-1].lower().strip(",;:") in STOPWORDS:
        words.pop()
    return _TRIMMED_END.sub("", " ".join(words))


_CITED_LINKS = ("Landing page", "arXiv abstract page", "PDF", IN_ABSTRACT)  # best first; a DOI has its own field


def cited_url(paper: Paper) -> str | None:
    """The citation's `url`: the paper's landing page, else its arXiv page, else its PDF, else the abstract's first
    link; http(s) only, as `o` opens (a file's `javascript:` or `file:` link is not cited)."""
    found = source_links(paper)
    if paper.url and any(link.url == paper.url for link in found):
        return paper.url  # the landing page, whatever it is (named "arXiv abstract page" or "DOI" when it is one)
    links = {link.label: link.url for link in reversed(found)}  # the first of each label wins
    return next((links[label] for label in _CITED_LINKS if label in links), None)


def base_key(paper: Paper, title: str, year: int | None) -> str:
    """`firstauthorYEARfirstword`, before any suffix; `paper` for no author, the id for no Latin word."""
    author = next((key for key in map(family_key, paper.authors[:1]) if key), "paper")
    word = next((word for word in ascii_words(title) if word not in STOPWORDS), None)
    return f"{author}{year or ''}{word or paper.id}"


def _suffix(n: int) -> str:
    """a, b, ..., z, aa, ab, ...: the n-th (from 1) suffix of a key already taken."""
    letters = ""
    while n:
        n, rest = divmod(n - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def citations(papers: Sequence[Paper], annotations: Mapping[str, Any], list_name: str | None = None) -> list[Citation]:
    """The papers (already selected, in list order) as references, each with its own key."""
    from_list = list_venue(list_name) if list_name else None
    taken: set[str] = set()
    out = []
    for paper in map(without_escapes, papers):
        note = annotations.get(paper.id)
        venue, year, listed = own_venue(paper), paper.year, False
        if not venue and from_list:
            (venue, year), listed = from_list, True
        title = citable_title(paper, note)
        key = base_key(paper, title, year)
        n = 0
        while (key + _suffix(n)) in taken:
            n += 1
        taken.add(key + _suffix(n))
        fields = annotation_fields(note)
        keywords = (*paper.keywords, *fields["tags"])
        out.append(
            Citation(
                paper=paper,
                key=key + _suffix(n),
                kind=kind_of(venue, listed),
                title=title,
                year=year,
                venue=strip_control(venue) if venue else None,  # the list's name may come from any file
                url=cited_url(paper),
                note=fields["note"].strip(),
                keywords=tuple(dict.fromkeys(keywords)),
            )
        )
    return out
