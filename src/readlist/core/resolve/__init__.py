"""Finding each abstract's paper online (arXiv, DBLP, Semantic Scholar, OpenAlex), verified and polite; no storage."""

from .client import Cancelled, Clock, SystemClock
from .engine import PaperQuery, Resolver
from .records import Match, Resolution, Status
from .settings import Settings, SettingsError
from .similarity import THRESHOLD

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
