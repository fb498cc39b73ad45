"""`readlist merge`: another readlist database (a laptop's copy) merged into this one."""

from __future__ import annotations

import click
from filelock import Timeout

from ...core.store.merge_file import MergeError, merge_database
from ...core.text.normalize import strip_control, visible_controls
from ..context import Context, fail, warn
from ..usage_errors import GivenPath


@click.command("merge")
@click.argument("other", type=GivenPath(path_type=str))
@click.option("--dry-run", is_flag=True, help="Print what would change; write nothing.")
@click.pass_obj
def merge_command(ctx: Context, other: str, dry_run: bool) -> None:
    """Merge another readlist database (OTHER.json, e.g. a laptop's copy) into this one.

    Per paper and field the newer change wins; a note edited on both sides keeps both texts and
    the paper is tagged `conflict`; the change logs are united. Merging twice changes nothing.
    """
    try:
        report = merge_database(ctx.db_file, other, dry_run=dry_run, on_notice=warn)
    except MergeError as exc:
        fail(str(exc))
    except Timeout:
        fail(f"{ctx.db_file}: locked by another readlist; try again")
    except OSError as exc:
        fail(f"{ctx.db_file}: cannot write ({exc.strerror or exc})")
    if not report.changed:
        click.echo("Nothing to merge: this database already has everything in " + visible_controls(other))
        return
    for line in report.lines():
        click.echo(strip_control(line))  # tags and ids as the other file holds them
    if dry_run:
        click.echo("(dry run: nothing written)")
