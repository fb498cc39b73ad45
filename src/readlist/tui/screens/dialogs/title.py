"""Giving a paper a title of one's own, when the file's or the derived one does not say enough."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from ...display import paper_heading
from .base import Dialog


class TitleScreen(Dialog[str | None]):
    """Dismisses with the title typed (empty: back to the paper's own), or None when cancelled."""

    def __init__(self, shown: str, own: str) -> None:
        super().__init__()
        self.shown = shown
        self.own = own

    def compose(self) -> ComposeResult:
        with Vertical(id="title-dialog", classes="dialog"):
            yield Static(paper_heading("Title", self.own), classes="dialog-title")
            yield Input(self.shown, placeholder="the paper's own title", id="title-input")
            yield Static("Enter save · empty: the paper's own title · Esc cancel", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)  # annotation.own_title decides what is kept
