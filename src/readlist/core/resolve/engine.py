"""Resolving papers: each source in turn, each candidate verified, one `Resolution` per paper.

    with Resolver(Settings.from_env(), cancel=stop) as resolver:
        for resolution in resolver.resolve_many(PaperQuery(p.id, p.text) for p in papers):
            ...  # cache it; apply resolution.match when resolution.status is Status.FOUND

Order: arXiv by two distinctive phrases of the abstract (two more if the first two find nothing verified);
Semantic Scholar when arXiv has no verified match (the known title's closest match, else a search for
the phrases' words); OpenAlex likewise, only with a key; then DBLP by the verified title for the venue.
No exception leaves `resolve` but `Cancelled`: a source that fails is one line in `problems`.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import httpx

from . import arxiv, dblp, openalex, semantic_scholar
from .client import Cancelled, Clock, HostClient, Hosts, SourceError, SystemClock
from .phrases import distinctive_phrases
from .records import Hit, Match, Resolution, Status
from .settings import Settings
from .similarity import abstract_score, same_title, title_key

AMBIGUOUS = 0.02  # two verified records of different papers closer than this: neither is applied
MAX_CANDIDATES = 5
T = TypeVar("T")


@dataclass(frozen=True)
class PaperQuery:
    """What resolving needs of a paper: its id (for the cache), its abstract, and a title when one is known
    (from the paper file or the user's own; a derived title is a guess and better left out)."""

    paper_id: str
    abstract: str
    title: str | None = None


class Resolver:
    """Resolves papers one after another, politely; one per run (it keeps the hosts' pacing and failures)."""

    def __init__(
        self, settings: Settings | None = None, clock: Clock | None = None, cancel: threading.Event | None = None
    ):
        self.settings = settings or Settings.from_env()
        self.cancel = cancel or threading.Event()
        self._hosts = Hosts(self.settings, clock or SystemClock(), self.cancel)

    def __enter__(self) -> Resolver:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        self._hosts.close()

    def given_up(self) -> dict[str, str]:
        """Hosts given up for this run, with why (for the summary at the end)."""
        return self._hosts.given_up()

    def resolve_many(self, papers: Iterable[PaperQuery]) -> Iterator[Resolution]:
        """A resolution per paper as each is made; stops quietly when `cancel` is set (what was yielded stands)."""
        for paper in papers:
            try:
                yield self.resolve(paper)
            except Cancelled:
                return

    def resolve(self, paper: PaperQuery) -> Resolution:
        """The paper's resolution; raises Cancelled when `cancel` is set meanwhile, and nothing else."""
        if self.cancel.is_set():
            raise Cancelled
        before = self._hosts.requests
        run = _Run(paper)
        phrases = distinctive_phrases(paper.abstract)
        if self.settings.enabled("arxiv"):
            self._search_arxiv(run, phrases)
        words = " ".join(phrases[:2])
        if not run.found and self.settings.enabled("s2") and (paper.title or words):
            self._search_semantic_scholar(run, words)
        if not run.found and self.settings.enabled("openalex") and words:
            key = self.settings.openalex_key or ""
            run.judge(self._ask(run, "openalex", lambda c, url: openalex.search(c, url, words, key)), self.settings)
        if run.found and self.settings.enabled("dblp"):
            self._add_venue(run, run.found)
        return run.resolution(self._hosts.requests - before)

    def _search_arxiv(self, run: _Run, phrases: list[str]) -> None:
        """Two phrases, then the next two when the first find nothing verified (one of them may have been edited
        between the versions of the abstract)."""
        for pair in (phrases[:2], phrases[2:4]):
            if not pair or run.found:
                return
            hits = self._ask(run, "arxiv", lambda c, url, pair=pair: arxiv.search(c, url, pair))
            if hits is None:
                return
            run.judge(hits, self.settings)

    def _search_semantic_scholar(self, run: _Run, words: str) -> None:
        key, title = self.settings.s2_key, run.paper.title
        if title:
            hits = self._ask(run, "s2", lambda c, url: semantic_scholar.match_title(c, url, title, key))
        else:
            hits = self._ask(run, "s2", lambda c, url: semantic_scholar.search(c, url, words, key))
        run.judge(hits, self.settings)

    def _add_venue(self, run: _Run, found: Match) -> None:
        records = self._ask(run, "dblp", lambda c, url: dblp.search(c, url, found.title), searching=False)
        record = dblp.venue_for(found, records or [])
        if record is not None:
            run.found = dblp.add_venue(found, record)

    def _ask(self, run: _Run, source: str, ask: Callable[[HostClient, str], T], searching: bool = True) -> T | None:
        """What `ask` returns from the source's host; None, and a line in the run's problems, when it fails.
        `searching`: a failure leaves the paper unknown (arXiv, Semantic Scholar, OpenAlex; not DBLP's venue)."""
        url = self.settings.base_url(source)
        try:
            client = self._hosts.for_url(url, self.settings.min_interval.get(source, 1.0))
        except (httpx.InvalidURL, ValueError) as error:  # settings made without from_env's checks
            run.problems.append(f"{source}: cannot use the URL {url!r} ({error})")
            run.failed = run.failed or searching
            return None
        try:
            answer = ask(client, url)
        except Cancelled:
            raise
        except Exception as error:  # a bug or an answer shaped in a way nobody foresaw: one line, never a traceback
            if not isinstance(error, SourceError):
                error = SourceError(client.host, f"unexpected {type(error).__name__}: {str(error)[:200]}")
            client.failed(error)
            run.problems.append(str(error))
            run.failed = run.failed or searching
            return None
        client.succeeded()
        return answer


class _Run:
    """One paper's resolution while it is being made."""

    def __init__(self, paper: PaperQuery):
        self.paper = paper
        self.found: Match | None = None
        self.candidates: list[Match] = []
        self.problems: list[str] = []
        self.failed = False

    def judge(self, hits: list[Hit] | None, settings: Settings) -> None:
        """Score the hits; take the best verified one unless another paper's record verifies about as well."""
        scored = sorted((self._scored(hit, settings) for hit in hits or ()), key=lambda m: -m.score)
        verified = _distinct([m for m in scored if m.verified])
        if len(verified) > 1 and verified[0].score - verified[1].score < AMBIGUOUS:
            scored = [dataclasses.replace(m, verified=False) for m in scored]
            verified = []
        if verified:
            self.found = verified[0]
        self.candidates += [m for m in scored if m is not self.found and m.score >= settings.possible_floor]

    def _scored(self, hit: Hit, settings: Settings) -> Match:
        if hit.abstract:
            score = round(abstract_score(self.paper.abstract, hit.abstract), 3)
            return dataclasses.replace(hit.match, score=score, verified=score >= settings.threshold)
        # No abstract to compare: only the exact title the user or the file gave verifies it.
        exact = bool(self.paper.title) and same_title(self.paper.title or "", hit.match.title)
        return dataclasses.replace(hit.match, score=1.0 if exact else 0.0, verified=exact)

    def resolution(self, requests: int) -> Resolution:
        candidates = _distinct(sorted(self.candidates, key=lambda m: -m.score))[:MAX_CANDIDATES]
        if self.found:
            status = Status.FOUND
            candidates = [m for m in candidates if _identity(m) != _identity(self.found)]
        elif self.failed:
            status = Status.FAILED
        else:
            status = Status.POSSIBLE if candidates else Status.NOT_FOUND
        return Resolution(
            self.paper.paper_id,
            status,
            match=self.found,
            candidates=tuple(candidates),
            problems=tuple(self.problems),
            requests=requests,
        )


def _identity(match: Match) -> str:
    return match.arxiv_id or match.doi or title_key(match.title)


def _distinct(matches: list[Match]) -> list[Match]:
    """The first of each paper (two sources, or one source twice, may return the same record)."""
    seen: set[str] = set()
    out = []
    for match in matches:
        if (identity := _identity(match)) not in seen:
            seen.add(identity)
            out.append(match)
    return out
