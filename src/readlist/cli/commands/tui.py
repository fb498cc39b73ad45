"""Opening the terminal UI from the command line: on the list given, else on the list opened last (the bundled
list the first time)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..context import Context

if TYPE_CHECKING:
    from ...core.papers.paper import PaperList
    from ...core.store.store import Store
    from ...tui.app import ReadlistApp


def run_tui(ctx: Context) -> None:
    app = build_app(ctx)
    app.run()
    if app.return_code:  # Textual printed what went wrong; a script must not read it as success
        sys.exit(app.return_code)


def build_app(ctx: Context) -> ReadlistApp:
    """The app on the paper file given (`--papers`, READLIST_PAPERS), else on the list opened last when its file
    is there, else on the bundled list; the app adds what resolving found."""
    from ...tui.app import ReadlistApp

    store, papers = None, None
    if ctx.papers_path is None and ctx.db_file.exists():
        from ...core.store.store import Store

        store = Store(ctx.db_file)
        papers = last_list(store)
    return ReadlistApp(papers=papers or ctx.file_papers, db_path=ctx.db_file, store=store)


def last_list(store: Store) -> PaperList | None:
    """The list opened last, read again; None when there is none, or its file is gone or cannot be read now
    (said among the store's notices, which the app shows)."""
    from ...core.papers.formats import FORMATS, load_papers
    from ...core.papers.source import ReadError

    known = store.last_list()
    if known is None:
        return None
    if not known.exists:
        store.notices.append(f"{known.path} (the list opened last) is gone; opened the bundled list")
        return None
    try:
        return load_papers(known.path, None, known.format if known.format in FORMATS else None)
    except ReadError as exc:
        store.notices.append(f"{exc}; opened the bundled list")
        return None
