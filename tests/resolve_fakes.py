"""Local stand-ins for the services resolving asks: an HTTP server on 127.0.0.1, a fake clock, and answers in
each API's documented format (arXiv's Atom feed, DBLP's, Semantic Scholar's and OpenAlex's JSON).

Used by the resolve tests and by bench/bench_resolve.py; nothing here talks to a real service.
"""

from __future__ import annotations

import json
import re
import textwrap
import threading
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit
from xml.etree import ElementTree as ET

FIXTURES = Path(__file__).parent / "fixtures" / "resolve"
ATOM, ARXIV, OPENSEARCH = (
    "http://www.w3.org/2005/Atom",
    "http://arxiv.org/schemas/atom",
    "http://a9.com/-/spec/opensearch/1.1/",
)
ET.register_namespace("", ATOM)
ET.register_namespace("arxiv", ARXIV)
ET.register_namespace("opensearch", OPENSEARCH)


class _QuietServer(ThreadingHTTPServer):
    """A client that gave up (a timeout test) leaves a broken connection: not worth a traceback in the test output."""

    def handle_error(self, request, client_address) -> None:
        pass


def sample_papers() -> list[dict]:
    """16 papers of the shared arXiv sample: number, arxiv_id, category, title, abstract."""
    return json.loads((FIXTURES / "papers.json").read_text(encoding="utf-8"))["papers"]


class FakeClock:
    """A clock whose sleeps return at once and move its time on; it keeps what it slept."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []
        self.on_sleep: Callable[[float], None] | None = None

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float, cancel: threading.Event) -> None:
        self.slept.append(seconds)
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep(seconds)


@dataclass
class Answer:
    status: int = 200
    body: bytes | str = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    cut_at: int | None = None  # announce the whole body's length, send this many bytes, close the connection
    hang: bool = False  # answer nothing until the server stops


@dataclass
class Request:
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    at: float | None  # the fake clock's time when it arrived, if the server was given one


class LocalServer:
    """An HTTP server on 127.0.0.1 (a free port) answering every GET with `app(request)`; it keeps the requests."""

    def __init__(self, app: Callable[[Request], Answer], clock: FakeClock | None = None):
        self.app, self.clock = app, clock
        self.requests: list[Request] = []
        self.stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out at once, not 40 ms apart

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                request = Request(
                    parts.path,
                    dict(parse_qsl(parts.query, keep_blank_values=True)),
                    {k.lower(): v for k, v in self.headers.items()},
                    server.clock.now if server.clock else None,
                )
                server.requests.append(request)
                server.respond(self, server.app(request))

            def log_message(self, *args) -> None:  # quiet
                pass

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self._httpd.server_address[1]}"

    def respond(self, handler: BaseHTTPRequestHandler, answer: Answer) -> None:
        if answer.hang:
            self.stopping.wait()
            return
        body = answer.body.encode("utf-8") if isinstance(answer.body, str) else answer.body
        handler.send_response(answer.status)
        handler.send_header("Content-Type", answer.content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in answer.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body if answer.cut_at is None else body[: answer.cut_at])
        handler.wfile.flush()
        if answer.cut_at is not None:
            handler.close_connection = True

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()


# arXiv: the Atom feed of the API User's Manual.


@dataclass
class ArxivEntry:
    arxiv_id: str
    title: str
    summary: str
    authors: tuple[str, ...] = ("Ada Lovelace", "Alan Turing")
    category: str = "cs.LG"
    published: str = "2025-05-20T17:59:58Z"
    doi: str | None = None
    journal_ref: str | None = None


def atom_feed(entries: Iterable[ArxivEntry], query: str = "") -> bytes:
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = f"arXiv Query: {query}"
    ET.SubElement(feed, f"{{{ATOM}}}id").text = "https://arxiv.org/api/abc"
    entries = list(entries)
    ET.SubElement(feed, f"{{{OPENSEARCH}}}totalResults").text = str(len(entries))
    for e in entries:
        entry = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(entry, f"{{{ATOM}}}id").text = f"http://arxiv.org/abs/{e.arxiv_id}v2"
        ET.SubElement(entry, f"{{{ATOM}}}updated").text = e.published
        ET.SubElement(entry, f"{{{ATOM}}}published").text = e.published
        ET.SubElement(entry, f"{{{ATOM}}}title").text = _wrapped(e.title)
        ET.SubElement(entry, f"{{{ATOM}}}summary").text = "  " + _wrapped(e.summary) + "\n"
        for name in e.authors:
            ET.SubElement(ET.SubElement(entry, f"{{{ATOM}}}author"), f"{{{ATOM}}}name").text = name
        if e.doi:
            ET.SubElement(entry, f"{{{ARXIV}}}doi").text = e.doi
        if e.journal_ref:
            ET.SubElement(entry, f"{{{ARXIV}}}journal_ref").text = e.journal_ref
        abs_page = f"http://arxiv.org/abs/{e.arxiv_id}v2"
        ET.SubElement(entry, f"{{{ATOM}}}link", href=abs_page, rel="alternate", type="text/html")
        pdf = f"http://arxiv.org/pdf/{e.arxiv_id}v2"
        ET.SubElement(entry, f"{{{ATOM}}}link", title="pdf", href=pdf, rel="related", type="application/pdf")
        scheme = "http://arxiv.org/schemas/atom"
        ET.SubElement(entry, f"{{{ARXIV}}}primary_category", term=e.category, scheme=scheme)
        ET.SubElement(entry, f"{{{ATOM}}}category", term=e.category, scheme=scheme)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(feed, encoding="utf-8")


def _wrapped(text: str, width: int = 78) -> str:
    """Text broken into lines as the API writes titles and summaries."""
    return "\n  ".join(textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False))


_TOKEN = re.compile(r"[a-z0-9]+")
_TERM = re.compile(r'(\w+):"([^"]*)"')


def tokens(text: str) -> list[str]:
    folded = text.casefold()
    if not folded.isascii():
        folded = "".join(ch for ch in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(ch))
    return _TOKEN.findall(folded)


class ArxivService:
    """arXiv's query API over a list of entries: `abs:"phrase" AND abs:"phrase"` finds the entries whose abstract
    holds every phrase (words in a row, case and punctuation ignored); `max_results` of them, in list order."""

    def __init__(self, entries: Iterable[ArxivEntry]):
        self.entries = list(entries)
        self._tokens = [tokens(e.summary) for e in self.entries]
        self._index: dict[str, set[int]] = defaultdict(set)
        for n, words in enumerate(self._tokens):
            for word in words:
                self._index[word].add(n)

    def __call__(self, request: Request) -> Answer:
        query = request.params.get("search_query", "")
        phrases = [tokens(text) for field_name, text in _TERM.findall(query) if field_name == "abs"]
        found = [self.entries[n] for n in self.search(phrases)][: int(request.params.get("max_results", "10"))]
        return Answer(body=atom_feed(found, query), content_type="application/atom+xml; charset=utf-8")

    def search(self, phrases: list[list[str]]) -> list[int]:
        if not phrases or not all(phrases):
            return []
        candidates = set.intersection(*(self._index.get(word, set()) for phrase in phrases for word in phrase))
        return sorted(n for n in candidates if all(_holds(self._tokens[n], phrase) for phrase in phrases))


def _holds(words: list[str], phrase: list[str]) -> bool:
    size = len(phrase)
    return any(words[i : i + size] == phrase for i in range(len(words) - size + 1) if words[i] == phrase[0])


# DBLP, Semantic Scholar and OpenAlex: their JSON.


def dblp_json(hits: list[dict]) -> str:
    """DBLP's search answer; each hit: title, authors (list), venue, year, key, doi, type."""
    wrapped = []
    for n, hit in enumerate(hits):
        people = [{"@pid": f"00/{i}", "text": name} for i, name in enumerate(hit.get("authors", []))]
        info = {
            "authors": {"author": people[0] if len(people) == 1 else people},
            "title": hit["title"] + ".",
            "venue": hit.get("venue", "ICML"),
            "year": str(hit.get("year", 2025)),
            "type": hit.get("type", "Conference and Workshop Papers"),
            "key": hit.get("key", f"conf/icml/X{n}25"),
            "ee": f"https://doi.org/{hit['doi']}" if hit.get("doi") else "https://proceedings.mlr.press/x.html",
            "url": f"https://dblp.org/rec/{hit.get('key', f'conf/icml/X{n}25')}",
        }
        if hit.get("doi"):
            info["doi"] = hit["doi"]
        wrapped.append({"@score": "7", "@id": str(n), "info": info, "url": f"URL#{n}"})
    hits_obj = {"@total": str(len(hits)), "@computed": str(len(hits)), "@sent": str(len(hits)), "@first": "0"}
    if wrapped:
        hits_obj["hit"] = wrapped
    status = {"@code": "200", "text": "OK"}
    return json.dumps(
        {"result": {"query": "q", "status": status, "time": {"@unit": "msecs", "text": "1"}, "hits": hits_obj}}
    )


def s2_paper(title: str, abstract: str | None, arxiv_id: str | None = None, **extra) -> dict:
    paper = {
        "paperId": "649def34f8be52c8b66281af98ae884c09aef38b",
        "url": "https://www.semanticscholar.org/paper/649def34f8be52c8b66281af98ae884c09aef38b",
        "title": title,
        "abstract": abstract,
        "venue": extra.get("venue", ""),
        "year": extra.get("year", 2025),
        "externalIds": {"ArXiv": arxiv_id, "DOI": extra.get("doi"), "CorpusId": 1} if arxiv_id else {"CorpusId": 1},
        "openAccessPdf": {"url": f"https://arxiv.org/pdf/{arxiv_id}", "status": "GREEN"} if arxiv_id else None,
        "authors": [{"authorId": "1", "name": name} for name in extra.get("authors", ["Ada Lovelace"])],
    }
    return paper


def openalex_work(title: str, abstract: str, arxiv_id: str) -> dict:
    inverted: dict[str, list[int]] = defaultdict(list)
    for n, word in enumerate(abstract.split()):
        inverted[word].append(n)
    arxiv_page = f"https://arxiv.org/abs/{arxiv_id}"
    return {
        "id": "https://openalex.org/W4385245566",
        "doi": f"https://doi.org/10.48550/arxiv.{arxiv_id}",
        "title": title,
        "display_name": title,
        "publication_year": 2025,
        "publication_date": "2025-05-20",
        "authorships": [{"author": {"id": "https://openalex.org/A1", "display_name": "Ada Lovelace"}}],
        "primary_location": {
            "landing_page_url": arxiv_page,
            "pdf_url": None,
            "source": {"display_name": "arXiv (Cornell University)"},
        },
        "best_oa_location": {"pdf_url": f"https://arxiv.org/pdf/{arxiv_id}"},
        "locations": [{"landing_page_url": arxiv_page}],
        "abstract_inverted_index": dict(inverted),
    }


class Services:
    """arXiv, DBLP, Semantic Scholar and OpenAlex on four local servers sharing a fake clock. arXiv searches
    `entries` (the sample's papers by default); the others find nothing until a test gives them an app."""

    def __init__(self, entries: Iterable[ArxivEntry] | None = None):
        self.clock = FakeClock()
        if entries is None:
            entries = [
                ArxivEntry(p["arxiv_id"], p["title"], p["abstract"], category=p["category"]) for p in sample_papers()
            ]
        self.arxiv = LocalServer(ArxivService(entries), self.clock)
        self.dblp = LocalServer(lambda request: Answer(body=dblp_json([])), self.clock)
        self.s2 = LocalServer(lambda request: Answer(body='{"total": 0, "offset": 0, "data": []}'), self.clock)
        self.openalex = LocalServer(lambda request: Answer(body='{"meta": {"count": 0}, "results": []}'), self.clock)

    def env(self) -> dict[str, str]:
        return {
            "READLIST_ARXIV_URL": f"{self.arxiv.url}/api/query",
            "READLIST_DBLP_URL": f"{self.dblp.url}/search/publ/api",
            "READLIST_S2_URL": f"{self.s2.url}/graph/v1",
            "READLIST_OPENALEX_URL": self.openalex.url,
        }

    def settings(self, env: dict[str, str] | None = None, **overrides):
        from readlist.core.resolve import Settings

        overrides.setdefault("timeout", 5.0)
        return Settings.from_env({**self.env(), **(env or {})}, **overrides)

    def resolver(self, env: dict[str, str] | None = None, cancel: threading.Event | None = None, **overrides):
        from readlist.core.resolve import Resolver

        return Resolver(self.settings(env, **overrides), clock=self.clock, cancel=cancel)

    def __enter__(self) -> Services:
        for server in (self.arxiv, self.dblp, self.s2, self.openalex):
            server.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        for server in (self.arxiv, self.dblp, self.s2, self.openalex):
            server.__exit__(*exc_info)
