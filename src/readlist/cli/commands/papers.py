"""`readlist list` and `readlist show`, with each paper's star, status, tags and note."""

from __future__ import annotations

import click

from ...core.papers.paper import Paper
from ...core.papers.title_cache import derive_all
from ...core.store.annotation import STATUSES, Annotation, title_of
from ...core.text.normalize import hashtags, strip_control
from ..context import Context, fail
from ..output import echo_json

DERIVE_VS_READ = 100  # deriving a title costs about as much as reading 100 from the title cache


def annotation_dict(ann: Annotation) -> dict:
    tags = list(ann.tags)
    return {"starred": ann.starred, "status": ann.status, "tags": tags, "note": ann.note, "read_at": ann.read_at}


def paper_dict(paper: Paper, ann: Annotation) -> dict:
    out = paper.to_dict()
    if ann.title:
        out["title"] = ann.title  # the user's title wins over the derived one
    return out | annotation_dict(ann)


def shown_title(paper: Paper, ann: Annotation) -> str:
    return strip_control(title_of(paper, ann))


def paper_line(number: str, paper: Paper, ann: Annotation) -> str:
    """One paper on one line: number, id, star, status, title, tags."""
    mark = "★" if ann.starred else " "
    return f"{number}  {paper.id}  {mark} {ann.status:<7}  {shown_title(paper, ann)}{tag_suffix(ann)}"


def tag_suffix(ann: Annotation) -> str:
    return "  " + hashtags(ann.tags) if ann.tags else ""


def _keep(ann: Annotation, starred: bool, status: str | None, tags: tuple[str, ...]) -> bool:
    if starred and not ann.starred:
        return False
    if status and ann.status != status:
        return False
    have = {tag.casefold() for tag in ann.tags}
    return all(tag.strip().casefold() in have for tag in tags)


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--starred", is_flag=True, help="Only starred papers.")
@click.option("--status", default=None, metavar="S", help="Only papers with status S (unread, reading, read).")
@click.option("--tag", "tags", multiple=True, metavar="T", help="Only papers with this tag (repeat: all of them).")
@click.option("--missing", is_flag=True, help="Annotations whose paper is no longer in the paper file.")
@click.pass_obj
def list_command(ctx: Context, as_json: bool, starred: bool, status: str | None, tags: tuple[str, ...], missing: bool):
    """One line per paper: number, id, star, status, title and tags."""
    if status is not None and status not in STATUSES:
        fail(f"--status {status!r}: expected one of {', '.join(STATUSES)}")
    store = ctx.store
    if missing:
        from .missing import missing_dict, missing_line

        orphans = [ann for ann in store.orphans() if _keep(ann, starred, status, tags)]
        if as_json:
            echo_json([missing_dict(ann) for ann in orphans])
            return
        for ann in orphans:
            click.echo(missing_line(ann))
        return
    annotations = store.all()
    rows = [(paper, annotations.get(paper.id) or Annotation(paper.id)) for paper in ctx.paper_list.papers]
    rows = [(paper, ann) for paper, ann in rows if _keep(ann, starred, status, tags)]
    if len(rows) * DERIVE_VS_READ >= len(ctx.paper_list.papers):  # cheaper from the cache (made if missing)
        derive_all(ctx.paper_list.papers)
    if as_json:
        echo_json([paper_dict(paper, ann) for paper, ann in rows])
        return
    width = len(str(len(ctx.paper_list.papers)))
    for paper, ann in rows:
        click.echo(paper_line(f"{paper.index:>{width}}", paper, ann))


@click.command("show")
@click.argument("ref")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_obj
def show_command(ctx: Context, ref: str, as_json: bool) -> None:
    """One paper in full. REF is an id, a unique id prefix (4+ characters) or #N; also a missing paper's id."""
    from ...core.papers.refs import RefError, resolve
    from .missing import find_missing, show_missing

    try:
        paper = resolve(ref, ctx.paper_list.papers)
    except RefError as exc:
        missing = find_missing(ctx, ref)
        if missing is None:
            fail(str(exc))
        show_missing(missing, as_json)
        return
    ann = ctx.store.get(paper.id)
    if as_json:
        echo_json(paper_dict(paper, ann))
        return
    click.echo(shown_title(paper, ann))
    click.echo(f"#{paper.index} · {paper.id}")
    click.echo(marks_line(ann))
    click.echo()
    click.echo(strip_control(paper.plain))
    if paper.urls:
        click.echo()
        for url in paper.urls:
            click.echo(strip_control(url))
    echo_note(ann)


def marks_line(ann: Annotation) -> str:
    """'★ starred · read · tags: a, b'"""
    marks = ["★ starred" if ann.starred else "not starred", ann.status]
    if ann.tags:
        marks.append("tags: " + ", ".join(strip_control(tag) for tag in ann.tags))
    return " · ".join(marks)


def echo_note(ann: Annotation) -> None:
    if ann.note:
        click.echo()
        click.echo("Note:")
        click.echo(strip_control(ann.note))
