"""One paper as every JSON readlist writes holds it: `list --json`, `show --json`, `search --json` (which add their
own fields after it) and the JSON export (which wraps the papers with its version), so a script reads them all alike.
"""

from __future__ import annotations

from typing import Any

from ..papers.paper import Paper
from ..store.annotation import title_of
from ..text.normalize import strip_control


def _as_is(text: str, keep_tabs: bool = False) -> str:
    return text


def paper_json(paper: Paper, note: Any, *, stripped: bool = False) -> dict[str, Any]:
    """The paper (its id, number, title shown, abstract as written and plain, links and the fields its source gave)
    and its annotation (`note`, None for a paper without one). `stripped` leaves out terminal control characters,
    as an export does; otherwise they stay, for the printer to write as JSON escapes."""
    clean = strip_control if stripped else _as_is
    source = paper.record_fields()
    if "given_title" in source:
        source["given_title"] = clean(source["given_title"])
    return {
        "id": paper.id,
        "index": paper.index,
        "title": clean(title_of(paper, note)),
        "text": clean(paper.text, keep_tabs=True),
        "plain": clean(paper.plain),
        "urls": [clean(url) for url in paper.urls],
        **source,
        "status": clean(getattr(note, "status", "unread")),
        "starred": bool(getattr(note, "starred", False)),
        "tags": [clean(tag) for tag in getattr(note, "tags", ())],
        "note": clean(getattr(note, "note", ""), keep_tabs=True),
        "created": getattr(note, "created", None),
        "updated": getattr(note, "updated", None),
        "read_at": getattr(note, "read_at", None),
    }
