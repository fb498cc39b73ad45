"""`in:all` in the search bar: the main screen searches every list opened with the database. The papers of the other
lists are read (see `core.store.library`: from the cache of parsed lists when it has them) and indexed once, in a
worker, the first time `in:all` is typed; while the query holds it, the screen lists those papers (this list's first,
in their places, so the cursor stays on its paper), each row naming its list, and every key acts on the paper under
the cursor as in the list itself (annotations are kept by paper id). Without `in:all` the screen lists its own
papers again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import get_current_worker

from ...core.search.query import QueryError, parse

if TYPE_CHECKING:
    from ...core.store.library import Library
    from .main import MainScreen


def everywhere(text: str) -> bool:
    """Whether the query asks for every list (`in:all`); a query that does not parse does not."""
    try:
        return parse(text).everywhere
    except QueryError:
        return False


class LibrarySearch:
    """Every list's papers and their index for the main screen, and which papers it shows: its own or every list's."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.library: Library | None = None
        self.index = None  # the library's search index, once built
        self.own = None  # the screen's own papers while every list's are shown
        self._sources: dict[str, str] = {}  # paper id -> the name of its list
        self._reading = False

    @property
    def shown(self) -> bool:
        return self.own is not None

    def index_for(self, text: str):
        """The index to search `text` with, the screen showing the papers it holds; None while every list is read
        (the search runs once it is indexed)."""
        if not everywhere(text):
            self.leave()
            return self.screen.searcher.index
        if self.index is None:
            self.start()
            return None
        self.enter()
        return self.index

    def source(self, paper_id: str) -> str | None:
        """The name of the list a row's paper comes from, while every list is shown."""
        if not self.shown or self.library is None:
            return None
        return self._sources.get(paper_id)

    def start(self) -> None:
        if not self._reading:
            self._reading = True
            self.screen.notify("Reading every list for in:all…", timeout=3)
            self.screen.run_in_thread(self.read, group="library")

    def read(self) -> None:
        """Every list's papers and their index (in a worker thread), handed to `ready`."""
        from ...core.search.cache import load_or_build

        worker = get_current_worker()
        from ...core.store.library import every_list

        library = every_list(self.screen.app.store, self.screen.app.file_papers)
        index = load_or_build(library.papers.papers, cancelled=worker.cancelled_event)
        if not worker.is_cancelled:
            self.screen.deliver(self.ready, library, index)

    def ready(self, library: Library, index) -> None:
        self.library, self.index, self._reading = library, index, False
        self._sources = {paper.id: name for paper, name in zip(library.papers.papers, library.sources, strict=True)}
        for problem in library.problems:
            self.screen.notify(problem, severity="warning", markup=False)
        self.screen.searcher.refresh()

    def enter(self) -> None:
        """List every list's papers (this list's first, in their places)."""
        if self.shown or self.library is None:
            return
        self.own = self.screen.papers
        self.screen.show_papers(self.library.papers)

    def leave(self) -> None:
        """List the screen's own papers again."""
        if not self.shown:
            return
        own, self.own = self.own, None
        self.screen.view.result = None  # its places were among every list's papers
        self.screen.show_papers(own)
