"""Annotated papers no longer in the paper list: how they are shown, found by id, and moved by hand
(`readlist reattach`) onto the paper they became when readlist could not tell by itself."""

from __future__ import annotations

import click

from ...core.papers.refs import RefError, resolve
from ...core.store.annotation import Annotation, missing_title
from ...core.text.normalize import strip_control, to_plain
from ..context import Context, fail
from ..output import echo_json
from .papers import annotation_dict, echo_note, marks_line, tag_suffix

MIN_PREFIX = 4


def missing_line(ann: Annotation) -> str:
    return (
        f"{ann.id}  {'★' if ann.starred else ' '} {ann.status:<7}  {strip_control(missing_title(ann))}{tag_suffix(ann)}"
    )


def missing_dict(ann: Annotation) -> dict:
    title = strip_control(missing_title(ann))
    return {"id": ann.id, "title": title, "missing": True, "snippet": ann.snippet} | annotation_dict(ann)


def find_missing(ctx: Context, ref: str) -> Annotation | None:
    """The missing paper with this id or unique id prefix (4+ characters), or None; never when a paper of
    the list has an id starting so (an ambiguous prefix is said to be ambiguous)."""
    ref = ref.strip().lower()
    if len(ref) < MIN_PREFIX or ref.startswith("#") or any(p.id.startswith(ref) for p in ctx.paper_list.papers):
        return None
    found = [ann for ann in ctx.store.orphans() if ann.id.startswith(ref)]
    if len(found) > 1:
        fail(f"{ref!r}: matches {len(found)} missing papers; give more of the id")
    return found[0] if found else None


def show_missing(ann: Annotation, as_json: bool) -> None:
    if as_json:
        echo_json(missing_dict(ann))
        return
    click.echo(strip_control(missing_title(ann)))
    click.echo(f"{ann.id} · not in this paper list (readlist reattach {ann.id} REF moves it onto a paper)")
    click.echo(marks_line(ann))
    if ann.snippet:
        click.echo()
        click.echo(strip_control(to_plain(ann.snippet)))
    echo_note(ann)


@click.command("reattach")
@click.argument("missing_id", metavar="MISSING")
@click.argument("ref")
@click.pass_obj
def reattach_command(ctx: Context, missing_id: str, ref: str) -> None:
    """Move the annotations of a missing paper onto a paper of the list.

    MISSING is the id (or a unique prefix) shown by `readlist list --missing`; REF is the paper it became
    (an id, a unique id prefix or #N). When REF has annotations of its own, the two are joined as a merge
    joins them (newer field wins, both notes kept, tags united). `readlist undo` reverts it.
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
        moved = ctx.store.move_annotations(ann.id, paper)
    except ValueError as exc:
        fail(str(exc))
    ctx.saved()
    from .papers import paper_line

    click.echo(f"{'joined' if joined else 'moved'} the annotations of {ann.id} {'with' if joined else 'to'}:")
    click.echo(paper_line(f"#{paper.index}", paper, moved))
