"""Shared state of one CLI invocation: which files, loaded on demand, and how errors leave."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from ..core.store.annotation import Annotation
    from ..core.store.store import Store

from ..core.files.paths import bundled_papers, default_db_path
from ..core.papers.formats import load_papers
from ..core.papers.paper import PaperList
from ..core.papers.reader import ReadError
from ..core.papers.refs import RefError, resolve
from ..core.text.normalize import visible_controls
from . import progress

EXIT_USAGE = 2


MESSAGE_MAX = 400  # characters of an error line; a huge argument quoted in it is cut in the middle


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr, a non-zero exit, no traceback."""
    if len(message) > MESSAGE_MAX:
        message = f"{message[: MESSAGE_MAX - 120]} … {message[-100:]}"
    warn(message)
    sys.exit(code)


def warn(message: str) -> None:
    """A line on stderr; control characters in it (a file's name, a damaged database's ids) shown as escapes."""
    progress.current().echo_err(f"readlist: {visible_controls(message)}")


@dataclass
class Context:
    papers_path: str | None = None
    db_path: str | None = None
    encoding: str | None = None
    papers_format: str | None = None  # a formats.FORMATS name; None: from the file's extension or content
    notices: list[str] = field(default_factory=list)

    @property
    def papers_file(self) -> Path:
        return Path(self.papers_path).expanduser() if self.papers_path else bundled_papers()

    @property
    def db_file(self) -> Path:
        return Path(self.db_path).expanduser() if self.db_path else default_db_path()

    @cached_property
    def paper_list(self) -> PaperList:
        """The papers as the file gives them, with what `readlist resolve` found (when there is a database)."""
        papers = self.file_papers
        if not self.db_file.exists():  # reading papers never makes a database
            return papers
        from ..core.store.found import with_found

        return with_found(papers, self.store.resolutions())

    @cached_property
    def file_papers(self) -> PaperList:
        """The papers as the file gives them."""
        try:
            with progress.current().doing(f"reading {self.papers_file.name}"):
                papers = load_papers(self.papers_file, self.encoding, self.papers_format)
        except ReadError as exc:
            fail(str(exc))
        if papers.duplicates:
            what = "paragraph" if papers.format == "text" else "record"
            warn(f"{self.papers_file}: dropped {papers.duplicates} duplicate {what}(s)")
        for notice in papers.notices:
            warn(notice)
        return papers

    @cached_property
    def bare_store(self) -> Store:
        """The annotation database, with the conflict copies a sync tool left beside it merged in, not reconciled
        with a paper list (the paper file is not read); notices go to stderr."""
        from ..core.store.conflict_names import conflict_copies
        from ..core.store.store import Store

        with progress.current().doing(f"reading {self.db_file.name}"):
            store = Store(self.db_file)
            if store.blocked:  # nothing this command says about annotations would be true
                fail(store.blocked)
            store.tell_when_waiting(warn)
            for notice in store.notices:
                warn(notice)
            if conflict_copies(store.file_path):  # what a sync tool left beside the database
                from ..core.store.conflict_copies import ConflictCopies

                for line in ConflictCopies().merge_into(store).said():
                    warn(line)
        return store

    @cached_property
    def store(self) -> Store:
        """The annotation database (`bare_store`), with its papers re-attached to the paper list (which it remembers
        among its lists); notices go to stderr."""
        store = self.bare_store
        with progress.current().doing(f"reading {self.db_file.name}"):
            for message in store.reconcile(self.file_papers, quiet_repeats=True):
                warn(message)
        return store

    def let_go_of_store(self) -> None:
        """The command reads no more annotations: the database's documents are let go before what it reads next (90 MB
        at 100,000 annotations, held beside a search index). A store holding a change not yet saved is kept."""
        store = self.__dict__.get("bare_store")
        if store is not None and store.pending_error is None:
            del self.__dict__["bare_store"]
            self.__dict__.pop("store", None)

    def saved(self) -> None:
        """After a change: fail with one line if it could not be written (this process keeps nothing)."""
        store = self.bare_store
        if store.pending_error and not store.flush():
            fail(f"{store.pending_error}; the change was not saved")

    def paper(self, ref: str):
        try:
            return resolve(ref, self.paper_list.papers)
        except RefError as exc:
            ann = find_missing(self, ref)
            if ann is not None:
                fail(f"{ref!r}: {ann.id} is a missing paper, not in this list (see readlist show {ann.id}; "
                     f"readlist reattach {ann.id} REF moves its annotations onto a paper)")  # fmt: skip
            fail(str(exc))


MIN_PREFIX = 4


def find_missing(ctx: Context, ref: str) -> Annotation | None:
    """The missing paper with this id or unique id prefix (4+ characters), or None; never when a paper of
    the list has an id starting so (an ambiguous prefix is said to be ambiguous)."""
    ref = ref.strip().lower()
    if len(ref) < MIN_PREFIX or ref.startswith("#") or any(p.id.startswith(ref) for p in ctx.paper_list.papers):
        return None
    found = [ann for ann in ctx.store.orphans() if ann.id.startswith(ref)]
    if len(found) > 1:
        fail(f"{ref!r}: matches {len(found)} missing papers; give more of the id")
    return found[0] if found else None
