"""readlist's core: paper model, reader, search, store and export. No UI imports here."""

from .papers.paper import Paper, PaperList
from .papers.reader import ReadError, parse_text, read_papers

__all__ = ["Paper", "PaperList", "ReadError", "parse_text", "read_papers"]
