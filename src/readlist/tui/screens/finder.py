"""The main screen's lookups online (`F`, the palette): the paper under the cursor, the marked papers or those of the
view found on arXiv and the other sources, as `readlist resolve` finds them, and a possible match accepted (`A`).

Nothing is sent anywhere but by these actions. A lookup runs on a thread of its own, which saves each paper's result
as it arrives and hands it to the screen: the list and the detail pane show it at once, the header counts the papers
(`resolving 3/19`), and the UI never waits on the network. Esc in the list, or `F` again, stops it, keeping what was
found. The thread is a daemon, not one of the app's pools: a request still waiting for its answer must not keep
readlist from quitting (a pool's threads are waited for when the program ends).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ...core.papers.describe import SOURCE_NAMES
from ...core.papers.paper import Paper
from ...core.resolve.records import Resolution, Status
from ...core.resolve.tally import Tally
from ...core.store.annotation import cut_label
from ..display import STICKY
from .marker import marked_count

if TYPE_CHECKING:
    from ...core.resolve.engine import Resolver
    from ...core.resolve.settings import Settings
    from .main import MainScreen

ASK_BEFORE = 20  # more papers than this: the lookup asks first, saying what is sent where and about how long
SUMMARY = 10  # seconds the summary at the end stays


def possible_match(resolution: Resolution | None) -> str:
    """The detail pane's line for a paper whose lookup found only near misses: the best one and its score."""
    if resolution is None or resolution.status is not Status.POSSIBLE or not resolution.candidates:
        return ""
    best, n = resolution.candidates[0], len(resolution.candidates)
    more = f" and {n - 1} more" if n > 1 else ""
    return f"possible match: {best.title} (score {best.score:.2f}){more} — A accepts it"


def source_name(source: str) -> str:
    """'arXiv (with DBLP)' for the source(s) a match came from."""
    first, *others = [SOURCE_NAMES.get(name, name) for name in source.split("+") if name] or [source]
    return first + (f" (with {', '.join(others)})" if others else "")


def sent_where(settings: Settings) -> str:
    """What a lookup sends and to which hosts, in one sentence (the README's table, for these settings)."""
    hosts = {source: urlsplit(settings.base_url(source)).netloc for source in SOURCE_NAMES if settings.enabled(source)}
    searched = [hosts[source] for source in ("arxiv", "s2", "openalex") if source in hosts]
    said = f"phrases of each abstract are sent to {searched[0]}" if searched else "nothing is searched"
    if len(searched) > 1:
        said += f" (then {' and '.join(searched[1:])} when it has no match)"
    if "dblp" in hosts:
        said += f", each title found to {hosts['dblp']}"
    return said


@dataclass
class _Run:
    """One lookup: its resolver (whose `cancel` stops it), what it came to so far, and how many papers it asks for."""

    resolver: Resolver
    total: int
    tally: Tally
    found: int = 0  # papers whose records changed (the search index is made again at the end)
    stopped: bool = False
    thread: threading.Thread | None = field(default=None, repr=False)


class Finder:
    """Looking papers up online in the background, and accepting a possible match."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self._run: _Run | None = None

    @property
    def running(self) -> bool:
        return self._run is not None

    @property
    def progress(self) -> str:
        """What the header says while a lookup runs: 'resolving 3/19', 'stopping 3/19'."""
        run = self._run
        if run is None:
            return ""
        return f"{'stopping' if run.stopped else 'resolving'} {run.tally.done}/{run.total}"

    # -- the actions ----------------------------------------------------------------------------
    def action_find_online(self) -> None:
        """Look up the paper under the cursor, or the marked papers when there are; while a lookup runs, stop it."""
        if self.running:
            self.stop()
            return
        screen = self.screen
        if marked := screen.view.marked_papers():
            self.find(marked, marked_count(len(marked)), retry=False)
            return
        paper = screen.selected_paper()
        if paper is None:
            return
        resolution = screen.app.store.resolutions().get(paper.id)
        if resolution is not None and resolution.match is not None:
            title = cut_label(resolution.match.title, 60)
            message = (
                f"Found before on {source_name(resolution.match.source)}: {title!r} — "
                f"readlist resolve --forget #{paper.index} drops it, to find it again"
            )
            screen.notify(message, markup=False, timeout=6)
            return
        self.find([paper], "this paper", retry=True)  # asked for by name: a miss is asked again at once

    def action_find_view_online(self) -> None:
        """Look up the papers matching the view (not those missing a word), asking first when many."""
        if self.running:
            self.screen.notify("Already finding papers online — Esc in the list stops", timeout=3)
            return
        view = self.screen.view
        papers = [self.screen.papers.papers[position] for position in view.matching()]
        if not papers:
            self.screen.notify("No papers in this view", severity="warning", timeout=2)
            return
        self.find(papers, f"the {len(papers)} papers in the view" if len(papers) != 1 else "the paper in the view")

    async def action_accept_match(self) -> None:
        """Take the paper's possible match as found (several: the one picked in a dialog)."""
        screen = self.screen
        paper = screen.selected_paper()
        if paper is None:
            return
        resolution = screen.app.store.resolutions().get(paper.id)
        if resolution is None or resolution.status is not Status.POSSIBLE or not resolution.candidates:
            screen.notify("No possible match to accept for this paper (F finds it online)", timeout=3)
            return
        if len(resolution.candidates) == 1:
            await self.accept(paper, resolution, 1)
            return
        from .dialogs.candidates import CandidatesScreen

        async def chosen(n: int | None) -> None:
            if n is not None:
                await self.accept(paper, resolution, n)

        screen.app.push_screen(CandidatesScreen(screen.listed_title(paper), resolution.candidates), chosen)

    async def accept(self, paper: Paper, resolution: Resolution, n: int) -> None:
        """Take candidate `n` as the paper's match (as `readlist resolve --accept REF N` does)."""
        accepted = resolution.accept(n)
        app = self.screen.app
        if not await app.write(lambda: app.store.keep_resolutions([accepted]) or True):
            return  # refused: app.write said why
        self.screen.found_changed([paper.id])
        self.screen.searcher.start_index()  # searches see the title accepted
        title = cut_label(accepted.match.title if accepted.match else "", 60)
        self.screen.notify(f"Accepted {title!r} for #{paper.index}", markup=False, timeout=3)

    # -- a lookup -------------------------------------------------------------------------------
    def find(self, papers: Sequence[Paper], which: str, retry: bool = False) -> None:
        """Look up those of `papers` not found yet (with `retry`, also those missed lately), asking first when
        many."""
        from ...core.resolve.settings import Settings, SettingsError

        screen = self.screen
        known = screen.app.store.resolutions()
        todo = [paper for paper in papers if (r := known.get(paper.id)) is None or r.is_due(retry=retry)]
        if not todo:
            screen.notify(
                f"Nothing to look up: {which} {'was' if len(papers) == 1 else 'were'} looked up before "
                "(readlist resolve --retry asks again for those not found)",
                markup=False,
                timeout=5,
            )
            return
        try:
            settings = Settings.from_env()
        except SettingsError as exc:
            screen.notify(f"Cannot find papers online: {exc}", severity="error", markup=False, timeout=STICKY)
            return
        before = len(papers) - len(todo)
        if len(todo) <= ASK_BEFORE:
            self.start(todo, before, settings)
            return
        from .dialogs.confirm import ConfirmScreen

        minutes = max(1, round(len(todo) * settings.min_interval.get("arxiv", 1.0) / 60))
        sent = sent_where(settings)
        question = (
            f"Find {len(todo)} papers online? {sent[:1].upper()}{sent[1:]}. About {minutes} minute"
            f"{'s' if minutes != 1 else ''} (arXiv asks for a pause between requests); Esc in the list stops, "
            "keeping what was found."
        )
        if before:
            question += f" ({before} looked up before are left out.)"

        def confirmed(yes: bool | None) -> None:
            if yes and not self.running:
                self.start(todo, before, settings)

        screen.app.push_screen(ConfirmScreen(question), confirmed)

    def start(self, todo: Sequence[Paper], before: int, settings: Settings) -> None:
        from ...core.resolve.engine import Resolver
        from ...core.store.found import query_for

        screen = self.screen
        notes = screen.app.store.all()
        queries = [query_for(paper, getattr(notes.get(paper.id), "title", None)) for paper in todo]
        run = self._run = _Run(Resolver(settings), len(todo), Tally(before))
        run.thread = threading.Thread(target=self._look_up, args=(run, queries), name="readlist-resolve", daemon=True)
        run.thread.start()
        what = "this paper" if len(todo) == 1 else f"{len(todo)} papers"
        screen.notify(f"Finding {what} online: {sent_where(settings)} — Esc stops", markup=False, timeout=5)
        screen.refresh_header()

    def stop(self, quietly: bool = False) -> None:
        """Stop the lookup at its next request or pause (the paper being looked up is left for the next run); what
        was found is kept, each paper having been saved as it arrived."""
        run = self._run
        if run is None or run.stopped:
            return
        run.stopped = True
        run.resolver.cancel.set()
        if not quietly:
            self.screen.refresh_header()

    def _look_up(self, run: _Run, queries) -> None:
        """The lookup's thread: each paper's resolution saved, then handed to the screen; then the end."""
        from ...core.store.found import look_up

        error: BaseException | None = None
        try:
            store = self.screen.app.store
            for resolution in look_up(store, run.resolver, queries):
                store.resolutions()  # read here, not on the UI thread that shows them (0.4 s at 10,000)
                self.screen.deliver(self._arrived, run, resolution)
        except Exception as exc:  # the database cannot be written (OSError, Timeout), or a bug: said in one line
            error = exc
        finally:
            run.resolver.close()
            self.screen.deliver(self._ended, run, error)

    def _arrived(self, run: _Run, resolution: Resolution) -> None:
        run.tally.add(resolution)
        if resolution.status is Status.FOUND:
            run.found += 1
            self.screen.found_changed([resolution.paper_id])
        else:
            self.screen.refresh_header()
            if self.screen.current_paper is not None and self.screen.current_paper.id == resolution.paper_id:
                self.screen.shown_paper.show()  # a possible match, shown under its title

    def _ended(self, run: _Run, error: BaseException | None) -> None:
        from filelock import Timeout

        screen = self.screen
        if self._run is run:
            self._run = None
        screen.refresh_header()
        if run.found:
            screen.searcher.start_index()  # the index made again over the titles found: searches find them
        for line in run.tally.problem_lines(run.resolver.given_up()):  # one per host, until dismissed
            screen.notify(line, severity="error", markup=False, timeout=STICKY)
        if isinstance(error, Timeout):
            message = f"{screen.app.store.path}: locked by another readlist; what was found so far is saved"
            screen.notify(message, severity="error", markup=False, timeout=STICKY)
        elif isinstance(error, OSError):
            message = f"Finding papers online stopped: {error}; what was found before is kept"
            screen.notify(message, severity="error", markup=False, timeout=STICKY)
        elif error is not None:
            screen.app.task_failed("resolve", error)
        summary = run.tally.summary()
        if run.stopped and run.tally.done < run.total:
            summary = f"Stopped: {summary} · {run.total - run.tally.done} left (F or the palette goes on)"
        screen.notify(summary, markup=False, timeout=SUMMARY)
