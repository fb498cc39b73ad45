"""`readlist list` and `readlist show`."""

from __future__ import annotations

import json

import click

from ..core.text import strip_control
from .context import Context


def _dump(obj) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, indent=2))


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_obj
def list_command(ctx: Context, as_json: bool) -> None:
    """One line per paper: number, id and title."""
    papers = ctx.paper_list.papers
    if as_json:
        _dump([paper.to_dict() for paper in papers])
        return
    width = len(str(len(papers)))
    for paper in papers:
        click.echo(f"{paper.index:>{width}}  {paper.id}  {strip_control(paper.title)}")


@click.command("show")
@click.argument("ref")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_obj
def show_command(ctx: Context, ref: str, as_json: bool) -> None:
    """One paper in full. REF is an id, a unique id prefix (4+ characters) or #N."""
    paper = ctx.paper(ref)
    if as_json:
        _dump(paper.to_dict())
        return
    click.echo(strip_control(paper.title))
    click.echo(f"#{paper.index} · {paper.id}")
    click.echo()
    click.echo(strip_control(paper.plain))
    if paper.urls:
        click.echo()
        for url in paper.urls:
            click.echo(strip_control(url))
