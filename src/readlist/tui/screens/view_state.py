"""The main screen's view state, apart from any widget: the search words, the quick filter, the last search's result,
the paper to select next and the view a jump left, with what follows from them (the query run, the papers listed, where
the cursor goes, what an empty view says). Plain Python: tests drive it without running the app."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...core.papers.paper import Paper, PaperList
from ...core.text.normalize import quoted

FILTERS = ("all", "unread", "reading", "read", "starred")


@dataclass(frozen=True)
class ViewBefore:
    """The view a jump to a paper outside it left: its search, filter and selected paper."""

    search: str
    quick_filter: str
    paper: Paper | None

    def describe(self) -> str:
        """'Search 'gnn' and the starred filter', for the message saying they were cleared."""
        parts = [f"Search {quoted(self.search.strip())}"] if self.search.strip() else []
        if self.quick_filter != "all":
            parts.append(f"the {self.quick_filter} filter")
        return " and ".join(parts) if parts else "The view"


class ViewState:
    """What the main screen lists and why. The screen runs the searches and draws; this decides."""

    def __init__(self, papers: PaperList, quick_filter: str = "all", paper_id: str | None = None) -> None:
        self.papers = papers
        self.search_text = ""  # as typed in the search bar
        self.quick_filter = quick_filter if quick_filter in FILTERS else "all"
        self.result = None  # the search result listed (a SearchResult); None while no query is set
        self.pending_select: str | None = paper_id  # the paper to select once the coming view is shown
        self.stay_row: int | None = None  # the row to keep when the paper under the cursor leaves the view
        self.shown_search = ""  # the search words of the view shown: new words put the best match first
        self.before_jump: ViewBefore | None = None  # what Esc in the list brings back after a jump

    # -- what the user asked for ----------------------------------------------------------------
    @property
    def query(self) -> str:
        """The search words and the quick filter as one query; empty: every paper, no search needed."""
        extra = {"all": "", "starred": "is:starred"}.get(self.quick_filter, f"is:{self.quick_filter}")
        return f"{self.search_text} {extra}".strip()

    def set_search(self, text: str) -> bool:
        """New search words; True when they changed (the view is then the user's own: Esc no longer goes back
        past it)."""
        if text == self.search_text:
            return False
        self.search_text, self.before_jump = text, None
        return True

    def next_filter(self) -> str:
        """The quick filter after the current one, cycling; the view is the user's own then."""
        self.quick_filter = FILTERS[(FILTERS.index(self.quick_filter) + 1) % len(FILTERS)]
        self.before_jump = None
        return self.quick_filter

    def show(self, search: str, quick_filter: str, paper: Paper | None) -> None:
        """Search and filter anew, selecting `paper` (None: the best match) once the view is shown."""
        self.pending_select = paper.id if paper is not None else None
        self.search_text, self.quick_filter, self.before_jump = search, quick_filter, None

    def jump(self, paper: Paper, current: Paper | None) -> ViewBefore:
        """Clear the search and filter to show `paper`, keeping the view left (and `current`, its selected paper)
        for `back`."""
        before = ViewBefore(self.search_text, self.quick_filter, current)
        self.show("", "all", paper)
        self.before_jump = before
        return before

    def back(self) -> bool:
        """The search and filter a jump cleared, again, on the paper that was selected; False when none."""
        before, self.before_jump = self.before_jump, None
        if before is None:
            return False
        self.show(before.search, before.quick_filter, before.paper)
        return True

    # -- the search's answer --------------------------------------------------------------------
    def take(self, text: str, result) -> bool:
        """The result of searching `text`; False (and not taken) when a newer query is on its way."""
        if text != self.query:
            return False
        self.result = result
        return True

    @property
    def matches(self) -> int | None:
        """Papers matching every word; None without a search."""
        if self.result is None:
            return None
        full = self.result.full_matches
        return full if full is not None else len(self.result.positions)

    @property
    def partial(self) -> int:
        """Papers missing a word, listed after the full matches."""
        return 0 if self.result is None else len(self.result.positions) - self.matches

    @property
    def error(self) -> str | None:
        return None if self.result is None else self.result.error

    @property
    def showing_missing(self) -> bool:
        """`is:missing`: the view lists annotations of papers no longer in the file, not papers."""
        return self.result is not None and self.result.missing

    # -- what is shown --------------------------------------------------------------------------
    @property
    def positions(self) -> Sequence[int]:
        """The papers listed, in order: all of them until a search answers."""
        return self.result.positions if self.result is not None else range(len(self.papers.papers))

    @property
    def full_matches(self) -> int | None:
        return self.result.full_matches if self.result is not None else None

    @property
    def spans(self) -> Callable[[str], list[tuple[int, int]]] | None:
        """What to highlight in a title or abstract: the search words' matches (a filter alone highlights none)."""
        return self.result.spans if self.result is not None and self.search_text.strip() else None

    def matching(self) -> Sequence[int]:
        """The papers listed that match the whole search (not those listed below the divider)."""
        positions, full = self.positions, self.full_matches
        return positions if full is None or full >= len(positions) else positions[:full]

    def placement(self, current: int | None) -> tuple[int | None, int]:
        """Where the cursor goes in the view about to be listed, `current` being the paper under it now: the paper
        to keep when it is listed, else the row. A paper asked for (a jump, the one selected last time) wins; new
        search words start at their best match; after an edit the same row stays."""
        words = self.search_text.strip()
        new_words, self.shown_search = bool(words) and words != self.shown_search, words
        keep = None if new_words else current
        if self.pending_select is not None:
            paper = self.papers.by_id.get(self.pending_select)
            keep = paper.index - 1 if paper else keep
            self.pending_select = None
        row, self.stay_row = self.stay_row or 0, None
        return keep, row

    def status_note(self, indexed: bool) -> str:
        """What the status line adds: the search's error, or that the search waits for the index."""
        note = f"⚠ {self.error}" if self.error else ""
        if not indexed and (self.search_text.strip() or self.quick_filter != "all"):
            note = note or "indexing…"
        return note

    def empty_message(self) -> str:
        """What the detail pane says when no paper is listed."""
        if not self.papers.papers:
            return f"No papers in {self.papers.path} — add abstracts separated by blank lines."
        if self.showing_missing:
            return "Annotations of papers no longer in the file are listed on the left — Esc clears the search"
        if self.error:
            return f"{self.error} — Esc clears the search"
        words = self.search_text.strip()
        if words and self.quick_filter != "all":  # the filter may be what hides the matches
            return f"No {self.quick_filter} papers match '{words}' — Esc clears the search, f changes the filter"
        if words:
            return f"No papers match '{words}' — Esc clears the search"
        if self.quick_filter != "all":
            return f"No {self.quick_filter} papers — press f to change the filter"
        return ""
