"""What a source found for a paper (`Match`) and the outcome of resolving one paper (`Resolution`), as JSON."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

FORMAT = 1  # of the dicts below; `from_dict` reads this one and ignores keys it does not know
RETRY_AFTER = timedelta(days=30)  # a miss is asked again after this long (or when the user says --retry)


class Status(enum.StrEnum):
    FOUND = "found"  # a verified match: its fields may be applied to the paper
    POSSIBLE = "possible"  # candidates that did not pass verification, kept as suggestions with their scores
    NOT_FOUND = "not found"  # every source answered and none had the paper
    FAILED = "failed"  # a source could not be asked (network, server, malformed answer): nothing is known


@dataclass(frozen=True)
class Match:
    """One record a source holds, as found for a paper: the paper's fields and how sure readlist is of them.

    `score` is how closely the record's abstract (or, failing that, its title) matches ours, 0..1;
    `verified` says it passed the source's check (abstract similarity at or above the threshold, or an exact
    title), so its fields may be applied. Text fields are plain Unicode without control characters."""

    title: str
    source: str  # "arxiv", "dblp", "s2", "openalex"; "arxiv+dblp" when DBLP added the venue to an arXiv match
    record_url: str = ""  # the record's page at the source
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    arxiv_id: str | None = None  # without its version: 2210.12590
    doi: str | None = None  # bare: 10.1145/3097983.3098144
    url: str | None = None  # the paper's landing page
    pdf_url: str | None = None
    primary_category: str | None = None
    categories: tuple[str, ...] = ()
    journal_ref: str | None = None
    published: str | None = None  # YYYY-MM-DD of the first version, when the source says
    dblp_key: str | None = None
    score: float = 0.0
    verified: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["authors"] = list(self.authors)
        out["categories"] = list(self.categories)
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Match:
        """The match `to_dict` wrote; ValueError naming the field when `data` is not one."""
        if not isinstance(data, dict):
            raise ValueError(f"a match must be an object, not {type(data).__name__}")
        values: dict[str, Any] = {}
        for spec in dataclasses.fields(cls):
            if spec.name not in data:
                continue
            values[spec.name] = _field_value(spec.name, data[spec.name])
        for required in ("title", "source"):
            if not isinstance(values.get(required), str):
                raise ValueError(f"a match needs a text '{required}'")
        return cls(**values)


_TEXT = {"title", "source", "record_url"}
_OPTIONAL_TEXT = {"venue", "arxiv_id", "doi", "url", "pdf_url", "primary_category", "journal_ref"}
_OPTIONAL_TEXT |= {"published", "dblp_key"}
_TEXT_LISTS = {"authors", "categories"}


def _field_value(name: str, value: Any) -> Any:
    if name in _TEXT or (name in _OPTIONAL_TEXT and value is not None):
        if not isinstance(value, str):
            raise ValueError(f"match field '{name}' must be text")
        return value
    if name in _TEXT_LISTS:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError(f"match field '{name}' must be a list of texts")
        return tuple(value)
    if name == "year":
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError("match field 'year' must be a whole number")
        return value
    if name == "score":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise ValueError("match field 'score' must be a number from 0 to 1")
        return float(value)
    if name == "verified":
        if not isinstance(value, bool):
            raise ValueError("match field 'verified' must be true or false")
        return value
    return value  # optional text that is None


def now_utc() -> str:
    """The time a resolution is made, as the cache keeps it: ISO 8601 in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class Resolution:
    """What resolving one paper came to. Cache it per paper id (`to_dict`), apply `match` only when FOUND.

    `candidates` are the near misses, best first (POSSIBLE lists them; FOUND may too); `problems` holds
    one line per source that could not be asked, naming its host ("export.arxiv.org: HTTP 503 ..."),
    also when another source found the paper."""

    paper_id: str
    status: Status
    match: Match | None = None
    candidates: tuple[Match, ...] = ()
    problems: tuple[str, ...] = ()
    checked_at: str = field(default_factory=now_utc)
    requests: int = 0  # HTTP requests this resolution made

    def __post_init__(self) -> None:
        if (self.status is Status.FOUND) != (self.match is not None):
            raise ValueError("a resolution has a match exactly when it is found")

    def accept(self, n: int) -> Resolution:
        """This resolution with candidate `n` (1-based, as `resolve --show` numbers them) taken as the match:
        the user's word is the verification. IndexError when there is no such candidate."""
        if not 1 <= n <= len(self.candidates):
            raise IndexError(f"no candidate {n}: there are {len(self.candidates)}")
        chosen = dataclasses.replace(self.candidates[n - 1], verified=True)
        rest = self.candidates[: n - 1] + self.candidates[n:]
        return dataclasses.replace(self, status=Status.FOUND, match=chosen, candidates=rest, checked_at=now_utc())

    def is_due(self, now: datetime | None = None, retry: bool = False) -> bool:
        """Whether to ask the sources again: always after a failure; a miss or a near miss with --retry or once
        30 days old; a match never (the user forgets it to ask again)."""
        if self.status is Status.FAILED:
            return True
        if self.status is Status.FOUND:
            return False
        if retry:
            return True
        try:
            checked = datetime.fromisoformat(self.checked_at)
        except ValueError:
            return True
        if checked.tzinfo is None:
            checked = checked.replace(tzinfo=UTC)
        return (now or datetime.now(UTC)) - checked >= RETRY_AFTER

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "paper_id": self.paper_id,
            "status": self.status.value,
            "match": self.match.to_dict() if self.match else None,
            "candidates": [candidate.to_dict() for candidate in self.candidates],
            "problems": list(self.problems),
            "checked_at": self.checked_at,
            "requests": self.requests,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Resolution:
        """The resolution `to_dict` wrote; ValueError saying what is wrong when `data` is not one (a damaged
        or hand-edited cache), so the caller can drop it and resolve the paper again."""
        if not isinstance(data, dict):
            raise ValueError(f"a resolution must be an object, not {type(data).__name__}")
        if data.get("format", FORMAT) != FORMAT:
            raise ValueError(f"a resolution in format {data.get('format')!r}, not {FORMAT}")
        paper_id, checked_at = data.get("paper_id"), data.get("checked_at", "")
        if not isinstance(paper_id, str) or not isinstance(checked_at, str):
            raise ValueError("a resolution needs a text 'paper_id' and 'checked_at'")
        try:
            status = Status(data.get("status"))
        except ValueError:
            raise ValueError(f"unknown resolution status {data.get('status')!r}") from None
        candidates, problems = data.get("candidates", []), data.get("problems", [])
        if not isinstance(candidates, list) or not isinstance(problems, list):
            raise ValueError("a resolution's 'candidates' and 'problems' must be lists")
        if not all(isinstance(problem, str) for problem in problems):
            raise ValueError("a resolution's problems must be texts")
        requests = data.get("requests", 0)
        if isinstance(requests, bool) or not isinstance(requests, int):
            raise ValueError("a resolution's 'requests' must be a whole number")
        match = data.get("match")
        return cls(
            paper_id=paper_id,
            status=status,
            match=Match.from_dict(match) if match is not None else None,
            candidates=tuple(Match.from_dict(candidate) for candidate in candidates),
            problems=tuple(problems),
            checked_at=checked_at,
            requests=requests,
        )


class Hit(NamedTuple):
    """A record a search returned, with the abstract it carries (None when the source gave none) to verify it."""

    match: Match
    abstract: str | None
