"""Exporting from the TUI: pick a format and a file; the papers are the current view's or the annotated ones."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, RadioButton, RadioSet, Static

from ....core.export.formats import FORMATS, LABELS, with_suffix
from .base import Dialog


class ExportScreen(Dialog[tuple[str, Path] | None]):
    """Returns (format, path) or None; the caller writes (atomically, asking before overwriting)."""

    def __init__(self, what: str, directory: Path) -> None:
        super().__init__()
        self.what = what
        self.directory = directory

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="dialog"):
            yield Static(Text(f"Export {self.what}"), classes="dialog-title")
            with RadioSet(id="export-format"):
                for n, fmt in enumerate(FORMATS):
                    yield RadioButton(LABELS[fmt], value=n == 0, id=f"fmt-{fmt}")
            yield Input(str(self.directory / "readlist-notes.md"), id="export-path")
            yield Static("Enter writes the file · Esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @property
    def fmt(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return pressed.id.removeprefix("fmt-") if pressed and pressed.id else "md"

    def on_radio_set_changed(self) -> None:
        path_input = self.query_one("#export-path", Input)
        path = Path(path_input.value or "readlist-notes")
        if path.name and path.name not in (".", ".."):  # a bare directory gets no suffix
            path_input.value = str(with_suffix(path, self.fmt))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss((self.fmt, Path(event.value.strip()).expanduser()))
