"""Editing a paper's note in a modal text area (Markdown). Ctrl+S saves, Esc asks before discarding."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from ....core.store.note_edits import note_size_error
from ...display import paper_heading
from .base import Modal


class NoteScreen(Modal[str | None]):
    # Not priority keys: they wait for the keys typed before them that the text area has not read yet (a
    # paste without bracketed paste), so Ctrl+S saves all of them and Esc sees them as changes.
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("escape", "cancel", "Close"),
    ]

    DRAFT_DELAY = 0.5  # seconds of rest in typing before the text is kept as a draft

    def __init__(
        self, title: str, note: str, start: str | None = None, keep_draft: Callable[[str], None] | None = None
    ) -> None:
        """`note` is the stored note, `start` the text to edit (an unsaved draft), `keep_draft` keeps the text
        on disk while the dialog is open."""
        super().__init__()
        self.paper_title = title
        self.original = note
        self.start = note if start is None else start
        self.keep_draft = keep_draft
        self._draft_timer = None

    def compose(self) -> ComposeResult:
        with Vertical(id="note-dialog", classes="dialog"):
            yield Static(paper_heading("Note", self.paper_title), classes="dialog-title")
            yield TextArea(
                self.start,
                language="markdown" if _has_markdown() else None,
                id="note-text",
                soft_wrap=True,
                show_line_numbers=False,
            )
            yield Static("Ctrl+S save · Esc close", classes="dialog-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.cursor_blink = getattr(self.app, "cursor_blink", True)
        area.focus()
        area.move_cursor(area.document.end)

    def on_text_area_changed(self) -> None:
        if self.keep_draft is not None:
            if self._draft_timer is not None:
                self._draft_timer.stop()
            self._draft_timer = self.set_timer(self.DRAFT_DELAY, self._keep_draft)

    def _keep_draft(self) -> None:
        if self.keep_draft is not None and self.is_attached:
            self.keep_draft(self.text)

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def action_save(self) -> None:
        if "\0" in self.text:  # invisible here, and dropped wherever the note is shown: never saved silently
            self.notify(
                "This note holds a NUL character (\\0), which a note cannot hold; remove it to save",
                severity="error",
                markup=False,
            )
            return
        too_long = note_size_error(self.text)
        if too_long:  # kept here (and in its draft) to be shortened
            self.notify(f"{too_long[:1].upper()}{too_long[1:]}; shorten it to save", severity="error", markup=False)
            return
        self.dismiss(self.text)

    def action_cancel(self) -> None:
        if self.text == self.original:
            self.dismiss(None)
            return
        from .confirm import ConfirmScreen

        def answer(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmScreen("Discard the changes to this note?"), answer)


def _has_markdown() -> bool:
    try:
        import tree_sitter_markdown  # noqa: F401
    except ImportError:
        return False
    return True
