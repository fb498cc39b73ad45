"""The detail pane: one paper in full, with its annotations, links, note and related papers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...core.papers.describe import short_authors, title_origin_line, where_and_ids
from ...core.papers.links import IN_ABSTRACT, source_links
from ...core.papers.paper import Paper
from ...core.store.annotation import title_of
from ...core.text.normalize import hashtags
from ..display import row_marks, safe
from .detail_body import DetailBody
from .note_markdown import note_text
from .paper_row import RowLook

Spans = Callable[[str], list[tuple[int, int]]]


class RelatedList(OptionList):
    """Up to five related papers; choosing one jumps to it."""

    # Its height is fixed (five lines, each cut to the width): its rows coming and going change nothing around it.
    # Textual lays the whole screen out again whenever a widget's content changes size, which emptying the list
    # and filling it cost twice for every paper the cursor moved to (most of a key's time at 100k papers).
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def on_focus(self) -> None:
        if self.highlighted is None and self.option_count:
            self.highlighted = 0  # Enter works at once: the first related paper is marked


def paper_text(paper: Paper, look: RowLook, note: str, spans: Spans | None, possible: str = "") -> Text:
    """Everything about one paper as a single literal Text (never parsed as markup); `possible` is the line saying
    a match found online that was not verified, when there is one."""
    text = Text()
    text.append(safe(title_of(paper, look)), "bold")
    text.append("\n")
    if look.title or paper.title_origin != "given":  # a title the file gives goes without saying
        text.append(safe(title_origin_line(paper, look.title)), "dim italic")
        text.append("\n")
    if possible:
        text.append(safe(possible), "italic yellow")
        text.append("\n")
    _, mark, _ = row_marks(look.starred, look.status)
    text.append(f"#{paper.index} · {paper.id}", "dim")
    text.append("  ★ starred" if look.starred else "  ☆ not starred", "bold yellow" if look.starred else "dim")
    text.append(f"  {mark} {look.status}")
    if look.tags:
        text.append("  tags: ")
        text.append(hashtags(look.tags), "cyan")
    if paper.record is not None:
        _append_record(text, paper)
    text.append("\n\n")
    if note.strip():  # the user's own words first: they are what they come back for
        text.append("Note\n", "bold")
        text.append_text(note_text(note))  # its Markdown drawn, never read as markup
        text.append("\n\n")
    body = Text(safe(paper.plain))
    if spans is not None:
        for start, end in spans(body.plain):
            body.stylize("reverse", start, end)
    text.append_text(body)
    links = source_links(paper)
    if links:
        text.append("\n\nLinks", "bold")
        for link in links:
            text.append("\n  ")
            text.append(safe(link.url), "underline")
            if link.label != IN_ABSTRACT:  # what a link of the record leads to; the abstract's speak for themselves
                text.append(f"  {link.label}", "dim")
    if not note.strip():
        text.append("\n\nNo note yet — press n to write one.", "dim")
    return text


def _append_record(text: Text, paper: Paper) -> None:
    """The record's authors (shortened when many), then its venue, year and ids, a line each when it has them."""
    if paper.authors:
        text.append("\n")
        text.append(safe(short_authors(paper.authors)), "italic")
    where = where_and_ids(paper)
    if where:
        text.append("\n")
        text.append(safe(where))


class DetailPane(Vertical):
    """The paper's text (scrolls on its own) above its related papers."""

    BINDINGS = [Binding("escape", "screen.close_detail", "List")]

    class Jump(Message):
        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    _related: tuple[tuple[int, ...], tuple[str, ...]] = ((), ())

    def compose(self) -> ComposeResult:
        yield DetailBody(id="detail-body")
        yield Static(id="detail-related-label")
        yield RelatedList(id="detail-related")

    def show(
        self,
        paper: Paper | None,
        look: RowLook,
        note: str = "",
        spans: Spans | None = None,
        empty_hint: str = "",
        keep_scroll: bool = False,
        possible: str = "",
    ) -> None:
        body = self.query_one(DetailBody)
        text = Text(empty_hint) if paper is None else paper_text(paper, look, note, spans, possible)
        body.set_text(text, keep_scroll)

    def show_related(self, positions: Sequence[int], labels: Sequence[str]) -> None:
        related = self.query_one(RelatedList)
        if not positions and not related.option_count:
            return
        self._related = (tuple(positions), tuple(labels))
        self._fill_related()
        self.query_one("#detail-related-label", Static).update(
            Text("Related papers", "bold") if positions else Text(""),
            layout=False,  # one fixed line
        )

    @property
    def related_positions(self) -> tuple[int, ...]:
        return self._related[0]

    def relabel_related(self, labels: Sequence[str]) -> None:
        """The same related papers under new titles (a user's own title changed); nothing when unchanged."""
        if tuple(labels) != self._related[1]:
            self._related = (self._related[0], tuple(labels))
            self._fill_related()

    def _fill_related(self) -> None:
        """One line per paper, cut to the pane's width (so five papers fit the box)."""
        related = self.query_one(RelatedList)
        highlighted = related.highlighted
        related.clear_options()
        width = max(related.scrollable_content_region.width - 1, 10)
        options = []
        for pos, label in zip(*self._related, strict=True):
            prompt = Text(safe(label))
            prompt.truncate(width, overflow="ellipsis")
            options.append(Option(prompt, id=str(pos)))
        related.add_options(options)
        if highlighted is not None and highlighted < len(options):
            related.highlighted = highlighted

    def on_resize(self) -> None:
        if self._related[0]:  # e.g. shown again in a narrow terminal: cut the labels to the new width
            self._fill_related()

    def fit_width(self) -> None:
        """Fit the text and the related titles to the pane's width now, as a resize would."""
        self.query_one(DetailBody).fit_width()
        self.on_resize()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.Jump(int(event.option.id)))
