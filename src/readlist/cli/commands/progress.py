"""`readlist stats`, `export`, `related` and `merge`: reading progress, notes out, copies in."""

from __future__ import annotations

import json
from datetime import date

import click
from filelock import Timeout

from ...core.export.files import ExportExistsError, descriptor_of, own_file, write_atomic
from ...core.export.formats import FORMATS, export, format_for, select
from ...core.papers.title_cache import derive_all
from ...core.search.index import QueryError
from ...core.search.related import RelatedIndex
from ...core.store.annotation import title_of
from ...core.store.merge_file import MergeError, merge_database
from ...core.store.stats import Stats, compute_stats, progress_bar
from ...core.text.normalize import strip_control
from ..context import Context, fail
from ..output import echo_json, fits_stdout
from ..usage_errors import GivenPath
from .search import annotations_of, titles_for

BAR_WIDTH = 30
_SPARKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: tuple[int, ...] | list[int]) -> str:
    """One character per value, scaled to the largest; zero stays blank-ish (lowest block)."""
    top = max(values, default=0)
    if top <= 0:
        return _SPARKS[1] * len(values)
    return "".join(_SPARKS[1 + round((len(_SPARKS) - 2) * v / top)] if v else _SPARKS[1] for v in values)


def _percent(done: int, total: int) -> str:
    return f"{100 * done / total:.0f}%" if total else "0%"


def format_stats(stats: Stats) -> list[str]:
    total = stats.total
    lines = [
        f"Papers   {total}",
        f"Read     {progress_bar(stats.read, total, BAR_WIDTH)}  {stats.read}/{total} ({_percent(stats.read, total)})",
        f"Reading  {stats.reading}",
        f"Unread   {stats.unread}",
        f"Starred  {stats.starred}",
        f"Noted    {stats.noted}",
        "",
        f"Read per day, last {len(stats.read_per_day)} days ({stats.read_last_30_days} papers):",
        f"  {sparkline(stats.read_per_day)}  max {max(stats.read_per_day, default=0)}/day",
    ]
    if stats.tags:
        width = max(len(tag) for tag, _, _ in stats.tags)
        lines += ["", "Tags:"]
        for tag, count, done in stats.tags:
            bar = progress_bar(done, count, 10)
            lines.append(f"  {strip_control(tag):<{width}}  {count:>4}  {bar}  {done} read")
    return lines


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_obj
def stats_command(ctx: Context, as_json: bool) -> None:
    """Reading progress: counts by status, papers read per day, tags."""
    store = ctx.store
    stats = compute_stats(ctx.paper_list.papers, store.all(), store.events(), date.today())
    if as_json:
        echo_json(stats.to_dict())
        return
    for line in format_stats(stats):
        click.echo(line)


@click.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format  [default: from FILE's extension (.md, .json, .csv, .bib), else md]",
)
@click.option("--query", "-q", default=None, metavar="Q", help="Export the papers matching Q (as in `search`).")
@click.option("--all", "everything", is_flag=True, help="Export every paper in the list.")
@click.option("-o", "--output", type=GivenPath(path_type=str), default=None, help="Write to FILE (- for stdout).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.pass_obj
def export_command(
    ctx: Context, fmt: str | None, query: str | None, everything: bool, output: str | None, force: bool
) -> None:
    """Papers with their annotations as Markdown notes, JSON, CSV or BibTeX.

    Without --query or --all: every paper with a star, a note or tags, in list order.
    """
    if everything and query:
        fail("--all and --query exclude each other")
    if query and _asks_for_missing(query):
        fail("--query is:missing: those papers are not in this list, so none can be exported from it; "
             "readlist list --missing --json prints their annotations")  # fmt: skip
    if output is not None and output != "-" and (what := own_file(output, ctx.db_file, ctx.papers_file)):
        fail(f"{output}: is {what}; an export never writes over it")
    papers = ctx.paper_list.papers
    annotations = ctx.store.all()
    index = None
    if query and query.strip() and not everything:
        from ...core.search.cache import load_or_build

        index = load_or_build(papers)
    if everything:
        derive_all(papers)
    titles_for(papers, query)
    try:
        chosen = select(papers, annotations, query, everything=everything, index=index)
    except QueryError as exc:
        fail(f"--query: {exc}")
    fmt = fmt or (output and format_for(output)) or "md"
    text = export(chosen, annotations, fmt)
    if output is None or output == "-" or descriptor_of(output) == 1:  # -o /dev/stdout, or the file it goes to
        if fmt == "json" and not fits_stdout(text):  # escaped, not look-alikes: the data stays exact
            echo_json(json.loads(text))
        else:
            click.echo(text, nl=False)
        return
    try:
        write_atomic(output, text, force=force)
    except ExportExistsError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{output}: cannot write ({exc.strerror or exc})")
    click.echo(f"readlist: wrote {len(chosen)} paper(s) to {output}", err=True)


def _asks_for_missing(query: str) -> bool:
    from ...core.search.query import QueryError, parse

    try:
        return parse(query).asks_for_missing
    except QueryError:
        return False  # said by the search itself


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
        rows = [
            {**papers[p].to_dict(), "title": title_of(papers[p], notes.get(papers[p].id)), "similarity": score}
            for p, score in related
        ]
        echo_json(rows)
        return
    if not related:
        click.echo(f"readlist: no paper shares enough words with #{paper.index}", err=True)
        return
    width = len(str(len(papers)))
    for position, score in related:
        other = papers[position]
        title = strip_control(title_of(other, notes.get(other.id)))
        click.echo(f"{score:.2f}  {other.index:>{width}}  {other.id}  {title}")


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
        report = merge_database(
            ctx.db_file, other, dry_run=dry_run, on_notice=lambda notice: click.echo(f"readlist: {notice}", err=True)
        )
    except MergeError as exc:
        fail(str(exc))
    except Timeout:
        fail(f"{ctx.db_file}: locked by another readlist; try again")
    except OSError as exc:
        fail(f"{ctx.db_file}: cannot write ({exc.strerror or exc})")
    if not report.changed:
        click.echo("Nothing to merge: this database already has everything in " + other)
        return
    for line in report.lines():
        click.echo(line)
    if dry_run:
        click.echo("(dry run: nothing written)")
