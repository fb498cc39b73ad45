"""Turning user and paper text into safe display text (no markup, no control characters), and how long notices stay."""

from __future__ import annotations

from rich.text import Text

from ..core.text.normalize import strip_control

STICKY = 60 * 60 * 24 * 365  # a notice's timeout "until dismissed": Esc in the list, or a click, closes it
STAR = "★"
NO_STAR = " "
STATUS_MARKS = {"unread": ("○", "unread"), "reading": ("◐", "reading"), "read": ("●", "read")}


def safe(text: str) -> str:
    """Text with terminal control characters removed; never parsed as markup by callers."""
    return strip_control(text).replace("\n", " ")


def paper_heading(label: str, title: str) -> Text:
    """A dialog's one-line heading about a paper: 'Note — <title>', cut with an ellipsis."""
    return Text(f"{label} — {safe(title)}", no_wrap=True, overflow="ellipsis")


def row_marks(starred: bool, status: str) -> tuple[str, str, str]:
    mark, css = STATUS_MARKS.get(status, STATUS_MARKS["unread"])
    return (STAR if starred else NO_STAR), mark, css
