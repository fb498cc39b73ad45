"""The paper the main screen's detail pane shows: the one under the list's cursor, with its marks, note and search
highlights, and the papers related to it, looked up once the cursor rests there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ..widgets.detail import DetailPane
from ..widgets.paper_row import RowLook
from ..widgets.search_bar import SearchBar
from .finder import possible_match

if TYPE_CHECKING:
    from .main import MainScreen

RELATED_DELAY = 0.1  # seconds the cursor must rest on a paper before related papers are looked up
RELATED_WHILE_TYPING = 0.4  # the same while a search is typed (about the pause between two words)


class ShownPaper:
    """Fills the detail pane as the list's cursor moves and as annotations change."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._position: int | None = -1  # the paper the detail pane shows (-1: none yet)
        self._related_timer = None

    def show(self) -> None:
        """Show the paper under the cursor; the same paper again (its annotations changed) keeps its scroll
        position and its related papers."""
        screen = self.screen
        detail = screen.query_one(DetailPane)
        position = screen.paper_list.current
        same, self._position = position == self._position, position
        if position is None:
            detail.show(None, RowLook(), empty_hint=screen.view.empty_message())
            detail.show_related([], [])  # nothing shown, nothing related
            return
        paper = screen.papers.papers[position]
        note = screen.app.store.get(paper.id)
        possible = possible_match(screen.app.store.resolutions().get(paper.id))
        detail.show(paper, screen.look(paper, note), note.note, screen.view.spans, keep_scroll=same, possible=possible)
        if not same:
            self.load_related(position)
        elif detail.related_positions:  # a related paper's title may have changed
            titles = [screen.listed_title(screen.papers.papers[pos]) for pos in detail.related_positions]
            detail.relabel_related(titles)

    def load_related(self, position: int) -> None:
        """Look for related papers once the cursor rests, not for every paper it passes over."""
        screen = self.screen
        screen.query_one(DetailPane).show_related([], [])
        if self._related_timer is not None:
            self._related_timer.stop()
        if len(screen.papers.papers) > 1 and position < len(screen.app.papers.papers):  # another list's: not indexed
            typing = screen.query_one(SearchBar).has_focus  # the best match changes with every key: wait longer
            delay = RELATED_WHILE_TYPING if typing else RELATED_DELAY
            self._related_timer = screen.set_timer(
                delay, lambda: screen.run_in_thread(self.find_related, position, group="related", exclusive=True)
            )

    def find_related(self, position: int) -> None:
        """The papers related to the one at `position` (in a worker thread), shown if the cursor is still there."""
        worker = get_current_worker()
        related = self.screen.app.related_index()
        if worker.is_cancelled or related is None:
            return  # no index yet: looked up again when it is ready (Searcher.index_ready)
        found = related.related(position, k=5)
        papers = self.screen.papers.papers
        for pos, _ in found:
            _ = papers[pos].title  # derived here, off the UI thread
        if not worker.is_cancelled:
            self.screen.deliver(self._show_related, position, [pos for pos, _ in found])

    def _show_related(self, position: int, positions: list[int]) -> None:
        screen = self.screen
        if screen.paper_list.current == position:
            titles = [screen.listed_title(screen.papers.papers[pos]) for pos in positions]
            screen.query_one(DetailPane).show_related(positions, titles)
