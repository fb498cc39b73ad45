"""The main screen: search bar, paper list, detail pane. It lays them out and passes their messages on; its view
state decides what is listed, and collaborators do the searching and the actions (tui/actions.py says whose each is)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Collection
from functools import partial

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import Worker, WorkerState, get_current_worker

from ...core.papers.paper import PaperList
from ...core.store.annotation import title_of
from ..actions import ACTIONS, bindings
from ..widgets.detail import DetailPane
from ..widgets.footer import ReadlistFooter
from ..widgets.missing_papers import missing_papers_text
from ..widgets.paper_list import PaperListView
from ..widgets.paper_row import RowLook
from ..widgets.search_bar import SearchBar
from ..widgets.status_line import Counts, StatusLine
from .annotator import Annotator
from .exporter import Exporter
from .finder import Finder
from .library import LibrarySearch
from .marker import Marker
from .navigator import Navigator
from .navigator import list_width as list_width_within
from .searcher import Searcher
from .shown_paper import ShownPaper
from .view_state import ViewState

NARROW = 100
SHORT = 30  # rows: below, the detail pane lists fewer related papers so that more of the abstract shows


class MainScreen(Screen):
    BINDINGS = bindings()  # each key's `action_<name>` hands it to whoever ACTIONS names (see the end of this module)

    def __init__(
        self,
        papers: PaperList,
        quick_filter: str = "all",
        paper_id: str | None = None,
        sort: str = "relevance",
        list_width: int | None = None,
    ) -> None:
        super().__init__()
        self.papers = papers
        # The list pane's percent of a wide screen (None: the stylesheet's); `<` and `>` change it.
        self.list_width = list_width_within(list_width)
        self.view = ViewState(papers, quick_filter, paper_id, sort)
        self.searcher = Searcher(self)
        self.navigator = Navigator(self)
        self.marker = Marker(self)
        self.annotator = Annotator(self)
        self.exporter = Exporter(self)
        self.finder = Finder(self)
        self.shown_paper = ShownPaper(self)
        self.library = LibrarySearch(self)  # the papers of every list, for `in:all`

    def deliver(self, callback, *args, wait: bool = True) -> None:
        """Hand a worker thread's result to the UI; dropped when the app is closing meanwhile. `wait`: the thread
        waits until the UI has run `callback`; else it goes on at once, the UI running it in its turn."""

        def guarded() -> None:
            if not self.is_attached:
                return
            try:
                callback(*args)
            except NoMatches:  # widgets already removed while the app shuts down
                pass

        try:
            if wait:
                self.app.call_from_thread(guarded)
            else:
                self.post_message(events.Callback(callback=guarded))  # (posted from another thread safely)
        except RuntimeError:  # the app's loop has ended
            pass

    def run_in_thread(self, fn, *args, group: str = "default", exclusive: bool = False) -> Worker:
        """Run `fn(*args)` in a worker thread, which hands its results back with `deliver`; an error in it is one
        notice (on_worker_state_changed), never the end of the app.

        Searches and related-paper lookups, run again and again, each run on one thread of their own kept for as
        long as the app runs (`ReadlistApp.lanes`), not on whichever thread of a pool is free: at 100k papers a
        search allocates tens of megabytes, and every thread that does keeps that memory for itself (its malloc
        arena), so memory grew with each search that landed on another thread (369 -> 601 MB over 150)."""
        lane = self.app.lanes.get(group)
        if lane is None:
            return self.run_worker(
                partial(fn, *args), name=fn.__name__, group=group, exclusive=exclusive, thread=True, exit_on_error=False
            )

        async def on_lane():
            if get_current_worker().is_cancelled:
                return None
            context = contextvars.copy_context()  # get_current_worker() in `fn` finds this worker
            return await asyncio.get_running_loop().run_in_executor(lane, partial(context.run, fn, *args))

        return self.run_worker(on_lane, name=fn.__name__, group=group, exclusive=exclusive, exit_on_error=False)

    # -- layout -------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield SearchBar(typed=self.search_typed, id="search")
        with Horizontal(id="panes"):
            with Vertical(id="list-pane"):
                yield PaperListView(self.papers.papers, self.look, follow=self.follow_cursor, id="list")
                yield Static(id="empty")
            yield DetailPane(id="detail")
        yield ReadlistFooter()

    def on_mount(self) -> None:
        paper_list = self.query_one(PaperListView)
        paper_list.focus()
        self.apply_layout(self.size.width, self.size.height)
        self.searcher.refresh()
        self.call_after_refresh(self.searcher.start_index)  # after the first paint, which it would slow down

    def on_resize(self, event) -> None:
        self.apply_layout(event.size.width, event.size.height)
        self.call_after_refresh(self.navigator.keep_focus_visible)

    def on_unmount(self) -> None:
        self.finder.stop(quietly=True)  # the app is closing: no request more

    def on_screen_suspend(self) -> None:
        self._focus_before_dialog = self.focused

    def on_screen_resume(self) -> None:  # the terminal may have been resized while a dialog was open
        before, self._focus_before_dialog = getattr(self, "_focus_before_dialog", None), None
        if before is not None:
            self.call_after_refresh(self.navigator.keep_focus_visible, before)

    def watch_maximized(self, maximized) -> None:
        """A maximized widget restored: the panes it hid are shown again, often without a resize event from
        Textual, while what they drew meanwhile was fitted to no width at all."""
        if maximized is None:
            self.call_after_refresh(self.query_one(DetailPane).fit_width)

    def apply_layout(self, width: int, height: int) -> None:
        self.set_class(width < NARROW, "narrow")
        self.set_class(height < SHORT, "short")
        self.apply_list_width()
        footer = self.query_one(ReadlistFooter)
        if footer.show_command_palette != (width >= NARROW):
            footer.compact = width < NARROW
            footer.show_command_palette = width >= NARROW
            footer.refresh(recompose=True)  # the footer draws its palette key only when it composes
        self.query_one(SearchBar).set_width_hint(width)
        self.refresh_header()

    def apply_list_width(self) -> None:
        """The list pane's width as chosen; a narrow screen's list takes the whole width whatever was chosen."""
        chosen = self.list_width if not self.has_class("narrow") else None
        self.query_one("#list-pane").styles.width = f"{chosen}%" if chosen else None

    # -- data shown ---------------------------------------------------------------------------
    def look(self, paper, note=None) -> RowLook:
        """What a row shows besides the title; `note` when the caller already holds the annotation."""
        note = note or self.app.store.get(paper.id)
        marked, source = paper.id in self.view.marked, self.library.source(paper.id)
        return RowLook(note.starred, note.status, note.tags, note.title, marked, source)

    def counts(self) -> Counts:
        read, reading, starred = self.app.store.counts(self.papers.by_id)
        return Counts(len(self.papers), read, reading, starred)

    def refresh_header(self) -> None:
        """The header for the view as it is now: while a search is on its way it names the words typed, saying
        "searching…", and no count (those listed until it answers match older words)."""
        view = self.view
        pending = view.pending
        self.query_one(StatusLine).show(
            self.papers.name,
            self.counts(),
            view.quick_filter,
            view.search_text,
            None if pending else view.matches,
            view.status_note(self.searcher.index is not None),
            0 if pending else view.partial,
            marked=len(view.marked),
            order=view.sort_label(),
            busy=self.finder.progress,
        )

    def refresh_all(self) -> None:
        """Annotations changed: redraw rows, detail and counts."""
        self.query_one(PaperListView).redraw()
        self.refresh_header()
        self.shown_paper.show()
        if self.view.reorders:  # words match notes and tags too, and an order may be by them: the paper may move
            self.view.edited(self.query_one(PaperListView).cursor)  # a paper leaving its place: keep the row
            self.searcher.refresh()

    def found_changed(self, paper_ids: Collection[str] | None = None) -> None:
        """What was found online changed (for `paper_ids`, when known): the same papers in the same places, shown
        with their records as completed now (titles, authors, links), the cursor on its paper."""
        papers = self.app.found_changed(paper_ids)
        if self.library.shown:  # shown again once `in:all` is left
            self.library.own = papers
            return
        self.papers = papers
        self.view.take_papers(papers)
        self.paper_list.take_papers(papers.papers)
        self.refresh_header()
        self.shown_paper.show()
        if self.view.order == "year":  # a year found may move the paper: listed again, the cursor following it
            self.apply_view()

    def show_papers(self, papers: PaperList) -> None:
        """List other papers (every list's for `in:all`, or its own again), those of this list in their places."""
        self.papers = papers
        self.view.take_papers(papers)
        self.paper_list.take_papers(papers.papers)
        self.refresh_header()

    @property
    def paper_list(self) -> PaperListView:
        return self.query_one(PaperListView)

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

    def listed_title(self, paper) -> str:
        """The title the list shows: the user's own, else the paper's (its annotation looked up in the store)."""
        return title_of(paper, self.app.store.get(paper.id))

    # -- the view -------------------------------------------------------------------------------
    def show_view(self) -> None:
        """The search and filter the view state holds now, in the search bar and the list."""
        self.query_one(SearchBar).value = self.view.search_text
        self.searcher.refresh()

    def apply_view(self) -> None:
        """List what the view state says, the cursor where it says."""
        view, paper_list = self.view, self.query_one(PaperListView)
        view.arrange(self.app.store.all)
        positions = view.positions
        keep, row = view.placement(paper_list.current)
        paper_list.set_view(positions, view.spans, view.full_matches, keep=keep, fallback_row=row)
        empty = self.query_one("#empty", Static)
        if not positions:  # an update costs a layout pass: only when the message shows
            empty.update(
                missing_papers_text(self.app.store.orphans()) if view.showing_missing else Text(view.empty_message())
            )
        empty.display = not positions
        paper_list.display = bool(positions)
        if positions and self.focused is None:  # the list lost focus while it was hidden: give it back
            self.navigator.visible_pane().focus()
        self.refresh_header()  # the detail pane follows the list's cursor (follow_cursor)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.worker_failed(event.worker)

    # -- messages from widgets ----------------------------------------------------------------
    def search_typed(self, words: str) -> None:
        """The search bar's words changed (typed, cleared, set): search them, the header saying so at once."""
        if self.view.set_search(words):
            self.searcher.refresh()

    @on(SearchBar.Leave)
    def leave_search(self, event: SearchBar.Leave) -> None:
        """Enter shows the results (the list, also where a narrow screen showed the detail); Esc goes back to
        the pane shown."""
        if event.to_results:
            self.navigator.action_close_detail()
        else:
            self.navigator.visible_pane().focus()

    def on_descendant_focus(self) -> None:
        """Focus never rests on a pane the layout hides (the list behind a narrow screen's detail)."""
        self.navigator.keep_focus_visible()

    def follow_cursor(self, position: int | None) -> None:
        """The list's cursor moved to another paper: show it in the same frame."""
        if self.is_mounted:
            self.shown_paper.show()
        else:  # the first view, set while the screen mounts
            self.call_later(self.shown_paper.show)

    # Esc in the list and in the detail pane: bound by the widgets themselves, not declared in ACTIONS.
    def action_clear_search(self) -> None:
        if self.finder.running:  # what is going on first: a lookup sending requests
            self.finder.stop()
        elif self.view.marked:  # then the marks: they change what the keys act on
            self.marker.clear()
        else:
            self.navigator.action_clear_search()

    def action_close_detail(self) -> None:
        self.navigator.action_close_detail()

    @on(PaperListView.Chosen)
    def chosen(self) -> None:
        self.navigator.action_open_detail()

    @on(DetailPane.Jump)
    def jump(self, event: DetailPane.Jump) -> None:
        self.navigator.jump_to(event.position)


for _action in ACTIONS:  # where Textual looks for a key's action; it runs the one of whoever ACTIONS names
    setattr(MainScreen, f"action_{_action.action}", _action.handed_on())
