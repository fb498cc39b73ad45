"""Answering a search before the list's index is ready: one pass over the papers' own texts.

Indexing 100k papers takes seconds of background work; a query typed meanwhile is answered at once by reading the
abstracts and titles: the papers holding every word typed at the start of a word of theirs (case aside), those
whose title holds them all first, then in file order. Forgiving no typos and ranking nothing, the answer is marked
partial, and the index's answer replaces it as soon as the index is ready. A query using more of the language (a
field, a flag, a phrase, an excluded word) waits for the index.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Sequence

from ..papers.paper import Paper
from .index import SearchResult
from .postings import BuildCancelled
from .query import QueryError, parse

CHECK = 1_000  # papers read between looks at `cancelled`
YIELD = 64  # papers read between two offers of the interpreter to the UI's thread (see below)


def scan(papers: Sequence[Paper], query: str, cancelled: threading.Event | None = None) -> SearchResult | None:
    """The papers holding the query's words, as a partial result; None for a query only the index can answer.
    Raises BuildCancelled if `cancelled` is set meanwhile."""
    try:
        parsed = parse(query)
    except QueryError as exc:
        return SearchResult(query, (), (), 0, error=str(exc))
    words = [term.value for term in parsed.terms if term.kind == "word" and not term.negated]
    if not words or len(words) != len(parsed.terms):
        return None
    lowered = [word.lower() for word in words]
    patterns = [re.compile(rf"(?<!\w){re.escape(word)}", re.IGNORECASE) for word in words]
    in_title: list[int] = []
    in_text: list[int] = []
    for position, paper in enumerate(papers):
        if not position % YIELD:
            # Let a waiting thread (the UI's) run now, every ~0.2 ms, not after the interpreter's 5 ms: it waits
            # for the interpreter at each event it handles, and a key or a frame needs many.
            time.sleep(0)
            if not position % CHECK and cancelled is not None and cancelled.is_set():
                raise BuildCancelled
        text, title = paper.text, paper.known_title or ""
        both = f"{title}\n{text}".lower() if title else text.lower()
        if not all(word in both for word in lowered):  # the quick test, of a substring, first
            continue
        if all(pattern.search(title) for pattern in patterns):
            in_title.append(position)
        elif all(pattern.search(text) or pattern.search(title) for pattern in patterns):
            in_text.append(position)
    positions = in_title + in_text
    return SearchResult(query, positions, [0.0] * len(positions), len(positions), partial=True)
