"""What every export format writes of a paper and its annotation: the title shown, the annotation's fields,
and the paper without terminal escape sequences."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..papers.paper import Paper
from ..store.annotation import title_of
from ..text.normalize import has_escape, strip_control


def annotation_fields(note: Any) -> dict[str, Any]:
    """The annotation's fields as exported: no terminal escape sequences or control characters (a note
    keeps its tabs and newlines)."""
    return {
        "status": strip_control(getattr(note, "status", "unread")),
        "starred": bool(getattr(note, "starred", False)),
        "tags": [strip_control(tag) for tag in getattr(note, "tags", ())],
        "note": strip_control(getattr(note, "note", ""), keep_tabs=True),
    }


def without_escapes(paper: Paper) -> Paper:
    """`paper`, or a copy without the terminal escape sequences in its text, so that its abstract and
    derived title keep nothing of them (the display form only drops their control characters)."""
    if not has_escape(paper.text) and not has_escape(paper.given_title or ""):
        return paper
    given_title = strip_control(paper.given_title) if paper.given_title else paper.given_title
    return replace(paper, text=strip_control(paper.text, keep_tabs=True), given_title=given_title)


def shown_title(paper: Paper, note: Any) -> str:
    """The title the list shows: the user's own, else the paper's."""
    return strip_control(title_of(paper, note))
