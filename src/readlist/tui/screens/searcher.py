"""The main screen's searches: the index built after the first paint, and each query of the view state answered in a
worker thread, its result handed back to the screen (before the index is ready, by a pass over the papers' texts)."""

from __future__ import annotations

import os
import threading
import time
from contextlib import suppress
from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerCancelled, WorkerFailed, get_current_worker

# What the index's worker runs, imported with this module, before the first paint (35 ms of CPU): imported in the
# worker while the UI handled the keys typed at start, the same modules took 140-180 ms, each file read giving the
# interpreter away and waiting to get it back; imported on the UI thread after the first paint, they held it 60 ms.
from ...core.papers import title_cache
from ...core.search import cache as index_cache
from ...core.search.index import BuildCancelled
from ...core.search.related import RelatedIndex
from ...core.search.scan import scan
from .. import memory
from .library import everywhere

if TYPE_CHECKING:
    from .main import MainScreen

TITLES_AHEAD = 20_000  # papers: a list this small has every title derived in the background (2 s at most)
# The cached index is read from the file mapped in memory where a file mapped can still be replaced (a newer index
# cached by another run) and removed (pruned): not on Windows.
MAPPED = os.name == "posix"
ANSWER_WAIT = 2.0  # seconds the background work waits at most for the index's first answer (see build_index)


class Searcher:
    """Runs the query the screen's view state holds, off the UI thread, and keeps the search index."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.view = screen.view
        self.index = None  # the search index, built in a worker after the first paint
        # Until the index is known to be built anew, it may be opened from the cache in a moment (0.2 s at 100k
        # papers): a query then waits for it rather than read every paper's text meanwhile, which would slow the
        # opening down for an answer of its own that comes no sooner.
        self.opening = True
        self._search: Worker | None = None  # the latest search, whose result the view is waiting for
        # Set once the view shows the index's answer to the words typed while it opened, or there were none.
        self.answered = threading.Event()

    def refresh(self) -> None:
        """List what the view state asks for now: every paper at once, else once its search answers."""
        text = self.view.query
        if not text:
            self.screen.library.leave()
            self.view.result = None
            self.screen.apply_view()
            if self.index is not None:
                self.answered.set()  # no words left to answer
            return
        index = self.screen.library.index_for(text)  # every list's for `in:all`
        self.screen.refresh_header()  # the words typed, "searching…" ("indexing…" until the index answers)
        if index is None and (everywhere(text) or self.opening):
            return  # the index is opened, or every list read and indexed, first; the search runs once it is
        self._search = self.screen.run_in_thread(self.run_search, text, index, group="search", exclusive=True)

    async def settled(self) -> None:
        """Wait until the view shows the latest search: a key pressed after a change (a star in an
        `is:starred` view) then acts on the paper selected once the changed one has left the view."""
        while (worker := self._search) is not None and not worker.is_finished:
            with suppress(WorkerCancelled, WorkerFailed):  # replaced by a newer search: wait for that one
                await worker.wait()

    def run_search(self, text: str, index) -> None:
        """Search `text` in `index` (in a worker thread) and hand the result to apply_result; before the index is
        ready (None), the papers' texts are read for its words (a partial result: the index's answer follows)."""
        worker = get_current_worker()
        try:
            if index is not None:
                result = index.search(text, self.screen.app.store.all(), cancelled=worker.cancelled_event)
            else:
                result = scan(self.screen.papers.papers, text, cancelled=worker.cancelled_event)
        except BuildCancelled:  # a newer query took over while titles were derived or texts read (-the)
            return
        if not worker.is_cancelled:  # None: a query only the index answers lists every paper until it does
            self.screen.deliver(self.apply_result, text, result)

    def apply_result(self, text: str, result) -> None:
        if self.view.take(text, result):  # else a newer query is on its way
            self.screen.apply_view()
            if self.index is not None and not getattr(result, "partial", False):
                self.answered.set()

    def start_index(self) -> None:
        self.answered.clear()
        self.screen.run_in_thread(self.build_index, group="index", exclusive=True)

    def build_index(self) -> None:
        """The background work, in the order that serves a user first (in a worker thread, each step stopped when
        the app quits): the search index, from the cache or built in worker processes; then the papers' vector
        lengths that related papers need; then the derived titles a `title:` search reads, from the cache, or for
        a list of less than TITLES_AHEAD papers derived (a bigger list derives the titles of the rows it shows, and
        a `title:` search those it checks)."""
        try:
            self._background()
        except Exception:  # said by the worker's error handler: the work is over all the same
            self.screen.app.background_over = True
            raise

    def _background(self) -> None:
        worker = get_current_worker()
        cancelled = worker.cancelled_event
        papers = self.screen.papers.papers
        try:
            try:
                index = index_cache.load_or_build(
                    papers, cancelled=cancelled, building=self.building, save_later=True, mapped=MAPPED
                )
            except BaseException:
                self.building()  # a query waiting for the index is answered from the texts (and the error said)
                raise
            if worker.is_cancelled:  # read whole from the cache meanwhile: of no use now (a new one kept for next time)
                index_cache.save_built(index)
                return
            related = RelatedIndex(index)
            self.screen.deliver(self.index_ready, index, related)
            self._wait_for_answer(cancelled)
            index_cache.save_built(index)  # a new index is cached once it answered (0.13 s at 100k papers)
            index.term_ids.whole()  # what the next searches look their words up in (16 ms at 100k: not by the first)
            self.screen.app.store.all()  # what every search reads (0.7 s for 100k annotations): not by the first
            related.lengths(cancelled)
        except BuildCancelled:  # the app is closing, or a new index was asked for
            return
        titled = title_cache.prime(papers)
        if not titled and len(papers) < TITLES_AHEAD:
            titled = title_cache.derive_all(papers, cancelled=cancelled)
        if titled and not worker.is_cancelled:
            index.derived_titles()  # what title: searches look up (0.8 s at 100k papers)
        memory.loaded()
        self.screen.app.background_over = True
        self.screen.deliver(self.screen.app.tell_cache_refused)  # a cache not saved is said now, not at a poll

    def _wait_for_answer(self, cancelled: threading.Event) -> None:
        """Wait (in the index's worker thread) until the view shows the index's answer to the words typed while it
        opened, for ANSWER_WAIT seconds at most: the rest of the background work shared the interpreter with that
        search, which took twice its CPU time to answer (0.1 s for 'graph neural network' at 100k papers)."""
        deadline = time.monotonic() + ANSWER_WAIT
        while not self.answered.wait(0.02):
            if cancelled.is_set() or time.monotonic() > deadline:
                return

    def building(self) -> None:
        """The index is built anew, which takes a while: a query waiting for it is answered from the papers' texts
        meanwhile (called from the index's worker thread, which goes on to the build at once: waiting for the UI,
        busy with the first paint's end and the keys typed, held the build's start 50-65 ms at 100k papers)."""
        if self.opening:
            self.opening = False
            self.screen.deliver(self._answer_waiting, wait=False)

    def _answer_waiting(self) -> None:
        if self.index is None and self.view.pending:
            self.refresh()

    def index_ready(self, index, related) -> None:
        self.index = index
        self.opening = False
        if self.view.query:
            self.refresh()
        else:
            self.answered.set()  # no words to answer: the background work goes on at once
        self.screen.app.index_ready(related)
        position = self.screen.paper_list.current
        if position is not None:
            self.screen.shown_paper.load_related(position)  # the paper shown waited for the index to find its related
