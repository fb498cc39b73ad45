"""The readlist terminal app: wires the core's papers and store to the main screen, and opens another list of the
library in it (`L`)."""

from __future__ import annotations

import asyncio
import gc
import os
from collections.abc import Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from platformdirs import user_downloads_path
from textual import events
from textual.app import App

from ..core.files.cache import refusal_message, refusals
from ..core.files.paths import ui_state_path
from ..core.papers.formats import FORMATS, load_papers
from ..core.papers.paper import PaperList
from ..core.papers.source import ReadError, file_digest, file_state
from ..core.store.annotation import cut_label, title_of
from ..core.store.changes import current_ids
from ..core.store.conflict_copies import ConflictCopies
from ..core.store.drafts import Drafts, drafts_dir
from ..core.store.found import with_found
from ..core.store.lists import key_for
from ..core.store.store import Store
from ..core.text.normalize import strip_control, visible_controls
from . import memory
from .commands import ActionCommands, PaperCommands
from .display import STICKY
from .screens.main import MainScreen
from .state import UiState, load_state, save_state

NOTICE = 30  # seconds a start-up notice that needs no action stays
POLL_SECONDS = 2.0
STATE_SECONDS = 1.0  # the paper, filter and theme are saved once they held still this long (see save_settled_state)
# What each group of background tasks does, as a failure names it.
_TASKS = {
    "search": "The search",
    "index": "Building the search index",
    "related": "Finding related papers",
    "resolve": "Finding papers online",
    "lists": "Opening the list",
    "library": "Reading every list (in:all)",
}

# Before the paper file is read (the command line imports this module first): see memory.py.
memory.loading()


class ReadlistApp(App):
    CSS_PATH = "readlist.tcss"
    TITLE = "readlist"
    COMMANDS = App.COMMANDS | {ActionCommands, PaperCommands}

    def get_system_commands(self, screen):
        """Textual's own commands, but Quit: the palette already lists readlist's (q), which it runs too."""
        return (command for command in super().get_system_commands(screen) if command.title != "Quit")

    def __init__(
        self,
        papers: PaperList,
        db_path: Path,
        store: Store | None = None,
        state_path: Path | None = None,
        cursor_blink: bool = True,
    ) -> None:
        super().__init__()
        self.cursor_blink = cursor_blink
        self.store = store if store is not None else Store(db_path)
        self.file_papers = papers  # as the paper file gives them; `papers` adds what was found online
        self._found = self.store.resolutions()  # what was found online, as `papers` shows it
        self.papers = with_found(papers, self._found)  # titles, authors and links found online
        self.state_path = state_path or ui_state_path(Path(db_path))
        self.state = load_state(self.state_path)
        self.drafts = Drafts(drafts_dir(Path(db_path)))
        self.startup_messages = list(self.store.notices)  # errors: they stay until dismissed
        self._notices_shown = len(self.store.notices)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="readlist-store")
        # One thread each for the work run again and again (see MainScreen.run_in_thread): memory stays flat.
        self.lanes = {
            group: ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"readlist-{group}")
            for group in ("search", "related")
        }
        self._related = None
        self.conflict_copies = ConflictCopies()  # what a sync tool leaves beside the database, merged on each poll
        self._papers_stamp = papers.stamp  # None: not read from a file, or its change already told
        self._papers_digest: bytes | None = None  # of the file's bytes with that stamp, taken on the first poll
        self.background_over = False  # the start's background work (see Searcher.build_index) is over
        # the palette's paper titles, with the users' own titles they were made with (filled on first use)
        self.palette_titles: tuple[frozenset[tuple[str, str]], list[str]] | None = None
        self._state_saved = False
        self._state_written = self._state_seen = self.state  # what the file holds; what the last tick saw
        self._quit_anyway = False
        self._cache_refusals: int | None = len(refusals())  # cache writes refused before; None once one is told
        # Papers live as long as the app: moving them out of the collector's reach keeps full
        # collections (which would walk 100k papers) from stalling key presses.
        gc.freeze()

    def notify(self, message: str, **options) -> None:
        """A notification whose control characters (in a file's name, a damaged database's paper ids) are shown as
        escapes: a toast sends an ESC to the terminal as it is."""
        super().notify(visible_controls(message), **options)

    @property
    def main_screen(self) -> MainScreen:
        return self.get_screen("main") if "main" in self._installed_screens else self.screen

    def on_mount(self) -> None:
        if self.state.theme and self.state.theme in self.available_themes:
            self.theme = self.state.theme
        sort = self.state.sorts.get(self.list_key, "relevance")
        main = MainScreen(self.papers, self.state.filter, self.state.paper, sort, list_width=self.state.list_width)
        self.install_screen(main, "main")
        self.push_screen("main")
        for message in self.startup_messages:
            self.notify(message, severity="error", timeout=STICKY, markup=False)
        for message in self.papers.notices:  # what the paper file's reader left out
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)
        self.call_after_refresh(self.reconcile_at_start)  # after the first paint, which it would slow down
        self.call_after_refresh(self.poll_store, True)  # conflict copies a sync tool left are merged at start
        self.set_interval(POLL_SECONDS, self.poll_store)
        self.set_interval(STATE_SECONDS, self.save_settled_state)

    def action_lists(self) -> None:
        """The lists screen: every list opened with the database, with its progress; Enter opens the one chosen."""
        from .screens.dialogs.lists import ListsScreen

        lists = self.store.progress()
        if not lists:
            self.notify("No list remembered yet: a list is remembered with its first change", timeout=5)
            return
        shown = key_for(self.papers.path, (known.path for known, _ in lists))
        # Pushed from the app's own queue: from the palette, the palette would be the one told of the choice, and it
        # is gone by then.
        self.call_later(self.push_screen, ListsScreen(lists, shown), self.open_list)

    def open_list(self, path: str | None) -> None:
        """Read the list at `path` in the background, then show it (see `show_list`)."""
        if path is None:
            return
        known = self.store.lists().get(path)
        if known is not None and not known.exists:
            self.notify(f"{path} is gone (moved or deleted); its annotations are kept", severity="warning")
            return
        fmt = known.format if known is not None and known.format in FORMATS else None
        self.notify(f"Opening {path}…", timeout=2)
        self.run_worker(
            lambda: self._read_list(path, fmt), thread=True, group="lists", exclusive=True, exit_on_error=False
        )

    def _read_list(self, path: str, fmt: str | None) -> None:
        try:
            papers = load_papers(path, None, fmt)
        except ReadError as exc:
            self.call_from_thread(self.notify, str(exc), severity="error", markup=False)
            return
        self.call_from_thread(self.show_list, papers)

    async def show_list(self, papers: PaperList) -> None:
        """Show another list in place of this one: its papers read again, the store reconciled with them (which
        remembers it as the list opened last), the view as at start (no search, no filter, its own order)."""
        self.save_ui_state()  # the order of the list left
        self.state = self._state_written
        old = self.main_screen
        self.file_papers = papers
        self._found = self.store.resolutions()
        self.papers = with_found(papers, self._found)
        self._papers_stamp, self._papers_digest = papers.stamp, None
        self._related, self.palette_titles = None, None
        while self.screen is not old and len(self.screen_stack) > 1:  # a dialog opened meanwhile
            self.pop_screen()
        sort = self.state.sorts.get(self.list_key, "relevance")
        main = MainScreen(self.papers, "all", None, sort, list_width=old.list_width)
        await self.switch_screen(main)
        self.uninstall_screen("main")
        self.install_screen(main, "main")
        await old.remove()
        self.reconcile()
        for message in papers.notices:
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)

    def offer_drafts(self) -> None:
        """Say which notes were left unsaved last time; a draft follows its paper to a new id when the paper's
        text changed and its annotations were re-attached."""
        papers, store = self.papers, self.store
        ids = self.drafts.ids()
        if any(pid not in papers.by_id for pid in ids):
            moved = current_ids(store.events())
            for pid in ids:
                new = moved.get(pid, pid)
                if new != pid and new in papers.by_id:
                    self.drafts.rename(pid, new)
            ids = self.drafts.ids()
        stranded = [pid for pid in ids if pid not in papers.by_id]
        if stranded:
            where = self.drafts.directory
            message = f"{len(stranded)} unsaved note(s) belong to papers not in this list; kept in {where}"
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)
        waiting = [  # a draft whose note reached the database later says nothing new
            pid for pid in ids if pid in papers.by_id and _draft_text(self.drafts, pid).rstrip() != store.get(pid).note
        ]
        if waiting:
            titles = [title_of(papers.by_id[pid], store.get(pid)) for pid in waiting[:3]]
            names = ", ".join(repr(cut_label(title, 50)) for title in titles)
            more = f" and {len(waiting) - 3} more" if len(waiting) > 3 else ""
            message = f"Unsaved notes kept from last time: {names}{more} — press n on the paper"
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)

    def reconcile(self) -> None:
        for message in self.store.reconcile(self.papers):
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)

    async def reconcile_at_start(self) -> None:
        """Reconcile the store with the list once it is shown, on the writer's thread (0.3 s at 100k annotations:
        the first paint no longer waits for it, and a change made meanwhile is written after it); then offer the
        drafts left unsaved, which may belong to papers it re-attached.

        Until then a paper whose text changed since the last start (its annotations re-attached by this
        reconcile), or whose annotations another readlist re-attached, shows unmarked; the rows are drawn again
        with their marks once it is done, as the notice saying what moved appears. Every other row is right from
        the first paint: nothing else is changed by a reconcile."""
        papers, given = self.papers, self.file_papers
        try:
            messages = await asyncio.get_running_loop().run_in_executor(self._writer, self.store.reconcile, papers)
        except RuntimeError:  # the writer has shut down: the app is closing
            return
        for message in messages:
            self.notify(message, severity="warning", timeout=NOTICE, markup=False)
        if given is not self.file_papers:  # another list opened meanwhile: reconciled with it
            return
        if messages or self.store.shown_as():
            self.main_screen.refresh_all()
        self.offer_drafts()

    async def write(self, fn):
        """Run a store change off the UI thread, in order; report failures without losing the change."""
        loop = asyncio.get_running_loop()
        try:
            result = await loop.run_in_executor(self._writer, fn)
        except Exception as exc:  # a store refusing a change (e.g. a bad value) must not end the app
            self.notify(f"Not saved: {exc}", severity="error", markup=False)
            return None
        if self.store.pending_error:
            self.notify(
                f"{self.store.pending_error} — kept in memory, retrying", severity="error", markup=False, timeout=5
            )
        return result

    async def poll_store(self, at_start: bool = False) -> None:
        """Every few seconds: retry unsaved changes, pick up changes made by another readlist, merge the conflict
        copies a sync tool left beside the database, and notice a changed paper file (not `at_start`: its digest is
        taken on the first poll after that)."""
        loop = asyncio.get_running_loop()
        watched = None if at_start else self._papers_stamp
        try:
            if self.store.pending_error:
                await loop.run_in_executor(self._writer, self.store.flush)
                if not self.store.pending_error:
                    self.notify("All changes saved", timeout=2)
            changed = await loop.run_in_executor(self._writer, self.store.reload_if_changed)
            copies = await loop.run_in_executor(self._writer, self.conflict_copies.merge_into, self.store)
            changed = changed or copies.changed
            if changed:  # read here, off the UI thread: the detail pane and the check below find them read
                await loop.run_in_executor(self._writer, self.store.resolutions)
            state = None
            if watched:
                state = await loop.run_in_executor(self._writer, self._paper_file_state, watched)
        except RuntimeError:  # the writer has shut down: the app is closing
            return
        if state is not None and self._papers_stamp is not None:  # not told by an overlapping poll
            if state[0] == "same":
                self._papers_stamp = state[1]
            else:
                self.paper_file_changed(removed=state[0] == "removed")
        self.tell_cache_refused()
        for message in self.store.notices[self._notices_shown :]:  # e.g. damaged by another program
            self.notify(message, severity="error", timeout=STICKY, markup=False)
        self._notices_shown = len(self.store.notices)
        for line in copies.lines:  # said once: a copy left is remembered as it was
            self.notify(line, severity="warning", timeout=STICKY, markup=False)
        if copies.merged:  # said once: a copy merged is moved away
            self.notify(copies.merged, timeout=NOTICE, markup=False)
        if changed:
            main = self.main_screen
            if self.store.resolutions() != self._found:  # another readlist found papers online: shown here too
                main.found_changed()
                main.searcher.start_index()
            main.refresh_all()

    def tell_cache_refused(self) -> None:
        """Said once, the first time a cache file could not be written (a read-only or full cache directory): what
        it held stays in memory, and the next start makes it again."""
        if self._cache_refusals is None:
            return
        refused = refusals()[self._cache_refusals :]
        if refused:
            self._cache_refusals = None
            self.notify(refusal_message(*refused[0]), severity="warning", timeout=NOTICE, markup=False)

    def _paper_file_state(self, watched: tuple[int, int]) -> tuple[str, tuple[int, int] | None]:
        """The paper file's state (see source.file_state); its bytes' digest is taken on the first poll after the
        start's background work, so that a `touch` alone later is no change. Runs on the writer thread."""
        if self._papers_digest is None:
            if not self.background_over:  # its reading (0.17 s of CPU at 100k papers) would slow the index down
                return file_state(self.papers.path, watched, None)  # meanwhile a new stamp is a change
            self._papers_digest = file_digest(self.papers.path, watched) or b""  # b"": changed before the first poll
        return file_state(self.papers.path, watched, self._papers_digest or None)

    def paper_file_changed(self, removed: bool = False) -> None:
        """Said once: this window keeps the papers it read, while another readlist may move their annotations
        to the new ids of papers whose text changed (which changes written here would then miss)."""
        self._papers_stamp = None
        if removed:
            message = f"{self.papers.path} was removed; this window keeps the papers it read"
        else:
            message = f"{self.papers.path} changed on disk; restart readlist to load it"
        self.notify(message, severity="warning", timeout=STICKY, markup=False)

    def index_ready(self, related) -> None:
        """Related papers over the search index just made; the searcher's worker goes on to measure what they need
        (a lookup meanwhile waits for it)."""
        self._related = related
        gc.freeze()  # the index is long-lived: keep the collector from walking it on every pass

    def worker_failed(self, worker) -> None:
        """A search, the index build or a related-papers lookup that stopped on an error is said in one line, and
        the app keeps running: none of them writes annotations, so notes and marks stay as they are (Textual's
        default, a traceback and quitting, would close an open note dialog)."""
        self.task_failed(worker.group, worker.error)

    def task_failed(self, group: str, error: BaseException) -> None:
        """A background task of `group` (see _TASKS) that stopped on `error`, said in one line until dismissed."""
        what = _TASKS.get(group, "A background task")
        text = " ".join(strip_control(str(error)).split())  # one line, whatever the exception holds
        message = f"{what} stopped on an error ({type(error).__name__}: {cut_label(text, 200)})"
        self.notify(message, severity="error", timeout=STICKY, markup=False)

    def found_changed(self, paper_ids: Collection[str] | None = None) -> PaperList:
        """The papers shown anew with what was found online now (a lookup's result, a match accepted); only those
        of `paper_ids` when they are given and shown as the file gives them (at 100k papers and 10,000 found, made
        again whole, the list takes 0.4 s: too long for every paper a lookup finds)."""
        self._found = found = self.store.resolutions()
        shown, given = self.papers.by_id, self.file_papers.by_id
        if paper_ids is not None and all(shown.get(pid) is given.get(pid) for pid in paper_ids):
            self.papers = with_found(self.papers, {pid: found[pid] for pid in paper_ids if pid in found})
        else:
            self.papers = with_found(self.file_papers, found)
        self.palette_titles = None  # the palette's paper titles are made again from the found ones
        return self.papers

    def related_index(self):
        """Related papers over the search index; None until the index is ready."""
        return self._related if len(self.papers.papers) > 1 else None

    @property
    def list_key(self) -> str:
        """What the UI state knows this paper list by: its file's absolute path."""
        return os.path.abspath(self.papers.path)

    def remember(self) -> UiState:
        main = self.get_screen("main") if "main" in self._installed_screens else None
        paper = main.current_paper if isinstance(main, MainScreen) else None
        sorts = dict(self.state.sorts)
        if isinstance(main, MainScreen):
            sorts.pop(self.list_key, None)
            if main.view.sort != "relevance":  # the default order is not kept: the file stays small
                sorts[self.list_key] = main.view.sort
        return UiState(
            paper=paper.id if paper else self.state.paper,
            filter=main.view.quick_filter if isinstance(main, MainScreen) else self.state.filter,
            theme=self.theme,
            sorts=sorts,
            list_width=main.list_width if isinstance(main, MainScreen) else self.state.list_width,
        )

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """The palette's Screenshot: saved in the downloads directory, or in the current one when there is none
        (Textual's default, the downloads directory alone, fails where it is missing)."""
        if path is None:
            path = str(screenshot_directory())
        return super().deliver_screenshot(filename, path, time_format)

    def on_delivery_failed(self, event: events.DeliveryFailed) -> None:
        """A screenshot that could not be saved says where and why (Textual says only that it failed)."""
        if event.name != "screenshot":
            return
        event.prevent_default()  # Textual's own message would follow
        exc = event.exception
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        reason = getattr(exc, "strerror", None) or exc
        self.notify(f"Screenshot not saved: {where}cannot write ({reason})", severity="error", markup=False)

    async def action_quit(self) -> None:
        from .screens.dialogs.note import NoteScreen

        if isinstance(self.screen, NoteScreen) and self.screen.text != self.screen.original:
            self.screen.action_cancel()  # asks before an unsaved note is thrown away
            return
        self.save_ui_state()
        self._state_saved = True
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._writer, self.store.flush)
        if self.store.pending_error and not self._quit_anyway:
            self._quit_anyway = True
            self.notify(
                f"{self.store.pending_error}. Unsaved changes would be lost: fix the problem and press q "
                "(saved then), or press q again to quit without them",
                severity="error",
                markup=False,
                timeout=STICKY,
            )
            return
        self.exit()

    def save_ui_state(self) -> None:
        try:
            state = self.remember()
        except Exception:  # widgets already gone while shutting down: keep what was saved last
            return
        self._write_state(state)

    def save_settled_state(self) -> None:
        """Save the paper, filter and theme once they held still for a tick, not on `q` only: a killed terminal
        keeps the place. Not at every change: a held `j` changes the paper many times a second."""
        try:
            state = self.remember()
        except Exception:  # widgets being replaced: the next tick looks again
            return
        settled, self._state_seen = state == self._state_seen, state
        if settled and state != self._state_written:
            self._write_state(state)

    def _write_state(self, state: UiState) -> None:
        save_state(self.state_path, state)
        self._state_written = state

    def on_unmount(self) -> None:
        if not self._state_saved:  # the app ended other than by `q` (e.g. ctrl+c)
            self.save_ui_state()
        self._writer.shutdown(wait=True)
        for lane in self.lanes.values():  # a search's or a lookup's result is of no use now
            lane.shutdown(wait=False, cancel_futures=True)


def screenshot_directory() -> Path:
    """The downloads directory, else the current one (else the downloads directory again: saving there fails
    and says where)."""
    downloads = user_downloads_path()
    if downloads.is_dir():
        return downloads
    try:
        return Path.cwd()
    except OSError:  # the current directory was deleted
        return downloads


def _draft_text(drafts: Drafts, paper_id: str) -> str:
    draft = drafts.load(paper_id)
    return draft.text if draft is not None else ""
