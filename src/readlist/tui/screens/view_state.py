"""The main screen's view state, apart from any widget: the search words, the quick filter, the order, the last
search's result, the marked papers, the paper to select next and the view a jump left, with what follows from them (the
query run, the papers listed and in what order, where the cursor goes, what an empty view says). Plain Python: tests
drive it without running the app."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from ...core.papers.paper import Paper, PaperList
from ...core.search.absent_fields import absent_fields_hint
from ...core.text.normalize import quoted

FILTERS = ("all", "unread", "reading", "read", "starred")
# The orders `S` cycles through, as the header names them. Relevance is offered only while searching, year only
# when the list's papers have years; relevance is the default: the file's order until a search ranks the papers.
SORTS = {
    "file": "file order",
    "relevance": "relevance",
    "status": "status",
    "starred": "starred first",
    "changed": "recently changed",
    "year": "year",
}
HISTORY = 100  # views kept for going back (backspace) after jumps to related papers
BY_ANNOTATIONS = ("status", "starred", "changed")  # orders an annotation change can move a paper in
STATUS_RANK = {"reading": 0, "unread": 1, "read": 2}  # what is being read first, what is done last


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

    def __init__(
        self, papers: PaperList, quick_filter: str = "all", paper_id: str | None = None, sort: str = "relevance"
    ) -> None:
        self.papers = papers
        self.search_text = ""  # as typed in the search bar
        self.quick_filter = quick_filter if quick_filter in FILTERS else "all"
        self.sort = sort if sort in SORTS else "relevance"  # as chosen; `order` is the one listed
        self.marked: dict[str, None] = {}  # ids of the papers marked, in the order marked (kept across searches)
        self.result = None  # the search result listed (a SearchResult); None while no query is set
        self._arranged: tuple[object, str, list[int]] | None = None  # the result and order arranged, in order
        self.hold_row = False  # the coming view keeps the cursor's row, not its paper (see `edited`)
        self.pending_select: str | None = paper_id  # the paper to select once the coming view is shown
        self.stay_row: int | None = None  # the row to keep when the paper under the cursor leaves the view
        self.shown_search = ""  # the search words of the view shown: new words put the best match first
        self.placed_partial: int | None = None  # the paper a partial answer was listed on (see `placement`)
        self.before_jump: ViewBefore | None = None  # what Esc in the list brings back after a jump
        self.history: list[ViewBefore] = []  # the views jumps left, the latest last: backspace goes back to it

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

    def went_from(self, current: Paper | None) -> ViewBefore:
        """A jump leaves this view, on `current`: kept in the history (the oldest dropped past HISTORY)."""
        before = ViewBefore(self.search_text, self.quick_filter, current)
        self.history = [*self.history[1 - HISTORY :], before]
        return before

    def jump(self, paper: Paper, current: Paper | None) -> ViewBefore:
        """Clear the search and filter to show `paper`, keeping the view left (and `current`, its selected paper)
        for `back` and in the history."""
        before = self.went_from(current)
        self.show("", "all", paper)
        self.before_jump = before
        return before

    def back(self) -> bool:
        """The search and filter a jump cleared, again, on the paper that was selected; False when none."""
        before, self.before_jump = self.before_jump, None
        if before is None:
            return False
        if self.history and self.history[-1] is before:  # gone back to: no longer ahead in the history
            self.history.pop()
        self.show(before.search, before.quick_filter, before.paper)
        return True

    def take_papers(self, papers: PaperList) -> None:
        """The same papers, in the same places, with other records (what was found online): years may be new."""
        self.papers = papers
        self.__dict__.pop("has_years", None)

    def go_back(self) -> ViewBefore | None:
        """The view the latest jump left, again: its search, filter and selected paper; None when no jump is left
        to go back from."""
        if not self.history:
            return None
        before = self.history.pop()
        self.show(before.search, before.quick_filter, before.paper)
        return before

    # -- the order ------------------------------------------------------------------------------
    @cached_property
    def has_years(self) -> bool:
        return any(paper.year for paper in self.papers.papers)

    @property
    def searching(self) -> bool:
        return bool(self.search_text.strip())

    def sorts(self) -> list[str]:
        """The orders offered now: relevance while searching, year when the list has years."""
        return [
            name for name in SORTS if (name != "relevance" or self.searching) and (name != "year" or self.has_years)
        ]

    @property
    def order(self) -> str:
        """The order the papers are listed in: the one chosen, else (not offered now) the file's. Whether the list
        has years is looked at only for the year order: the header asks at start, and 100k papers without a year
        take 0.05 s to look through."""
        sort = self.sort
        if sort == "year":
            offered = self.has_years
        else:
            offered = sort in SORTS and (sort != "relevance" or self.searching)
        return sort if offered else "file"

    @property
    def natural(self) -> str:
        """The order a view has unless another is chosen: relevance while searching, else the file's."""
        return "relevance" if self.searching else "file"

    def next_sort(self) -> str:
        """The order after the one listed, among those offered now, cycling; the one listed now is returned."""
        offered = self.sorts()
        self.sort = offered[(offered.index(self.order) + 1) % len(offered)]
        if self.sort == "file" and not self.searching:  # back round to the default: a later search ranks again
            self.sort = "relevance"
        return self.order

    def sort_label(self) -> str:
        """What the header says of the order: nothing for the view's natural one."""
        return "" if self.order == self.natural else SORTS[self.order]

    def arrange(self, notes: Callable[[], Mapping[str, object]]) -> None:
        """Put the papers listed in the order chosen, `notes()` giving the annotations by paper id (what the status,
        star and last change are read from; asked only for an order that needs them). Full matches stay above the
        papers missing a word, each part sorted on its own; ties keep the search's order."""
        self._arranged = None
        order, listed = self.order, self._listed
        if order == "relevance" or (order == "file" and self.result is None):
            return  # listed so already
        key = self._key(order, notes() if order in BY_ANNOTATIONS else {})
        full = self._full
        cut = len(listed) if full is None else min(full, len(listed))
        self._arranged = (self.result, order, sorted(listed[:cut], key=key) + sorted(listed[cut:], key=key))

    def _key(self, order: str, notes: Mapping[str, object]) -> Callable[[int], object]:
        """Each position's sort key for `order`; papers without annotations share one, so only annotated ones are
        looked up (a 100k list is sorted in a blink)."""
        papers = self.papers.papers
        if order == "file":
            return lambda position: position
        if order == "year":
            return lambda position: -(papers[position].year or 0)  # newest first, those without a year last
        by_id = self.papers.by_id
        listed = [(by_id[pid].index - 1, note) for pid, note in notes.items() if pid in by_id]
        if order == "changed":  # the latest change first (ISO times sort as text), papers never changed last
            times = sorted({note.updated for _, note in listed if note.updated}, reverse=True)
            newest = {time: n for n, time in enumerate(times)}
            rank, default = {pos: newest.get(note.updated, len(times)) for pos, note in listed}, len(times)
        else:
            rank, default = {pos: _rank(order, note) for pos, note in listed}, _rank(order, None)
        return lambda position: rank.get(position, default)

    @property
    def _listed(self) -> Sequence[int]:
        return self.result.positions if self.result is not None else range(len(self.papers.papers))

    @property
    def _full(self) -> int | None:
        return self.result.full_matches if self.result is not None else None

    def edited(self, row: int) -> None:
        """Annotations changed, the cursor on `row`: the coming view keeps that row (the next paper comes up there)
        when the paper leaves the view, or when the order chosen moves it."""
        self.stay_row = row
        self.hold_row = self.order in BY_ANNOTATIONS

    @property
    def reorders(self) -> bool:
        """Whether an annotation change can change what is listed, or in what order."""
        return bool(self.query) or self.order in BY_ANNOTATIONS

    # -- marks -----------------------------------------------------------------------------------
    def toggle_mark(self, paper: Paper) -> bool:
        """Mark the paper, or unmark it when it is; True when it is marked now."""
        if paper.id in self.marked:
            del self.marked[paper.id]
            return False
        self.marked[paper.id] = None
        return True

    def mark(self, papers: Iterable[Paper]) -> int:
        """Mark these papers; how many were not marked yet."""
        before = len(self.marked)
        self.marked.update(dict.fromkeys(paper.id for paper in papers))
        return len(self.marked) - before

    def clear_marks(self) -> int:
        """Unmark every paper; how many were marked."""
        count, self.marked = len(self.marked), {}
        return count

    def marked_papers(self) -> list[Paper]:
        """The marked papers of this list, in the file's order (what the keys acting on marks act on)."""
        by_id = self.papers.by_id
        return sorted((by_id[pid] for pid in self.marked if pid in by_id), key=lambda paper: paper.index)

    # -- the search's answer --------------------------------------------------------------------
    def take(self, text: str, result) -> bool:
        """The result of searching `text`; False (and not taken) when a newer query is on its way."""
        if text != self.query:
            return False
        self.result = result
        return True

    @property
    def pending(self) -> bool:
        """A search is on its way: the result listed, if any, answers older words (or another filter)."""
        query = self.query
        return bool(query) and (self.result is None or self.result.query != query)

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
        """The papers listed, in order: all of them until a search answers, in the order last arranged."""
        arranged = self._arranged
        if arranged is not None and arranged[0] is self.result and arranged[1] == self.order:
            return arranged[2]
        return self._listed

    @property
    def full_matches(self) -> int | None:
        return self._full

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
        # The index's answer to the words a pass over the texts answered first starts at its best match too, unless
        # the cursor was moved in that first answer meanwhile.
        untouched, self.placed_partial = current is not None and current == self.placed_partial, None
        keep = None if new_words or untouched or self.hold_row else current
        self.hold_row = False
        if self.pending_select is not None:
            paper = self.papers.by_id.get(self.pending_select)
            keep = paper.index - 1 if paper else keep
            self.pending_select = None
        row, self.stay_row = self.stay_row or 0, None
        if keep is None and getattr(self.result, "partial", False) and row < len(self.positions):
            self.placed_partial = self.positions[row]
        return keep, row

    def status_note(self, indexed: bool) -> str:
        """What the status line adds: the search's error, or that the search is on its way (waiting for the index
        first), or that its answer is not the index's yet (a pass over the texts). An older query's error is not
        this one's."""
        if self.pending:
            return "searching…" if indexed else "indexing…"
        if self.error:
            return f"⚠ {self.error}"
        return "indexing…" if not indexed and (self.search_text.strip() or self.quick_filter != "all") else ""

    def empty_message(self) -> str:
        """What the detail pane says when no paper is listed."""
        if not self.papers.papers:
            return f"No papers in {self.papers.path} — add abstracts separated by blank lines."
        if self.showing_missing:
            return "Annotations of papers no longer in the file are listed on the left — Esc clears the search"
        if self.error:
            return f"{self.error} — Esc clears the search"
        words = self.search_text.strip()
        if words and (absent := absent_fields_hint(words, self.papers.papers)):
            return f"No papers match '{words}': {absent} — Esc clears the search"
        if words and self.quick_filter != "all":  # the filter may be what hides the matches
            return f"No {self.quick_filter} papers match '{words}' — Esc clears the search, f changes the filter"
        if words and self.result is not None and self.result.partial:  # the papers' texts answered, not the index
            return f"No paper holds '{words}' as typed — typos and other word forms match once the index is ready"
        if words:
            return f"No papers match '{words}' — Esc clears the search"
        if self.quick_filter != "all":
            return f"No {self.quick_filter} papers — press f to change the filter"
        return ""


def _rank(order: str, note) -> object:
    """A paper's sort key in an order by status or star, read from its annotation (None: a paper without one)."""
    if order == "status":
        return STATUS_RANK.get(getattr(note, "status", "unread"), 1)
    return not getattr(note, "starred", False)  # "starred"
