"""`readlist related`: the papers most like one paper."""

from __future__ import annotations

import click

from ...core.search.related import RelatedIndex
from ...core.store.annotation import title_of
from ...core.text.normalize import strip_control
from ..context import Context, warn
from ..output import echo_json, paper_dict
from .search import annotations_of


@click.command("related")
@click.argument("ref")
@click.option("-n", "count", type=click.IntRange(1, 50), default=5, show_default=True, help="How many papers.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_obj
def related_command(ctx: Context, ref: str, count: int, as_json: bool) -> None:
    """Papers with the most similar abstracts. REF is an id, a unique id prefix or #N."""
    paper = ctx.paper(ref)
    papers = ctx.paper_list.papers
    from ...core.search.cache import load_or_build

    related = RelatedIndex(load_or_build(papers)).related(paper.index - 1, k=count)
    notes = annotations_of(ctx)
    if as_json:
        echo_json([paper_dict(papers[p], notes.get(papers[p].id)) | {"similarity": score} for p, score in related])
        return
    if not related:
        warn(f"no paper shares enough words with #{paper.index}")
        return
    width = len(str(len(papers)))
    for position, score in related:
        other = papers[position]
        title = strip_control(title_of(other, notes.get(other.id)))
        click.echo(f"{score:.2f}  {other.index:>{width}}  {other.id}  {title}")
