"""The `readlist` command: a thin shell over readlist.core."""

from __future__ import annotations

import atexit
import errno
import gc
import os
import signal
import sys
import threading
from typing import NoReturn

import click

from ..core.papers.formats import FORMATS
from . import progress
from .context import Context, fail
from .lazy import LazyGroup
from .output import tolerate_unencodable_output
from .usage_errors import GivenPath

COMMANDS = {
    "list": "papers:list_command",
    "show": "papers:show_command",
    "open": "papers:open_command",
    "search": "search:search_command",
    "star": "annotate:star_command",
    "unstar": "annotate:unstar_command",
    "status": "annotate:status_command",
    "note": "annotate:note_command",
    "tag": "annotate:tag_command",
    "title": "annotate:title_command",
    "undo": "annotate:undo_command",
    "log": "annotate:log_command",
    "stats": "stats:stats_command",
    "export": "export:export_command",
    "related": "related:related_command",
    "merge": "merge:merge_command",
    "merge-driver": "merge:merge_driver_command",
    "git-setup": "git_setup:git_setup_command",
    "reattach": "reattach:reattach_command",
    "lists": "lists:lists_command",
    "resolve": "resolve:resolve_command",
}
COLLECTING = ("resolve",)  # may run for minutes, dropping what its requests made (errors' tracebacks hold cycles)


@click.group(
    cls=LazyGroup,
    lazy_commands=COMMANDS,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Env: READLIST_WEB_SEARCH, the web search that `o` and `readlist open` give a paper without a link: "
    "arxiv (the default: arXiv, for the title), scholar (Google Scholar, for the first sentence), or an http(s) URL "
    "holding {title} or {sentence}.",
)
@click.option(
    "--papers",
    "papers_path",
    envvar="READLIST_PAPERS",
    type=GivenPath(dir_okay=True, path_type=str),
    default=None,
    help="Paper file to open (default: the bundled ICML 2025 list). Env: READLIST_PAPERS.",
)
@click.option(
    "--db",
    "db_path",
    envvar="READLIST_DB",
    type=GivenPath(path_type=str, readable=False),  # an unreadable database is our one-line error, not a usage error
    default=None,
    help="Annotation database (default: readlist.json in the user data directory). Env: READLIST_DB.",
)
@click.option("--encoding", default=None, metavar="NAME", help="Encoding of the paper file (default: UTF-8).")
@click.option(
    "--format",
    "papers_format",
    type=click.Choice(list(FORMATS), case_sensitive=False),
    default=None,
    help="Format of the paper file (default: from its extension, else its content).",
)
@click.version_option(None, "--version", package_name="readlist", prog_name="readlist")
@click.pass_context
def cli(
    ctx: click.Context, papers_path: str | None, db_path: str | None, encoding: str | None, papers_format: str | None
) -> None:
    """readlist: a keyboard-first reading list for research papers.

    With no command, opens the reading list in the terminal UI.
    """
    for name, value in (("READLIST_PAPERS", papers_path), ("READLIST_DB", db_path)):
        if value is None and os.environ.get(name) == "":  # click reads an empty variable as unset
            fail(f"{name} is set but empty (unset it to use the default)")
    ctx.obj = Context(papers_path=papers_path, db_path=db_path, encoding=encoding, papers_format=papers_format)
    if ctx.invoked_subcommand not in (None, *COLLECTING):
        without_collector(ctx)  # (first: enabled again last)
    ctx.call_on_close(progress.begin().stop)  # the progress line, if shown, is gone when the command ends
    if ctx.invoked_subcommand is None:
        from .commands.tui import run_tui

        run_tui(ctx.obj)


def without_collector(ctx: click.Context) -> None:
    """The command runs without the cyclic garbage collector, enabled again when it ends: it keeps what it read (the
    papers, the annotations, an index) to its end, and each of the collector's passes over them took its time (0.2 s
    of `readlist list` over 100,000 annotated papers, 0.5 s of `star`); what it drops, reference counting frees."""
    if gc.isenabled():
        gc.disable()
        ctx.call_on_close(gc.enable)


def main() -> None:
    if hasattr(signal, "SIGPIPE"):  # `readlist list | head`: end quietly, as other tools do (status 141, not 1)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    tolerate_unencodable_output()
    try:
        try:
            cli.main(prog_name="readlist", standalone_mode=True)
        except SystemExit as exc:
            status = exc.code
        sys.stdout.flush()  # here, where a failure to write is said as any other
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as exc:  # most often the output could not be written: a full disk, /dev/full, a closed pipe
        output = exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO) and not exc.filename
        where = f"{exc.filename}: " if exc.filename else "cannot write the output: " if output else ""
        print(f"readlist: {where}{exc.strerror or exc}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second failure at exit
        sys.exit(2)
    leave(status)


def leave(status: int | str | None) -> NoReturn:
    """Exit with `status` as sys.exit would, the exit functions run, but without the interpreter freeing what the
    command read one object at a time: 0.1-0.25 s after a command over 100,000 papers and annotations. Every file
    is written and closed by then (a change is saved before the command says it); with a thread still running
    (none is left by a command), the exit waits for it as usual."""
    if threading.active_count() > 1:
        sys.exit(status)
    if status is not None and not isinstance(status, int):  # a message, as sys.exit prints it
        print(status, file=sys.stderr)
        status = 1
    atexit._run_exitfuncs()  # what `atexit` was given (indexing processes to end), as a normal exit runs them
    sys.stderr.flush()
    os._exit(status or 0)


__all__ = ["cli", "fail", "main"]
