"""`readlist merge`: another readlist database (a laptop's copy) merged into this one; `readlist merge-driver`,
git's merge driver for a database kept in a git repository."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

import click
from filelock import Timeout

from ...core.store.annotation import Annotation
from ...core.store.merge_file import MergeError, merge_database, merge_files, read_database
from ...core.text.normalize import strip_control, visible_controls
from ..context import Context, fail, warn
from ..output import printed_title
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
    for line in report.lines(paper_names(ctx, other)):
        click.echo(strip_control(line))  # tags and ids as the other file holds them
    if dry_run:
        click.echo("(dry run: nothing written)")


@click.command("merge-driver")
@click.argument("base", type=GivenPath(path_type=str))
@click.argument("ours", type=GivenPath(path_type=str))
@click.argument("theirs", type=GivenPath(path_type=str))
def merge_driver_command(base: str, ours: str, theirs: str) -> None:
    """git's merge driver for a readlist database: BASE OURS THEIRS are git's %O %A %B.

    Merges THEIRS into OURS three-way by BASE (a field changed on one side takes that side's value, a note edited
    on both sides keeps the shared text once and both edits) and writes the result to OURS; exit status 0. When
    a file cannot be merged (not a readlist database, a newer readlist's), OURS is left as it is and the exit
    status is 2: git then reports a conflict. Set it up with `readlist git-setup`.
    """
    try:
        report = merge_files(base, ours, theirs, on_notice=warn)
    except MergeError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{ours}: cannot write ({exc.strerror or exc})")
    if report.conflicts:  # said, since git reports the merge as clean
        warn(
            f"{len(report.conflicts)} note(s) edited on both sides at the same place: both texts kept, tagged conflict"
        )


def paper_names(ctx: Context, other: str) -> Callable[[str], str]:
    """How the report names a paper: its number, id and title in the paper list, else its id and the title its
    annotations give (yours, or one derived from the abstract they keep). A paper file that cannot be read
    leaves the ids alone: the merge is done by then."""
    from ...core.papers.formats import load_papers
    from ...core.papers.source import ReadError
    from ...core.store.annotation import missing_title

    try:
        by_id = load_papers(ctx.papers_file, ctx.encoding, ctx.papers_format).by_id
    except ReadError:
        by_id = {}
    annotations: dict[str, Annotation] = {}
    for path in (Path(other).expanduser(), ctx.db_file):  # this database last: it holds what the merge made
        if path.exists():
            with suppress(MergeError):
                annotations |= read_database(path)[0]

    def name(paper_id: str) -> str:
        ann = annotations.get(paper_id) or Annotation(paper_id)
        paper = by_id.get(paper_id)
        if paper is not None:
            return f"#{paper.index}  {paper_id}  {printed_title(paper, ann)}"
        title = missing_title(ann)
        return f"{paper_id}  {'' if title == paper_id else title + ' '}(not in this paper list)"

    return name
