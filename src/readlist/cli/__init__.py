"""The `readlist` command: a thin shell over readlist.core."""

from __future__ import annotations

import sys

import click

from .. import __version__
from . import annotate, progress
from .context import Context, fail
from .papers import list_command, show_command
from .search import search_command


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--papers",
    "papers_path",
    envvar="READLIST_PAPERS",
    type=click.Path(dir_okay=True, path_type=str),
    default=None,
    help="Paper file to open (default: the bundled ICML 2025 list). Env: READLIST_PAPERS.",
)
@click.option(
    "--db",
    "db_path",
    envvar="READLIST_DB",
    type=click.Path(path_type=str),
    default=None,
    help="Annotation database (default: readlist.json in the user data directory). Env: READLIST_DB.",
)
@click.option("--encoding", default=None, metavar="NAME", help="Encoding of the paper file (default: UTF-8).")
@click.version_option(__version__, "--version", prog_name="readlist")
@click.pass_context
def cli(ctx: click.Context, papers_path: str | None, db_path: str | None, encoding: str | None) -> None:
    """readlist: a keyboard-first reading list for research papers.

    With no command, opens the reading list in the terminal UI.
    """
    ctx.obj = Context(papers_path=papers_path, db_path=db_path, encoding=encoding)
    if ctx.invoked_subcommand is None:
        from .tui_command import run_tui

        run_tui(ctx.obj)


cli.add_command(list_command)
cli.add_command(show_command)
cli.add_command(annotate.star_command)
cli.add_command(annotate.unstar_command)
cli.add_command(annotate.status_command)
cli.add_command(annotate.note_command)
cli.add_command(annotate.tag_command)
cli.add_command(annotate.undo_command)
cli.add_command(annotate.log_command)
cli.add_command(progress.stats_command)
cli.add_command(progress.export_command)
cli.add_command(progress.related_command)
cli.add_command(progress.merge_command)
cli.add_command(search_command)


def main() -> None:
    try:
        cli.main(prog_name="readlist", standalone_mode=True)
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["cli", "fail", "main"]
