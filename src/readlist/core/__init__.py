"""readlist's core: paper model, reader, search, store and export. No UI imports here.

The names below are imported when first asked for: every module under `readlist.core` imports this package first,
and an index-building worker process (search/build.py) needs none of the readers behind `load_papers`."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .papers.formats import load_papers
    from .papers.paper import Paper, PaperList, Record
    from .papers.reader import ReadError, parse_text, read_papers

__all__ = ["Paper", "PaperList", "ReadError", "Record", "load_papers", "parse_text", "read_papers"]

_HOMES = {
    "load_papers": ".papers.formats",
    "Paper": ".papers.paper",
    "PaperList": ".papers.paper",
    "Record": ".papers.paper",
    "ReadError": ".papers.reader",
    "parse_text": ".papers.reader",
    "read_papers": ".papers.reader",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home, __name__), name)
