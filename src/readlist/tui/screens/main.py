"""The main screen: search bar, paper list, detail pane. Owns the view state."""

from __future__ import annotations

from contextlib import suppress

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState, get_current_worker

from ...core.papers.paper import PaperList as Papers
from ..actions import bindings
from ..widgets.detail import DetailPane
from ..widgets.missing import missing_text
from ..widgets.paper_list import PaperList
from ..widgets.paper_row import RowLook
from ..widgets.search_bar import SearchBar
from ..widgets.status_line import Counts, StatusLine
from .annotating import AnnotatingMixin
from .exporting import ExportingMixin
from .navigating import NavigatingMixin
from .view_state import ViewState

NARROW = 100


class MainScreen(AnnotatingMixin, NavigatingMixin, ExportingMixin, Screen):
    BINDINGS = bindings()

    def __init__(self, papers: Papers, quick_filter: str = "all", paper_id: str | None = None) -> None:
        super().__init__()
        self.papers = papers
        self.view = ViewState(papers, quick_filter, paper_id)
        self.index = None  # the search index, built in a worker after the first paint
        self._detail_position: int | None = -1  # the paper the detail pane shows (-1: none yet)
        self._search: Worker | None = None  # the latest search, whose result the view is waiting for

    def deliver(self, callback, *args) -> None:
        """Hand a worker thread's result to the UI; dropped when the app is closing meanwhile."""

        def guarded() -> None:
            if not self.is_attached:
                return
            try:
                callback(*args)
            except NoMatches:  # widgets already removed while the app shuts down
                pass

        try:
            self.app.call_from_thread(guarded)
        except RuntimeError:  # the app's loop has ended
            pass

    # -- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield SearchBar(id="search")
        with Horizontal(id="panes"):
            with Vertical(id="list-pane"):
                yield PaperList(self.papers.papers, self.look, follow=self.follow_cursor, id="list")
                yield Static(id="empty")
            yield DetailPane(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        paper_list = self.query_one(PaperList)
        paper_list.focus()
        self.apply_layout(self.size.width)
        self.refresh_view()
        self.call_after_refresh(self.build_index)  # after the first paint, which it would slow down

    def on_resize(self, event) -> None:
        self.apply_layout(event.size.width)
        self.call_after_refresh(self.keep_focus_visible)

    def on_screen_suspend(self) -> None:
        self._focus_before_dialog = self.focused

    def on_screen_resume(self) -> None:  # the terminal may have been resized while a dialog was open
        before, self._focus_before_dialog = getattr(self, "_focus_before_dialog", None), None
        if before is not None:
            self.call_after_refresh(self.keep_focus_visible, before)

    def watch_maximized(self, maximized) -> None:
        """A maximized widget restored: the panes it hid are shown again, often without a resize event from
        Textual, while what they drew meanwhile was fitted to no width at all."""
        if maximized is None:
            self.call_after_refresh(self.query_one(DetailPane).fit_width)

    def apply_layout(self, width: int) -> None:
        self.set_class(width < NARROW, "narrow")
        footer = self.query_one(Footer)
        if footer.show_command_palette != (width >= NARROW):
            footer.compact = width < NARROW
            footer.show_command_palette = width >= NARROW
            footer.refresh(recompose=True)  # the footer draws its palette key only when it composes
        self.query_one(SearchBar).set_width_hint(width)
        self.refresh_header()

    # -- data shown ---------------------------------------------------------------------------
    def look(self, paper, note=None) -> RowLook:
        """What a row shows besides the title; `note` when the caller already holds the annotation."""
        note = note or self.app.store.get(paper.id)
        return RowLook(note.starred, note.status, note.tags, note.title)

    def counts(self) -> Counts:
        read, reading, starred = self.app.store.counts(self.papers.by_id)
        return Counts(len(self.papers), read, reading, starred)

    def refresh_header(self) -> None:
        view = self.view
        self.query_one(StatusLine).show(
            self.papers.name,
            self.counts(),
            view.quick_filter,
            view.search_text,
            view.matches,
            view.status_note(self.index is not None),
            view.partial,
        )

    def refresh_all(self) -> None:
        """Annotations changed: redraw rows, detail and counts."""
        self.query_one(PaperList).redraw()
        self.refresh_header()
        self.show_detail()
        if self.view.query:  # words match notes and tags too: the change may move the paper
            self.view.stay_row = self.query_one(PaperList).cursor  # a paper leaving the view: keep the place
            self.refresh_view()

    def show_detail(self) -> None:
        """Show the paper under the cursor; the same paper again (its annotations changed) keeps its scroll
        position and its related papers."""
        detail = self.query_one(DetailPane)
        position = self.query_one(PaperList).current
        same, self._detail_position = position == self._detail_position, position
        if position is None:
            detail.show(None, RowLook(), empty_hint=self.view.empty_message())
            detail.show_related([], [])  # nothing shown, nothing related
            return
        paper = self.papers.papers[position]
        note = self.app.store.get(paper.id)
        detail.show(paper, self.look(paper, note), note.note, self.view.spans, keep_scroll=same)
        if not same:
            self.load_related(position)
        elif detail.related_positions:  # a related paper's title may have changed
            titles = [self.shown_title(self.papers.papers[pos]) for pos in detail.related_positions]
            detail.relabel_related(titles)

    # -- filtering and search -----------------------------------------------------------------
    def show_view(self) -> None:
        """The search and filter the view state holds now, in the search bar and the list."""
        self.query_one(SearchBar).value = self.view.search_text
        self.refresh_view()

    def refresh_view(self) -> None:
        text = self.view.query
        if not text:
            self.view.result = None
            self.apply_view()
            return
        if self.index is None:
            self.refresh_header()  # shows "indexing…"; the search runs when the index is ready
            return
        self._search = self.run_search(text)

    async def view_settled(self) -> None:
        """Wait until the view shows the latest search: a key pressed after a change (a star in an
        `is:starred` view) then acts on the paper selected once the changed one has left the view."""
        while (worker := self._search) is not None and not worker.is_finished:
            with suppress(WorkerCancelled, WorkerFailed):  # replaced by a newer search: wait for that one
                await worker.wait()

    @work(exclusive=True, thread=True, group="search", exit_on_error=False)
    def run_search(self, text: str) -> None:
        from ...core.search.index import BuildCancelled

        worker = get_current_worker()
        try:
            result = self.index.search(text, self.app.store.all(), cancelled=worker.cancelled_event)
        except BuildCancelled:  # a newer query took over while titles were derived or texts read (-the)
            return
        if not worker.is_cancelled:
            self.deliver(self.apply_result, text, result)

    def apply_result(self, text: str, result) -> None:
        if self.view.take(text, result):  # else a newer query is on its way
            self.apply_view()

    def apply_view(self) -> None:
        """List what the view state says, the cursor where it says."""
        view, paper_list = self.view, self.query_one(PaperList)
        positions = view.positions
        keep, row = view.placement(paper_list.current)
        paper_list.set_view(positions, view.spans, view.full_matches, keep=keep, fallback_row=row)
        empty = self.query_one("#empty", Static)
        if not positions:  # an update costs a layout pass: only when the message shows
            empty.update(missing_text(self.app.store.orphans()) if view.showing_missing else Text(view.empty_message()))
        empty.display = not positions
        paper_list.display = bool(positions)
        if positions and self.focused is None:  # the list lost focus while it was hidden: give it back
            self.visible_pane().focus()
        self.refresh_header()  # the detail pane follows the list's cursor (follow_cursor)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self) -> None:
        """The search index, then every derived title (`title:` searches them), both cached on disk."""
        from ...core.papers import title_cache
        from ...core.search.cache import load_or_build

        worker = get_current_worker()
        papers = self.papers.papers
        titled = title_cache.prime(papers)
        index = load_or_build(papers, cancelled=worker.cancelled_event)
        if worker.is_cancelled:
            return
        self.deliver(self.index_ready, index)
        if not titled:
            titled = title_cache.derive_all(papers, cancelled=worker.cancelled_event)
        if titled and not worker.is_cancelled:
            index.derived_titles()  # what title: searches look up (0.8 s at 100k papers)

    def index_ready(self, index) -> None:
        self.index = index
        if self.view.query:
            self.refresh_view()
        self.app.index_ready(index)
        position = self.query_one(PaperList).current
        if position is not None:
            self.load_related(position)  # the paper shown waited for the index to find its related papers

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.worker_failed(event.worker)

    # -- messages from widgets ----------------------------------------------------------------
    @on(SearchBar.Changed)
    def search_changed(self, event: SearchBar.Changed) -> None:
        if self.view.set_search(event.value):
            self.refresh_view()

    def action_clear_search(self) -> None:
        """Esc in the list: clear the search (the paper under the cursor stays selected); right after a jump
        that cleared the search, bring it back; else close the notifications on screen."""
        if self.view.search_text:
            self.query_one(SearchBar).value = ""
        elif self.view.back():
            self.show_view()
        else:
            self.app.clear_notifications()

    @on(SearchBar.Leave)
    def leave_search(self, event: SearchBar.Leave) -> None:
        """Enter shows the results (the list, also where a narrow screen showed the detail); Esc goes back to
        the pane shown."""
        if event.to_results:
            self.action_close_detail()
        else:
            self.visible_pane().focus()

    def on_descendant_focus(self) -> None:
        """Focus never rests on a pane the layout hides (the list behind a narrow screen's detail)."""
        self.keep_focus_visible()

    def follow_cursor(self, position: int | None) -> None:
        """The list's cursor moved to another paper: show it in the same frame."""
        if self.is_mounted:
            self.show_detail()
        else:  # the first view, set while the screen mounts
            self.call_later(self.show_detail)

    @on(PaperList.Chosen)
    def chosen(self) -> None:
        self.action_open_detail()

    @on(DetailPane.Jump)
    def jump(self, event: DetailPane.Jump) -> None:
        self.jump_to(event.position)
