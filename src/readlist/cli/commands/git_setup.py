"""`readlist git-setup`: the git repository holding the database set to merge it with `readlist merge-driver`."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click

from ..context import Context, fail
from ..usage_errors import GivenPath

DRIVER = "readlist"  # the driver's name in .gitattributes and in git's config (merge.readlist.*)
DRIVER_NAME = "readlist database merge"


@click.command("git-setup")
@click.argument("directory", required=False, type=GivenPath(file_okay=False, path_type=str))
@click.pass_obj
def git_setup_command(ctx: Context, directory: str | None) -> None:
    """Set the git repository holding the database to merge it with `readlist merge-driver`.

    Adds `NAME.json merge=readlist` to DIRECTORY's .gitattributes (default: the database's folder; existing lines
    are kept, the line is never added twice), readlist's own files beside the database (lock, backups, UI state,
    note drafts) to its .gitignore, and sets merge.readlist.driver in the repository's config, which stays on
    this clone: run it in each clone.
    """
    folder = Path(directory).expanduser() if directory else ctx.db_file.parent
    if not folder.is_dir():
        fail(f"{folder}: no such folder")
    top = Path(_git(folder, "rev-parse", "--show-toplevel")).resolve()
    db = ctx.db_file.parent.resolve() / ctx.db_file.name  # the file git tracks: a link itself, not where it points
    here = folder.resolve()
    if not db.is_relative_to(top) or not db.is_relative_to(here):
        fail(f"{ctx.db_file}: the database is not inside {folder} (give --db, or the folder holding it)")
    attributes = folder / ".gitattributes"
    relative = db.relative_to(here).as_posix()
    line = f"{_pattern(relative)} merge={DRIVER}"
    added = _add_line(attributes, line)
    ignored = sum(_add_line(folder / ".gitignore", own) for own in _own_files(relative))
    command = f"{_readlist()} merge-driver %O %A %B"
    _git(folder, "config", f"merge.{DRIVER}.name", DRIVER_NAME)
    _git(folder, "config", f"merge.{DRIVER}.driver", command)
    click.echo(f"{attributes}: {'added' if added else 'already holds'} {line!r}" + (" (commit it)" if added else ""))
    if ignored:
        click.echo(f"{folder / '.gitignore'}: added readlist's own files beside the database ({ignored} line(s))")
    click.echo(f"{top}: git config merge.{DRIVER}.driver {command!r} (this clone only: run git-setup in each)")


def _git(folder: Path, *args: str) -> str:
    """git's output, run in `folder`; a failure is one line (exit status 2)."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        fail("git is not installed (or not on PATH)")
    except OSError as exc:
        fail(f"cannot run git ({exc.strerror or exc})")
    if done.returncode != 0:
        said = " ".join(done.stderr.split()) or f"exit status {done.returncode}"
        fail(f"{folder}: {said}")
    return done.stdout.strip()


def _pattern(relative: str) -> str:
    """The database's path as a .gitattributes pattern: glob characters escaped, a space as `[ ]` (a space would
    end the pattern); a path below the folder anchored to it."""
    escaped = re.sub(r"([*?\[\\])", r"\\\1", relative).replace(" ", "[ ]")
    return f"/{escaped}" if "/" in relative else escaped


def _own_files(relative: str) -> list[str]:
    """.gitignore patterns for what readlist writes beside the database `relative` (see README, Your data): its
    lock, backups and damaged copies, the UI state and note drafts, which are each machine's own."""
    folder, _, name = relative.rpartition("/")
    stem = name.rsplit(".", 1)[0] if "." in name else name
    names = [
        f"{name}.lock",
        f"{name}.bak-*",
        f"{name}.corrupt-*",
        f".{name}.*.tmp",
        f"{stem}.ui.json",
        f"{stem}.drafts/",
    ]
    return [f"/{folder}/{own}" if folder else own for own in names]


def _add_line(path: Path, line: str) -> bool:
    """Append `line` to the file unless it holds it already (its other lines kept as they are); whether it did."""
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})")
    if line.split() in (held.split() for held in text.splitlines()):
        return False
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(("\n" if text and not text.endswith("\n") else "") + line + "\n")
    except OSError as exc:
        fail(f"{path}: cannot write ({exc.strerror or exc})")
    return True


def _readlist() -> str:
    """How git should run this readlist: `readlist` when that name on PATH is this program, else this Python
    running the package (a virtual environment not on PATH)."""
    found = shutil.which("readlist")
    if found and os.path.realpath(found) == os.path.realpath(sys.argv[0]):
        return "readlist"
    return f"{shlex.quote(sys.executable)} -m readlist"
