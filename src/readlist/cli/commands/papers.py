"""`readlist list` and `readlist show`, with each paper's star, status, tags and note, and `readlist open`, its best
link."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import click

from ...core.papers import title_cache
from ...core.papers.paper import Paper
from ...core.store.annotation import STATUSES, Annotation, title_of
from ...core.text.normalize import strip_control
from .. import progress
from ..context import Context, fail
from ..output import (
    echo_json,
    echo_json_list,
    echo_lines,
    echo_note,
    link_lines,
    marks_line,
    paper_dict,
    paper_line,
    printed_title,
    record_dict,
    record_lines,
)

DERIVE_VS_READ = 100  # deriving a title costs about as much as reading 100 from the title cache
T = TypeVar("T")


def _keep(ann: Annotation, starred: bool, status: str | None, tags: tuple[str, ...]) -> bool:
    if starred and not ann.starred:
        return False
    if status and ann.status != status:
        return False
    if not tags:
        return True
    have = {tag.casefold() for tag in ann.tags}
    return all(tag.strip().casefold() in have for tag in tags)


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.option("--starred", is_flag=True, help="Only starred papers.")
@click.option("--status", default=None, metavar="S", help="Only papers with status S (unread, reading, read).")
@click.option("--tag", "tags", multiple=True, metavar="T", help="Only papers with this tag (repeat: all of them).")
@click.option("--missing", is_flag=True, help="Annotations whose paper is in no known list whose file exists.")
@click.pass_obj
def list_command(ctx: Context, as_json: bool, starred: bool, status: str | None, tags: tuple[str, ...], missing: bool):
    """One line per paper: number, id, star, status, title and tags."""
    if status is not None and status not in STATUSES:
        fail(f"--status {status!r}: expected one of {', '.join(STATUSES)}")
    store = ctx.store
    if missing:
        from ..output import missing_dict, missing_line

        orphans = [ann for ann in store.orphans() if _keep(ann, starred, status, tags)]
        if as_json:
            echo_json([missing_dict(ann) for ann in orphans])
            return
        for ann in orphans:
            click.echo(missing_line(ann))
        return
    # Each paper's own, not every annotation's: a list of 2,000 in a library of 100,000 annotations reads 2,000.
    papers = ctx.paper_list.papers
    rows = list(zip(papers, store.get_many(papers), strict=True))
    if starred or status or tags:  # else every row is kept: not asked of 100,000 annotations
        rows = [(paper, ann) for paper, ann in rows if _keep(ann, starred, status, tags)]
    gc.freeze()  # the papers and annotations outlive the rows: the collector no longer walks them as rows are made
    try:
        if as_json:
            echo_json_list(paper_dict(paper, ann) for paper, ann in streamed(rows, papers, "listing"))
            return
        width = len(str(len(papers)))
        listed = streamed(rows, papers, "listing")
        echo_lines(paper_line(f"{paper.index:>{width}}", paper, ann) for paper, ann in listed)
    finally:
        gc.unfreeze()  # a caller that goes on (a test calling commands in turn) collects them again


def streamed(rows: Sequence[T], papers: Sequence[Paper], what: str, printed_to: Any = None) -> Iterator[T]:
    """`rows` (papers, or rows of a paper first) as they are printed to `printed_to` (standard output when None), their
    papers' titles derived as they are, not all first: a new list of 100,000 papers starts printing at once (it
    printed nothing for 30 s). Titles come from the cache when it holds them and many papers are printed; once every
    title is derived they are cached. Standard error, when it is a terminal, shows how far it got unless the rows
    reach that terminal themselves."""
    cached = len(rows) * DERIVE_VS_READ < len(papers) or title_cache.prime(papers)
    line = progress.current()
    if progress.is_terminal(sys.stdout if printed_to is None else printed_to):
        line.stop()  # the rows themselves show how far it got
    with line.doing(what, total=len(rows)):
        for n, row in enumerate(rows):
            if not n & 255:
                line.advance(256 if n else 0)
            yield row
    if not cached and title_cache.complete(papers):
        title_cache.save(papers)


@click.command("show")
@click.argument("ref")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_obj
def show_command(ctx: Context, ref: str, as_json: bool) -> None:
    """One paper in full. REF is an id, a unique id prefix (4+ characters) or #N; also a missing paper's id."""
    from ...core.papers.refs import RefError, resolve
    from ..context import find_missing
    from ..output import show_missing

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
        echo_json(paper_dict(paper, ann) | record_dict(paper, ann))
        return
    click.echo(printed_title(paper, ann))
    click.echo(f"#{paper.index} · {paper.id}")
    click.echo(marks_line(ann))
    for line in record_lines(paper, ann):
        click.echo(line)
    click.echo()
    click.echo(strip_control(paper.plain))
    links = link_lines(paper)
    if links:
        click.echo()
        for line in links:
            click.echo(line)
    echo_note(ann)


@click.command("open")
@click.argument("ref")
@click.option("--print", "print_only", is_flag=True, help="Print the link instead of opening it.")
@click.pass_obj
def open_command(ctx: Context, ref: str, print_only: bool) -> None:
    """Open a paper's best link in the browser: its PDF, its page, its DOI's or arXiv page, a link in its abstract,
    else a web search for it (READLIST_WEB_SEARCH)."""
    import webbrowser

    from ...core.papers.links import LinkSettingError, best_link, web_search_template
    from ...core.papers.refs import RefError, resolve

    try:
        paper = resolve(ref, ctx.paper_list.papers)
        link = best_link(paper, title_of(paper, ctx.store.get(paper.id)), web_search_template())
    except (RefError, LinkSettingError) as exc:
        fail(str(exc))
    if print_only:
        click.echo(link.url)
        return
    try:
        opened = webbrowser.open(link.url)
    except webbrowser.Error:  # no browser registered
        opened = False
    if not opened:
        fail(f"found no browser to open {link.url} (open --print prints the link)")
    click.echo(f"Opened {link.url}  ({link.label})")
