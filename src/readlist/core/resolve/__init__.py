"""Finding each abstract's paper online (arXiv, DBLP, Semantic Scholar, OpenAlex), verified and polite; no storage."""

from .records import Match, Resolution, Status
from .settings import Settings, SettingsError
from .similarity import THRESHOLD

__all__ = ["THRESHOLD", "Match", "Resolution", "Settings", "SettingsError", "Status"]
