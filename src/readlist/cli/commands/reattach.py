"""`readlist reattach`: a missing paper's annotations moved by hand onto the paper it became, when readlist
could not tell by itself."""

from __future__ import annotations

import click

from ...core.papers.refs import RefError, resolve
from ...core.text.normalize import strip_control
from ..context import MIN_PREFIX, Context, fail, find_missing


@click.command("reattach")
@click.argument("missing_id", metavar="MISSING")
@click.argument("ref")
@click.pass_obj
def reattach_command(ctx: Context, missing_id: str, ref: str) -> None:
    """Move the annotations of a missing paper onto a paper of the list.

    MISSING is the id (or a unique prefix) shown by `readlist list --missing`; REF is the paper it became
    (an id, a unique id prefix or #N). When REF has annotations of its own, the two are joined as a merge
    joins them: the newer change of each field wins, both notes are kept (tagged conflict), tags are united.
    `readlist undo` reverts it.
    """
    ann = find_missing(ctx, missing_id)
    if ann is None:
        key = missing_id.strip().lower()
        if key.startswith("#"):
            fail(f"{missing_id!r}: a missing paper has no number in the list; give its id (readlist list --missing)")
        if len(key) < MIN_PREFIX:
            fail(f"{missing_id!r}: an id prefix needs at least {MIN_PREFIX} characters")
        if any(ann.id.startswith(key) for ann in ctx.store.orphans()):
            fail(f"{missing_id!r}: also starts the id of a paper in the list; give more of the missing paper's id")
        fail(f"{missing_id!r}: no missing paper has this id (see readlist list --missing)")
    try:
        paper = resolve(ref, ctx.paper_list.papers)
    except RefError as exc:
        fail(str(exc))
    joined = not ctx.store.get(paper.id).is_default
    try:
        moved, both_notes = ctx.store.move_annotations(ann.id, paper)
    except ValueError as exc:
        fail(str(exc))
    ctx.saved()
    from ..output import paper_line

    shown = strip_control(ann.id)  # as a damaged or hand-made database may hold it
    if joined:
        kept = "; both notes kept, tagged conflict" if both_notes else ""
        click.echo(f"joined the annotations of {shown} with those of #{paper.index}{kept}:")
    else:
        click.echo(f"moved the annotations of {shown} to:")
    click.echo(paper_line(f"#{paper.index}", paper, moved))
