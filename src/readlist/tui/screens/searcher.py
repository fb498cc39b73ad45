"""The main screen's searches: the index built after the first paint, and each query of the view state answered in a
worker thread, its result handed back to the screen."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerCancelled, WorkerFailed, get_current_worker

if TYPE_CHECKING:
    from .main import MainScreen


class Searcher:
    """Runs the query the screen's view state holds, off the UI thread, and keeps the search index."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.view = screen.view
        self.index = None  # the search index, built in a worker after the first paint
        self._search: Worker | None = None  # the latest search, whose result the view is waiting for

    def refresh(self) -> None:
        """List what the view state asks for now: every paper at once, else once its search answers."""
        text = self.view.query
        if not text:
            self.screen.library.leave()
            self.view.result = None
            self.screen.apply_view()
            return
        index = self.screen.library.index_for(text)  # every list's for `in:all`
        self.screen.refresh_header()  # the words typed, "searching…" ("indexing…": it runs when the index is ready)
        if index is None:
            return
        self._search = self.screen.run_in_thread(self.run_search, text, index, group="search", exclusive=True)

    async def settled(self) -> None:
        """Wait until the view shows the latest search: a key pressed after a change (a star in an
        `is:starred` view) then acts on the paper selected once the changed one has left the view."""
        while (worker := self._search) is not None and not worker.is_finished:
            with suppress(WorkerCancelled, WorkerFailed):  # replaced by a newer search: wait for that one
                await worker.wait()

    def run_search(self, text: str, index) -> None:
        """Search `text` in `index` (in a worker thread) and hand the result to apply_result."""
        from ...core.search.index import BuildCancelled

        worker = get_current_worker()
        try:
            result = index.search(text, self.screen.app.store.all(), cancelled=worker.cancelled_event)
        except BuildCancelled:  # a newer query took over while titles were derived or texts read (-the)
            return
        if not worker.is_cancelled:
            self.screen.deliver(self.apply_result, text, result)

    def apply_result(self, text: str, result) -> None:
        if self.view.take(text, result):  # else a newer query is on its way
            self.screen.apply_view()

    def start_index(self) -> None:
        self.screen.run_in_thread(self.build_index, group="index", exclusive=True)

    def build_index(self) -> None:
        """The search index, then every derived title (`title:` searches them), both cached on disk (in a worker
        thread)."""
        from ...core.papers import title_cache
        from ...core.search.cache import load_or_build

        worker = get_current_worker()
        papers = self.screen.papers.papers
        titled = title_cache.prime(papers)
        index = load_or_build(papers, cancelled=worker.cancelled_event)
        if worker.is_cancelled:
            return
        self.screen.deliver(self.index_ready, index)
        if not titled:
            titled = title_cache.derive_all(papers, cancelled=worker.cancelled_event)
        if titled and not worker.is_cancelled:
            index.derived_titles()  # what title: searches look up (0.8 s at 100k papers)

    def index_ready(self, index) -> None:
        self.index = index
        if self.view.query:
            self.refresh()
        self.screen.app.index_ready(index)
        position = self.screen.paper_list.current
        if position is not None:
            self.screen.shown_paper.load_related(position)  # the paper shown waited for the index to find its related
