"""Editing a paper's tags, with completion of tags already in use."""

from __future__ import annotations

import re

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Static

from ....core.store.annotation import normalize_tags
from ...display import paper_heading, safe
from .base import Dialog

# A tag is a run of characters other than spaces, commas and quotes, or anything between double quotes
# (where "" stands for one quote).
_TAG = re.compile(r'"((?:[^"]|"")*)"?|([^\s,"]+)')


def parse_tags(value: str) -> list[str]:
    """'#rl, theory RL "two words"' -> ['rl', 'theory', 'two words']: the store's own normalisation
    (case-blind duplicates dropped)."""
    found = (m[1].replace('""', '"') if m[1] is not None else m[2].lstrip("#") for m in _TAG.finditer(value))
    return list(normalize_tags(found))


def format_tags(tags: tuple[str, ...]) -> str:
    """The tags as the dialog shows them: one that holds a space, a comma or a quote, or starts with #, between
    quotes (a quote doubled), so that parse_tags reads back the same tags (`readlist tag` makes any of them)."""
    return " ".join(_shown(tag) for tag in tags)


def _shown(tag: str) -> str:
    if not re.search(r'[\s,"]|^#', tag):
        return tag
    escaped = tag.replace('"', '""')
    return f'"{escaped}"'


class LastWordSuggester(Suggester):
    """Completes the tag being typed (the last word) from the tags in use."""

    def __init__(self, known: list[str]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.known = known

    async def get_suggestion(self, value: str) -> str | None:
        head, _, last = value.rpartition(" ")
        if not last:
            return None
        for tag in self.known:
            # as typed: "deep learning" in quotes (or saving makes it two tags), so it completes once `"de` is typed
            shown = _shown(tag)
            if shown.lower().startswith(last.lower()) and shown != last:
                return f"{head} {shown}" if head else shown
        return None


class TagsScreen(Dialog[list[str] | None]):
    def __init__(self, title: str, tags: tuple[str, ...], known: list[str]) -> None:
        super().__init__()
        self.paper_title = title
        self.tags = tags
        self.known = known

    def compose(self) -> ComposeResult:
        with Vertical(id="tags-dialog", classes="dialog"):
            yield Static(paper_heading("Tags", self.paper_title), classes="dialog-title")
            shown = format_tags(self.tags)
            yield Input(
                f"{shown} " if shown else "",  # the cursor after a space: typing adds a tag, never replaces them
                select_on_focus=False,
                placeholder="tags separated by spaces",
                id="tags-input",
                suggester=LastWordSuggester(self.known),
            )
            known = " ".join(safe(_shown(tag)) for tag in self.known[:20]) or "none yet"
            yield Static(Text(f"In use: {known}"), classes="dialog-hint")
            yield Static("Enter save · → accept completion · Esc cancel", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip() == format_tags(self.tags):
            self.dismiss(list(self.tags))  # saved as shown: nothing changes, whatever a tag holds
        else:
            self.dismiss(parse_tags(event.value))
