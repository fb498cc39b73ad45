"""Exporting from the TUI: pick a format and a file; the papers are the current view's or the annotated ones.

The formats are core/export's, each listed by its name and file suffix, the chosen one marked (not by colour
alone); focus starts on them, so ↓ changes the format and Enter writes."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ....core.export.formats import FORMATS, LABELS, SUFFIXES, with_suffix
from ...display import safe
from .base import Dialog

CHOSEN, OTHER = "●", "○"


def format_prompt(fmt: str, chosen: bool) -> Text:
    """'● Markdown reading notes  .md': the name, the suffix, and a mark saying whether it is the one chosen."""
    prompt = Text(f"{CHOSEN if chosen else OTHER} ", "bold" if chosen else "")
    prompt.append(LABELS.get(fmt, fmt), "bold" if chosen else "")
    prompt.append(f"  {SUFFIXES[fmt]}", "dim")
    return prompt


class ExportScreen(Dialog[tuple[str, Path] | None]):
    """Returns (format, path) or None; the caller writes (atomically, asking before overwriting)."""

    def __init__(self, what: str, directory: Path) -> None:
        super().__init__()
        self.what = what
        self.directory = directory
        self.fmt = FORMATS[0]

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog", classes="dialog"):
            yield Static(Text(f"Export {self.what}"), classes="dialog-title")
            options = [Option(format_prompt(fmt, fmt == self.fmt), id=fmt) for fmt in FORMATS]
            yield OptionList(*options, id="export-format")
            yield Input(str(self.directory / f"readlist-notes{SUFFIXES[self.fmt]}"), id="export-path")
            yield Static(id="export-where")  # the whole path, wrapped: the field shows only its width of it
            yield Static("↑ ↓ format · Enter writes the file · Esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        formats = self.query_one("#export-format", OptionList)
        formats.highlighted = 0
        formats.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        fmt = event.option.id or FORMATS[0]
        if fmt == self.fmt:
            return
        formats = event.option_list
        for index, name in ((FORMATS.index(self.fmt), self.fmt), (event.option_index, fmt)):
            formats.replace_option_prompt_at_index(index, format_prompt(name, name == fmt))
        self.fmt = fmt
        path_input = self.query_one("#export-path", Input)
        path = Path(path_input.value or "readlist-notes")
        if path.name and path.name not in (".", ".."):  # a bare directory gets no suffix
            path_input.value = str(with_suffix(path, fmt))

    def on_input_changed(self, event: Input.Changed) -> None:
        where = Path(event.value.strip()).expanduser() if event.value.strip() else None
        self.query_one("#export-where", Static).update(Text(f"Writes {safe(str(where))}" if where else ""))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.write(self.query_one("#export-path", Input).value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.write(event.value)

    def write(self, path: str) -> None:
        if path.strip():
            self.dismiss((self.fmt, Path(path.strip()).expanduser()))
        else:
            self.notify("Name the file to write", severity="warning", timeout=2)
