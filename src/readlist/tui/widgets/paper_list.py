"""The paper list: a Line API scroll view over an array of paper positions.

Only visible rows are drawn, so 100,000 papers cost no more than 40; filtering swaps
the position array and never mounts widgets.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ...core.papers.paper import Paper
from ...core.papers.title_cache import complete
from ..actions import list_bindings
from .lines import KeptLines, fitted, move_thumb, runs
from .paper_row import RowLook, has_bylines, render_row

Spans = Callable[[str], list[tuple[int, int]]]


DRAWN_ROWS = 1000  # drawn rows kept for redrawing after a scroll


class PaperListView(KeptLines, ScrollView, can_focus=True):
    """Rows of `star status [year author] title  tags`; the cursor row drives the detail pane."""

    BINDINGS = [*list_bindings(), Binding("escape", "screen.clear_search", "Clear search", show=False)]
    COMPONENT_CLASSES = {
        "paper-list--cursor",
        "paper-list--star",
        "paper-list--unread",
        "paper-list--reading",
        "paper-list--read",
        "paper-list--tags",
        "paper-list--match",
        "paper-list--divider",
        "paper-list--marked",
        "paper-list--byline",
    }

    cursor: reactive[int] = reactive(0, always_update=True, init=False, repaint=False)

    class Chosen(Message):
        """A row was clicked or Enter pressed on it."""

        def __init__(self, position: int) -> None:
            super().__init__()
            self.position = position

    def __init__(
        self,
        papers: Sequence[Paper],
        look: Callable[[Paper], RowLook],
        follow: Callable[[int | None], None],
        **kwargs,
    ) -> None:
        """`look` gives a row's marks; `follow` is told of the paper under the cursor whenever it changes.

        A callback rather than a message: a message reaches the screen a frame later, so the detail pane
        that follows the cursor would cost a second repaint per key (about 2 ms at any list size).
        """
        super().__init__(**kwargs)
        self.papers = papers
        self.bylines = has_bylines(papers)  # a column of years and first authors, when the list has them
        self.look = look
        self.follow = follow
        self.positions: Sequence[int] = range(len(papers))
        self.full_matches: int | None = None  # rows before this index match every word
        self.spans: Spans | None = None
        self._last_highlight: int | None = -1
        self._styles: dict[str, Style] = {}
        self._combined: dict[tuple[Style, ...], Style] = {}  # a run's span styles -> its style on the list's own
        self._drawn: OrderedDict[tuple[int, int, bool], Strip] = OrderedDict()  # (position, width, cursor) -> row
        # One thread of the list's own derives the titles ahead: a worker of Textual's for each page key (its task,
        # its run on asyncio's threads, its changes of state sent to the screen) cost 0.7 ms of the UI's CPU at each
        # PageDown at 100k papers.
        self._ahead: ThreadPoolExecutor | None = None
        self._asked = 0  # the titles asked for last: a derivation asked for before it stops

    # -- data -------------------------------------------------------------------------------
    def set_view(
        self,
        positions: Sequence[int],
        spans: Spans | None = None,
        full_matches: int | None = None,
        keep: int | None = None,
        fallback_row: int = 0,
    ) -> None:
        """Show these paper positions; keep the cursor on paper `keep` when it is still listed,
        else put it on `fallback_row` (the top for a new query, the same row after an edit)."""
        self.positions = positions
        self.spans = spans
        self.full_matches = full_matches if full_matches is not None and full_matches < len(positions) else None
        self._drawn.clear()
        self.virtual_size = Size(self.size.width, self.row_count)
        self._last_highlight = -1  # a new view: announce the cursor's paper even if it is the same one
        row = fallback_row
        if keep is not None:
            found = self.row_of(keep)
            row = found if found is not None else fallback_row
        self.cursor = min(row, max(self.row_count - 1, 0))
        self.refresh()
        # The list's size is known only after a layout (the first view, a list shown again): look again then.
        self.call_after_refresh(self.show_cursor)

    @property
    def row_count(self) -> int:
        return len(self.positions) + (1 if self.full_matches is not None else 0)

    def row_of(self, position: int) -> int | None:
        if isinstance(self.positions, range):
            row = position - self.positions.start if position in self.positions else None
        else:
            try:
                row = self.positions.index(position)
            except ValueError:
                row = None
        if row is not None and self.full_matches is not None and row >= self.full_matches:
            row += 1
        return row

    def position_at(self, row: int) -> int | None:
        if self.full_matches is not None:
            if row == self.full_matches:
                return None
            if row > self.full_matches:
                row -= 1
        if 0 <= row < len(self.positions):
            return self.positions[row]
        return None

    @property
    def current(self) -> int | None:
        return self.position_at(self.cursor)

    # -- cursor ------------------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        if self.full_matches is not None and new == self.full_matches:  # skip the divider row
            self.cursor = new + 1 if new >= old and new + 1 < self.row_count else max(new - 1, 0)
            return
        self.refresh_line(old)
        self.refresh_line(new)
        self.scroll_to_row(new)
        self.titles_ahead()
        position = self.current
        if position != self._last_highlight:
            self._last_highlight = position
            self.follow(position)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if self.show_vertical_scrollbar:
            move_thumb(self.vertical_scrollbar, new_value)  # drawn again only when its thumb moves
        if round(old_value) != round(new_value):
            self.refresh(self.size.region)

    def refresh_line(self, row: int) -> None:
        self.refresh_lines(row, 1)  # in list rows; ScrollView subtracts the scroll offset

    def scroll_to_row(self, row: int) -> None:
        top = int(self.scroll_offset.y)
        height = self.scrollable_content_region.height
        if not height:  # not laid out yet (or hidden): set_view looks again after the layout
            return
        # Forced: a list that just grew from a few rows has no scrollbar until the next layout, and
        # without one Textual ignores the scroll (the cursor's row was left off-screen).
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True, force=True)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True, force=True)

    def titles_ahead(self) -> None:
        """Derive the titles of the pages above and below the one shown, in the background, so that a page key
        draws rows whose titles are known (deriving them as the rows are drawn cost ~0.3 ms a row on the UI
        thread: a list of TITLES_AHEAD papers or more has not derived them all). Nothing when they are known."""
        height = self.scrollable_content_region.height
        top = int(self.scroll_offset.y)
        rows = range(max(top - height, 0), min(top + 2 * height, self.row_count))
        papers = [self.papers[pos] for pos in map(self.position_at, rows) if pos is not None]
        if height and not complete(papers):
            self._asked += 1
            if self._ahead is None:
                self._ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="readlist-titles-ahead")
            self._ahead.submit(self._derive_titles, papers, self._asked)

    def _derive_titles(self, papers: Sequence[Paper], asked: int) -> None:
        """Derive the papers' titles (in the list's thread), stopping when a newer page asked for its own."""
        for paper in papers:
            if self._asked != asked:
                return
            _ = paper.title

    def on_unmount(self) -> None:
        self._asked += 1  # what is being derived stops
        if self._ahead is not None:
            self._ahead.shutdown(wait=False, cancel_futures=True)
            self._ahead = None

    def show_cursor(self) -> None:
        """Scroll the cursor's row into view."""
        self.scroll_to_row(self.cursor)
        self.titles_ahead()

    def move(self, delta: int) -> None:
        if self.row_count:
            self.cursor = max(0, min(self.row_count - 1, self.cursor + delta))

    def action_cursor_down(self) -> None:
        self.move(1)

    def action_cursor_up(self) -> None:
        self.move(-1)

    def action_cursor_first(self) -> None:
        self.move(-self.row_count)

    def action_cursor_last(self) -> None:
        self.move(self.row_count)

    def action_page_down(self) -> None:
        self.move(max(self.scrollable_content_region.height - 1, 1))

    def action_page_up(self) -> None:
        self.move(-max(self.scrollable_content_region.height - 1, 1))

    def select_position(self, position: int) -> bool:
        row = self.row_of(position)
        if row is None:
            return False
        self.cursor = row
        return True

    async def _on_click(self, event) -> None:
        row = int(self.scroll_offset.y) + event.y
        if self.position_at(row) is not None:
            self.cursor = row
            if event.chain >= 2:
                self.post_message(self.Chosen(self.position_at(row)))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self.row_count)
        self.show_cursor()  # a smaller window may have left it below the bottom

    # -- drawing -----------------------------------------------------------------------------
    def style_of(self, part: str) -> Style:
        """Component styles, looked up once per theme/CSS change rather than once per row."""
        style = self._styles.get(part)
        if style is None:
            style = self.rich_style if not part else self.get_component_rich_style(f"paper-list--{part}")
            self._styles[part] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._combined.clear()
        self._drawn.clear()

    def take_papers(self, papers: Sequence[Paper]) -> None:
        """The same papers, in the same places, with other records (what was found online), drawn afresh."""
        self.papers = papers
        self.bylines = has_bylines(papers)
        self.redraw()

    def redraw(self) -> None:
        """Rows look different (annotations changed): draw them afresh."""
        self._drawn.clear()
        self.refresh()

    def render_line(self, y: int) -> Strip:
        return self.row_line(int(self.scroll_offset.y) + y, self.scrollable_content_region.width)

    def draw_lines(self, rows: range) -> list[Strip]:
        top, width = int(self.scroll_offset.y), self.scrollable_content_region.width  # once for all the rows
        return [self.row_line(top + y, width) for y in rows]

    def row_line(self, row: int, width: int) -> Strip:
        """The list's `row` drawn `width` cells wide."""
        base = self.style_of("")
        if row >= self.row_count:
            return Strip.blank(width, base)
        position = self.position_at(row)
        if position is None:
            style = self.style_of("divider")
            label = " partial matches (miss a word) "
            line = Text(label.center(width, "─"), style=style)
            return Strip(line.render(self.app.console), width).crop(0, width)
        key = (position, width, row == self.cursor)
        strip = self._drawn.get(key)
        if strip is None:  # scrolling by a row redraws every visible row: most were drawn a moment ago
            text = self.render_row(position, width)
            if key[2]:
                text.stylize(self.style_of("cursor"))
            strip = fitted(runs(text, base, self._combined, self.app.console.get_style), width, base)
            if len(self._drawn) >= DRAWN_ROWS:  # the oldest row goes: clearing them all redrew a whole page at once
                self._drawn.popitem(last=False)
            self._drawn[key] = strip
        return strip

    def render_row(self, position: int, width: int) -> Text:
        paper = self.papers[position]
        return render_row(paper, self.look(paper), width, self.style_of, self.spans, self.bylines)
