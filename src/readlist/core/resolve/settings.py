"""Where resolving asks and how politely: the services' base URLs and keys from the environment, pacing, timeouts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .similarity import POSSIBLE_FLOOR, THRESHOLD

SOURCES = ("arxiv", "dblp", "s2", "openalex")  # the order they are tried in

# Setting name -> default base URL. Tests and mirrors point these elsewhere.
URL_SETTINGS = {
    "arxiv": ("READLIST_ARXIV_URL", "https://export.arxiv.org/api/query"),
    "dblp": ("READLIST_DBLP_URL", "https://dblp.org/search/publ/api"),
    "s2": ("READLIST_S2_URL", "https://api.semanticscholar.org/graph/v1"),
    "openalex": ("READLIST_OPENALEX_URL", "https://api.openalex.org"),
}
S2_KEY = "READLIST_S2_KEY"  # optional; sent as the x-api-key header
OPENALEX_KEY = "READLIST_OPENALEX_KEY"  # OpenAlex is asked only when this is set (it needs a key since 2026)

# Seconds between the end of one request to a host and the start of the next. arXiv's terms ask for 3 s;
# DBLP and Semantic Scholar without a key allow about one request a second, OpenAlex ten (one is enough).
MIN_INTERVAL = {"arxiv": 3.0, "dblp": 1.0, "s2": 1.0, "openalex": 1.0}


class SettingsError(ValueError):
    """A setting that cannot be used, said in one line naming it."""


@dataclass(frozen=True)
class Settings:
    arxiv_url: str = URL_SETTINGS["arxiv"][1]
    dblp_url: str = URL_SETTINGS["dblp"][1]
    s2_url: str = URL_SETTINGS["s2"][1]
    openalex_url: str = URL_SETTINGS["openalex"][1]
    s2_key: str | None = None
    openalex_key: str | None = None
    sources: tuple[str, ...] = SOURCES  # `--source NAME` narrows this; OpenAlex still needs its key
    timeout: float = 20.0  # seconds for one request, connecting to the last byte
    max_tries: int = 4  # per request, on 429, 5xx, timeouts and dropped connections
    backoff: float = 2.0  # seconds before the first retry, doubled for each next one
    max_wait: float = 120.0  # a Retry-After longer than this gives the host up for the run
    give_up_after: int = 3  # failed requests in a row before a host is given up for the run
    max_body: int = 8 * 1024 * 1024  # bytes; a longer answer is refused
    threshold: float = THRESHOLD
    possible_floor: float = POSSIBLE_FLOOR
    min_interval: Mapping[str, float] = field(default_factory=lambda: dict(MIN_INTERVAL))

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides) -> Settings:
        """Settings from READLIST_* variables (os.environ unless `env` is given), then `overrides`.
        A URL variable set but empty, or not an http(s) URL, is a SettingsError rather than the default."""
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for source, (name, _default) in URL_SETTINGS.items():
            if name in env:
                values[f"{source}_url"] = _checked_url(name, env[name])
        values["s2_key"] = _checked_key(S2_KEY, env.get(S2_KEY, ""))
        values["openalex_key"] = _checked_key(OPENALEX_KEY, env.get(OPENALEX_KEY, ""))
        values.update(overrides)
        settings = cls(**values)  # type: ignore[arg-type]
        unknown = [name for name in settings.sources if name not in SOURCES]
        if unknown:
            raise SettingsError(f"unknown source {unknown[0]!r}: choose from {', '.join(SOURCES)}")
        return settings

    def base_url(self, source: str) -> str:
        return getattr(self, f"{source}_url")

    def enabled(self, source: str) -> bool:
        """Whether `source` is asked: chosen, and for OpenAlex, with a key."""
        return source in self.sources and (source != "openalex" or bool(self.openalex_key))


def _checked_url(name: str, value: str) -> str:
    if not value.strip():
        raise SettingsError(f"{name} is set but empty")
    try:
        parts = urlsplit(value.strip())
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and value.isprintable()
        parts.port  # noqa: B018 -- reading it checks it
    except ValueError:  # a malformed IPv6 address, a port that is not a number
        usable = False
    if not usable:
        raise SettingsError(f"{name} is not an http(s) URL: {value!r}")
    return value.strip()


def _checked_key(name: str, value: str) -> str | None:
    """A key as given, or None when unset or blank; one with spaces or control characters is refused, unshown."""
    value = value.strip()
    if value and (not value.isprintable() or any(char.isspace() for char in value)):
        raise SettingsError(f"{name} holds spaces or control characters; it is not a key")
    return value or None
