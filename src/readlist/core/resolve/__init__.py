"""Finding each abstract's paper online (arXiv, DBLP, Semantic Scholar, OpenAlex), verified and polite; no storage.

The names below are imported on first use: the store reads resolutions (`records`) on every command, and must not
pay for the HTTP client (httpx, about 0.25 s to import) that only a lookup needs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import Cancelled, Clock, SystemClock
    from .engine import PaperQuery, Resolver
    from .records import Match, Resolution, Status
    from .settings import Settings, SettingsError
    from .similarity import THRESHOLD

_WHERE = {
    "Cancelled": "client",
    "Clock": "client",
    "SystemClock": "client",
    "PaperQuery": "engine",
    "Resolver": "engine",
    "Match": "records",
    "Resolution": "records",
    "Status": "records",
    "Settings": "settings",
    "SettingsError": "settings",
    "THRESHOLD": "similarity",
}

__all__ = [
    "THRESHOLD",
    "Cancelled",
    "Clock",
    "Match",
    "PaperQuery",
    "Resolution",
    "Resolver",
    "Settings",
    "SettingsError",
    "Status",
    "SystemClock",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # asked once
    return value
