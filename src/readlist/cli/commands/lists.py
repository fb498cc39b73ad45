"""`readlist lists`: the paper files opened with this database, each with its progress; `--forget` drops one."""

from __future__ import annotations

import click

from ...core.store.lists import KnownList, matching, when
from ...core.text.normalize import strip_control
from ..context import Context, fail
from ..output import echo_json


@click.command("lists")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--forget", "forget", default=None, metavar="NAME", help="Drop a list (by name or path); notes stay.")
@click.pass_obj
def lists_command(ctx: Context, as_json: bool, forget: str | None) -> None:
    """One line per paper file opened with this database: its papers, read, reading, starred, noted, when it was
    last opened, and whether its file is gone. The list opened last comes first."""
    if not ctx.db_file.exists():  # reading never makes a database
        if forget is not None:
            fail(f"{forget!r}: no such list (no paper file was opened with {ctx.db_file} yet)")
        if as_json:
            echo_json([])
        else:
            click.echo(f"No paper file opened with {ctx.db_file} yet")
        return
    store = ctx.bare_store
    if forget is not None:
        _forget(ctx, forget)
        return
    rows = store.progress()
    if as_json:
        echo_json([{**_known_dict(known), **vars(figures)} for known, figures in rows])
        return
    for known, figures in rows:
        gone = "  (file gone)" if not known.exists else ""
        name = strip_control(known.name)
        click.echo(f"{name}  {figures.figures()}  last opened {when(known.last_opened)}{gone}\n    {known.path}")


def _known_dict(known: KnownList) -> dict:
    return {
        "name": known.name,
        "path": known.path,
        "format": known.format,
        "exists": known.exists,
        "first_opened": known.first_opened,
        "last_opened": known.last_opened,
    }


def _forget(ctx: Context, given: str) -> None:
    store = ctx.bare_store
    found = matching(store.lists(), given)
    if not found:
        fail(f"{given!r}: no such list (readlist lists names them)")
    if len(found) > 1:
        paths = ", ".join(known.path for known in found)
        fail(f"{given!r}: names {len(found)} lists ({paths}); give the path")
    known = found[0]
    store.forget_list(known.path)
    ctx.saved()
    click.echo(f"Forgot {strip_control(known.name)} ({known.path}); its papers' annotations stay")
