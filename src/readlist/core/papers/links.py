"""A paper's links, best first: its PDF, its landing page, its DOI and arXiv pages, the links in its abstract, and
a web search for it, made from a template the user may set (READLIST_WEB_SEARCH)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus, urlsplit

from ..text.normalize import normalize_ws, strip_control
from ..titles.clauses import sentence_end
from .paper import Paper

WEB_SEARCH_SETTING = "READLIST_WEB_SEARCH"
# Named templates: {title} is the title shown, {sentence} the abstract's first sentence, each URL-encoded.
WEB_SEARCHES = {
    "arxiv": "https://arxiv.org/search/?query={title}&searchtype=all",
    "scholar": "https://scholar.google.com/scholar?q=%22{sentence}%22",  # Google Scholar's exact-phrase search
}
DEFAULT_WEB_SEARCH = "arxiv"
IN_ABSTRACT = "Link in the abstract"  # the label of a link found in the abstract's text
_SEARCH_LABELS = {
    WEB_SEARCHES["arxiv"]: "Search arXiv for the title",
    WEB_SEARCHES["scholar"]: "Search Google Scholar for the first sentence",
}
_PLACEHOLDERS = ("{title}", "{sentence}")
SENTENCE_CHARS = 250  # of the first sentence searched for: a phrase that long finds the paper, a longer one is cut


class LinkSettingError(ValueError):
    """READLIST_WEB_SEARCH holds something that cannot make a link; said in one line naming it."""


@dataclass(frozen=True)
class Link:
    label: str  # what the link leads to: "PDF", "DOI", "Search arXiv for the title"
    url: str


def web_search_template(env: Mapping[str, str] | None = None) -> str:
    """The web search's template from READLIST_WEB_SEARCH (os.environ unless `env` is given): "arxiv" (the default),
    "scholar", or an http(s) URL holding {title} or {sentence}. Anything else is a LinkSettingError."""
    env = os.environ if env is None else env
    value = env.get(WEB_SEARCH_SETTING)
    if value is None:
        return WEB_SEARCHES[DEFAULT_WEB_SEARCH]
    value = value.strip()
    if value.lower() in WEB_SEARCHES:
        return WEB_SEARCHES[value.lower()]
    if any(place in value for place in _PLACEHOLDERS) and _is_web_url(value.replace("{", "").replace("}", "")):
        return value
    names = " or ".join(f"'{name}'" for name in WEB_SEARCHES)
    shown = repr(value) if value else "empty"
    raise LinkSettingError(
        f"{WEB_SEARCH_SETTING} is {shown}: expected {names}, or an http(s) URL holding {{title}} or {{sentence}}"
    )


def paper_links(paper: Paper, title: str, template: str | None = None) -> list[Link]:
    """Every link to the paper, best first, each once: `source_links`, then the web search for `title` (the title
    shown) made from `template` (the default search when None)."""
    return [*source_links(paper), web_search(paper, title, template)]


def best_link(paper: Paper, title: str, template: str | None = None) -> Link:
    """The link `o` opens: the first of `paper_links`, which always has one (the web search, at worst)."""
    links = source_links(paper)
    return links[0] if links else web_search(paper, title, template)


def source_links(paper: Paper) -> list[Link]:
    """The links the paper's source and abstract give, best first: its PDF, its landing page, its DOI's and arXiv
    abstract pages, then the links in the abstract. Only http(s) links, each once."""
    found: list[Link] = []
    seen: set[str] = set()

    def add(label: str, url: str | None) -> None:
        if url and _is_web_url(url):
            key = url.split("://", 1)[1].rstrip("/").lower()  # http and https, a trailing slash: one page
            if key not in seen:
                seen.add(key)
                found.append(Link(label, url))

    if paper.record is not None:
        add("PDF", paper.pdf_url)
        add(landing_label(paper.url), paper.url)
        if paper.doi:
            add("DOI", doi_url(paper.doi))
        if paper.arxiv_id:
            add("arXiv abstract page", "https://arxiv.org/abs/" + quote(paper.arxiv_id, safe="/"))
    for url in paper.urls:
        add(IN_ABSTRACT, url)
    return found


def landing_label(url: str | None) -> str:
    """A landing page's label by what it is: an arXiv abstract page or a DOI's page is named as such, whichever
    field of the source gave it (a BibTeX `url` is often the arXiv page, a JSON Lines record names it by its id)."""
    parts = urlsplit(url or "")
    host = (parts.hostname or "").lower().removeprefix("www.").removeprefix("export.")
    if host == "arxiv.org" and parts.path.startswith("/abs/"):
        return "arXiv abstract page"
    if host in ("doi.org", "dx.doi.org"):
        return "DOI"
    return "Landing page"


def doi_url(doi: str) -> str:
    """The DOI's page at doi.org ('10.1000/x?y' -> 'https://doi.org/10.1000/x%3Fy'); a DOI given as a link stays."""
    if _is_web_url(doi):
        return doi
    return "https://doi.org/" + quote(doi.strip().removeprefix("doi:"), safe="/:;()[]._-~!$&'*+,=@")


def web_search(paper: Paper, title: str, template: str | None = None) -> Link:
    """A web search for the paper: `template` with {title} and {sentence} filled in, each URL-encoded."""
    template = template or WEB_SEARCHES[DEFAULT_WEB_SEARCH]
    url = template
    if "{title}" in url:
        url = url.replace("{title}", quote_plus(_query_text(title)))
    if "{sentence}" in url:
        url = url.replace("{sentence}", quote_plus(first_sentence(paper) or _query_text(title)))
    # A template as typed may hold spaces or quotes, which a browser reads but a URL must not hold.
    url = url.replace(" ", "%20").replace('"', "%22")
    label = _SEARCH_LABELS.get(template) or (
        "Web search for the title" if "{title}" in template else "Web search for the first sentence"
    )
    return Link(label, url)


def first_sentence(paper: Paper) -> str:
    """The abstract's first sentence as shown (LaTeX as Unicode), cut at a word within SENTENCE_CHARS."""
    text = paper.plain
    sentence = text[: sentence_end(text, 0)].strip()
    if len(sentence) > SENTENCE_CHARS:
        sentence = sentence[:SENTENCE_CHARS].rsplit(" ", 1)[0]
    return sentence


def _query_text(title: str) -> str:
    """A title as search words: one line, without the ellipsis a cut-off derived title ends in."""
    return normalize_ws(strip_control(title).replace("…", " "))


def _is_web_url(url: str) -> bool:
    """An http(s) link to a host, printable and without spaces (what a browser is given)."""
    if not url.isprintable() or any(char.isspace() for char in url):
        return False
    try:
        parts = urlsplit(url)
        return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a malformed IPv6 address
        return False
