"""Opening the terminal UI from the command line."""

from __future__ import annotations

from .context import Context


def run_tui(ctx: Context) -> None:
    from ..tui.app import ReadlistApp

    app = ReadlistApp(papers=ctx.paper_list, db_path=ctx.db_file)
    app.run()
