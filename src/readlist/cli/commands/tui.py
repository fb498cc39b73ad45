"""Opening the terminal UI from the command line."""

from __future__ import annotations

import sys

from ..context import Context


def run_tui(ctx: Context) -> None:
    from ...tui.app import ReadlistApp

    app = ReadlistApp(papers=ctx.file_papers, db_path=ctx.db_file)  # the app adds what resolving found
    app.run()
    if app.return_code:  # Textual printed what went wrong; a script must not read it as success
        sys.exit(app.return_code)
