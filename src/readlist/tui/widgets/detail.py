"""The detail pane: one paper in full, with its annotations, links, note and related papers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.paper import Paper
from ..display import STATUS_MARKS, safe, safe_text
from .paper_list import RowLook

Spans = Callable[[str], list[tuple[int, int]]]


class RelatedList(OptionList):
    """Up to five related papers; choosing one jumps to it."""


class DetailPane(VerticalScroll, can_focus=True):
    """Scrolls on its own; shows nothing but a hint when no paper is highlighted."""

    BINDINGS = [Binding("escape", "screen.close_detail", "List")]

    class Jump(Message):
        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def compose(self) -> ComposeResult:
        yield Static(id="detail-title")
        yield Static(id="detail-meta")
        yield Static(id="detail-abstract")
        yield Static(id="detail-links")
        yield Static(id="detail-note")
        yield Static("Related papers", id="detail-related-label")
        yield RelatedList(id="detail-related")

    def show(
        self, paper: Paper | None, look: RowLook, note: str = "", spans: Spans | None = None, empty_hint: str = ""
    ) -> None:
        title = self.query_one("#detail-title", Static)
        meta = self.query_one("#detail-meta", Static)
        abstract = self.query_one("#detail-abstract", Static)
        links = self.query_one("#detail-links", Static)
        note_widget = self.query_one("#detail-note", Static)
        if paper is None:
            title.update(Text(empty_hint))
            for widget in (meta, abstract, links, note_widget):
                widget.update("")
            links.display = False
            self.show_related([], [])
            return
        title.update(safe_text(look.title or paper.title, "bold"))
        mark, _ = STATUS_MARKS.get(look.status, STATUS_MARKS["unread"])
        meta_text = Text()
        meta_text.append(f"#{paper.index} · {paper.id}", "dim")
        meta_text.append("  ★ starred" if look.starred else "  ☆ not starred", "bold yellow" if look.starred else "dim")
        meta_text.append(f"  {mark} {look.status}")
        if look.tags:
            meta_text.append("  tags: ")
            meta_text.append(" ".join(f"#{safe(tag)}" for tag in look.tags), "cyan")
        meta.update(meta_text)
        body = safe_text(paper.plain)
        if spans is not None:
            for start, end in spans(body.plain):
                body.stylize("reverse", start, end)
        abstract.update(body)
        if paper.urls:
            link_text = Text("Links\n", "bold")
            for url in paper.urls:
                link_text.append("  " + safe(url) + "\n", "underline")
            links.update(link_text.rstrip() or link_text)
        links.display = bool(paper.urls)
        if note.strip():
            note_text = Text("Note\n", "bold")
            note_text.append(safe_text_block(note))
            note_widget.update(note_text)
        else:
            note_widget.update(Text("No note yet — press n to write one.", "dim"))
        self.scroll_home(animate=False)

    def show_related(self, positions: Sequence[int], labels: Sequence[str]) -> None:
        related = self.query_one(RelatedList)
        related.clear_options()
        related.add_options(
            [Option(Text(safe(label)), id=str(pos)) for pos, label in zip(positions, labels, strict=True)]
        )
        related.display = bool(positions)
        self.query_one("#detail-related-label").display = bool(positions)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Jump(int(event.option.id)))


def safe_text_block(text: str) -> Text:
    """Multi-line user text (a note) shown literally, keeping its line breaks."""
    from ...core.text import strip_control

    return Text("\n".join(strip_control(line) for line in text.splitlines()))
