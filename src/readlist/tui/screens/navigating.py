"""Main-screen actions that move around and look at papers (no annotation changes)."""

from __future__ import annotations

import webbrowser
from itertools import chain

from textual import work
from textual.worker import get_current_worker

from ...core.store.annotation import title_of
from ..widgets.detail import DetailPane
from ..widgets.detail_body import DetailBody
from ..widgets.paper_list import PaperList
from ..widgets.search_bar import SearchBar

RELATED_DELAY = 0.1  # seconds the cursor must rest on a paper before related papers are looked up
RELATED_WHILE_TYPING = 0.4  # the same while a search is typed (about the pause between two words)


class NavigatingMixin:
    """Cursor, focus, filter, links, clipboard, related papers."""

    _related_timer = None

    @property
    def paper_list(self) -> PaperList:
        return self.query_one(PaperList)

    @property
    def current_paper(self):
        position = self.paper_list.current
        return None if position is None else self.papers.papers[position]

    def selected_paper(self):
        """The paper under the cursor for a key that acts on one; says so when there is none (an empty view)."""
        paper = self.current_paper
        if paper is None:
            self.notify("No paper selected", severity="warning", timeout=2)
        return paper

    def action_cursor_down(self) -> None:
        self.paper_list.action_cursor_down()

    def action_cursor_up(self) -> None:
        self.paper_list.action_cursor_up()

    def action_cursor_first(self) -> None:
        self.paper_list.action_cursor_first()

    def action_cursor_last(self) -> None:
        self.paper_list.action_cursor_last()

    def action_page_down(self) -> None:
        self.paper_list.action_page_down()

    def action_page_up(self) -> None:
        self.paper_list.action_page_up()

    def action_focus_search(self) -> None:
        search = self.query_one(SearchBar)
        # `/` is a priority key, so typing one in the bar arrives here, ahead of the keys typed before it that
        # the bar has not read yet (a paste without bracketed paste): it goes in after them. The screen's
        # focus, not has_focus: that is set only once the bar has read its focus event.
        if self.focused is search:
            search.call_later(search.insert_text_at_cursor, "/")
            return
        self.set_class(False, "show-detail")
        # Focus now, not on the next message cycle: keys typed right after `/` must reach the bar.
        self.set_focus(search)

    def action_open_detail(self) -> None:
        if self.has_class("narrow"):
            showing = not self.has_class("show-detail")
            self.set_class(showing, "show-detail")
            (self.query_one(DetailBody) if showing else self.paper_list).focus()
        else:
            self.query_one(DetailBody).focus()

    def visible_pane(self):
        """Where the keyboard belongs: the detail when a narrow screen shows it instead of the list."""
        if self.has_class("narrow") and self.has_class("show-detail"):
            return self.query_one(DetailBody)
        return self.paper_list

    def keep_focus_visible(self, focused=None) -> None:
        """Focus on a widget the layout now hides (after a resize, a dialog, a jump) moves to the pane shown."""
        focused = focused or self.focused
        if focused is None or not all(getattr(node, "display", True) for node in focused.ancestors_with_self):
            self.visible_pane().focus()

    def action_close_detail(self) -> None:
        self.set_class(False, "show-detail")
        self.paper_list.focus()

    def action_cycle_filter(self) -> None:
        quick_filter = self.view.next_filter()
        self.refresh_view()
        self.notify(f"Filter: {quick_filter}", timeout=1.5)

    def action_next_unread(self) -> None:
        """The next unread paper below, else (saying so) the first one from the top, as newsreaders wrap."""
        papers_list = self.paper_list
        store = self.app.store
        start = papers_list.cursor
        for row in chain(range(start + 1, papers_list.row_count), range(min(start, papers_list.row_count))):
            position = papers_list.position_at(row)
            if position is not None and store.get(self.papers.papers[position].id).status == "unread":
                papers_list.cursor = row
                if row < start:
                    self.notify("No unread paper below: back to the first from the top", timeout=2)
                return
        self.notify("No other unread papers in this view", timeout=2)

    def jump_to(self, position: int) -> None:
        """Select a paper; one not in the view clears the search and filter, which Esc in the list brings back."""
        if not self.paper_list.select_position(position):
            paper = self.papers.papers[position]
            before = self.view.jump(paper, self.current_paper)
            self.show_view()
            message = f"{before.describe()} cleared to show #{paper.index} — Esc in the list goes back"
            self.notify(message, markup=False, timeout=6)
        self.visible_pane().focus()  # a related paper opened on a narrow screen stays in the detail

    def action_open_link(self) -> None:
        paper = self.selected_paper()
        if paper is None:
            return
        urls = [url for url in paper.urls if url.lower().startswith(("http://", "https://"))]
        if not urls:
            self.notify("This paper has no links", severity="warning", timeout=2)
            return
        self.open_url(urls[0])

    @work(thread=True, exit_on_error=False)
    def open_url(self, url: str) -> None:
        """Open the link off the UI thread (finding a browser takes a moment), then say whether it opened."""
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:  # no browser registered
            opened = False
        self.deliver(self._told_opened, url, opened)

    def _told_opened(self, url: str, opened: bool) -> None:
        if opened:
            self.notify(f"Opened {url}", markup=False, timeout=2)
            return
        message = f"Could not open a browser for {url} — y copies the title and abstract, with the link"
        self.notify(message, severity="warning", markup=False, timeout=10)

    def action_copy(self) -> None:
        paper = self.selected_paper()
        if paper is not None:
            self.app.copy_to_clipboard(f"{self.shown_title(paper)}\n\n{paper.plain}")
            self.notify("Copied the title and abstract", timeout=1.5)

    async def action_quit(self) -> None:
        await self.app.action_quit()

    def action_help(self) -> None:
        from .dialogs.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_progress(self) -> None:
        from .dialogs.progress import ProgressScreen

        self.app.push_screen(ProgressScreen(self.papers))

    def load_related(self, position: int) -> None:
        """Look for related papers once the cursor rests, not for every paper it passes over."""
        self.query_one(DetailPane).show_related([], [])
        if self._related_timer is not None:
            self._related_timer.stop()
        if len(self.papers.papers) > 1:
            typing = self.query_one(SearchBar).has_focus  # the best match changes with every key: wait longer
            delay = RELATED_WHILE_TYPING if typing else RELATED_DELAY
            self._related_timer = self.set_timer(delay, lambda: self.find_related(position))

    @work(thread=True, exclusive=True, group="related", exit_on_error=False)
    def find_related(self, position: int) -> None:
        worker = get_current_worker()
        related = self.app.related_index()
        if worker.is_cancelled or related is None:
            return  # no index yet: looked up again when it is ready (MainScreen.index_ready)
        found = related.related(position, k=5)
        for pos, _ in found:
            _ = self.papers.papers[pos].title  # derived here, off the UI thread
        if not worker.is_cancelled:
            self.deliver(self._show_related, position, [pos for pos, _ in found])

    def _show_related(self, position: int, positions: list[int]) -> None:
        if self.paper_list.current == position:
            self.query_one(DetailPane).show_related(
                positions, [self.shown_title(self.papers.papers[pos]) for pos in positions]
            )

    def shown_title(self, paper) -> str:
        """The title the list shows: the user's own, else the paper's."""
        return title_of(paper, self.app.store.get(paper.id))
