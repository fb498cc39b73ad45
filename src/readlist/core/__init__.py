"""readlist's core: paper model, reader, search, store and export. No UI imports here."""

from .papers.formats import load_papers
from .papers.paper import Paper, PaperList, Record
from .papers.reader import ReadError, parse_text, read_papers

__all__ = ["Paper", "PaperList", "ReadError", "Record", "load_papers", "parse_text", "read_papers"]
