"""`readlist export`: papers and notes out, in Markdown, JSON, CSV, BibTeX or CSL-JSON, to a file or standard
output."""

from __future__ import annotations

import json

import click

from ...core.export.citation import venue_notice
from ...core.export.files import ExportExistsError, descriptor_of, own_file, write_atomic
from ...core.export.formats import CITATION_FORMATS, FORMATS, STREAMED, export, export_parts, format_for, select
from ...core.search.index import QueryError
from ...core.text.normalize import quoted
from ..context import Context, fail, warn
from ..output import ascii_json, echo_json, fits_stdout
from ..usage_errors import GivenPath
from .papers import streamed
from .search import indexed, titles_for


@click.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format  [default: from FILE's extension (.md, .json, .csv, .bib, .csl.json), else md]",
)
@click.option("--query", "-q", default=None, metavar="Q", help="Export the papers matching Q (as in `search`).")
@click.option("--all", "everything", is_flag=True, help="Export every paper in the list.")
@click.option("-o", "--output", type=GivenPath(path_type=str), default=None, help="Write to FILE (- for stdout).")
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@click.pass_obj
def export_command(
    ctx: Context, fmt: str | None, query: str | None, everything: bool, output: str | None, force: bool
) -> None:
    """Papers with their annotations as Markdown notes, JSON, CSV, or citations (BibTeX, CSL-JSON).

    Without --query or --all: every paper with a star, a note or tags, in list order.
    """
    if everything and query is not None:
        fail("--all and --query exclude each other")
    if query is not None and _says_nothing(query):
        fail(f"--query {quoted(query)}: nothing to search for (it would export every paper: say --all for that)")
    if query and _asks_for_missing(query):
        fail("--query is:missing: those papers are not in this list, so none can be exported from it; "
             "readlist list --missing --json prints their annotations")  # fmt: skip
    if output is not None and output != "-" and (what := own_file(output, ctx.db_file, ctx.papers_file)):
        fail(f"{output}: is {what}; an export never writes over it")
    papers = ctx.paper_list.papers
    annotations = ctx.store.all()
    index = indexed(papers) if query and query.strip() and not everything else None
    titles_for(papers, query)
    try:
        chosen = select(papers, annotations, query, everything=everything, index=index)
    except QueryError as exc:
        fail(f"--query: {exc}")
    fmt = fmt or (output and format_for(output)) or "md"
    to_stdout = output is None or output == "-" or descriptor_of(output) == 1  # -o /dev/stdout, or where it goes
    if to_stdout and fmt in STREAMED:  # printed as it is made, each paper's title derived as it is printed
        for part in export_parts(streamed(chosen, papers, "exporting"), annotations, fmt):
            click.echo(part if fmt != "json" or fits_stdout(part) else ascii_json(part), nl=False)
        return
    for paper in streamed(chosen, papers, "deriving titles", printed_to=False):  # shown: nothing is printed yet
        _ = paper.title
    text = export(chosen, annotations, fmt, ctx.paper_list.name)
    if fmt in CITATION_FORMATS and (notice := venue_notice(chosen, ctx.paper_list.name)):
        warn(notice)
    if to_stdout:
        if fmt in ("json", "csl-json") and not fits_stdout(text):  # escaped, not look-alikes: the data stays exact
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
    warn(f"wrote {len(chosen)} paper(s) to {output}")


def _says_nothing(query: str) -> bool:
    """`query` holds no word, phrase or field to search for ('', 'title:'); one that does not parse is said later."""
    from ...core.search.query import QueryError, parse

    try:
        return parse(query).says_nothing
    except QueryError:
        return False


def _asks_for_missing(query: str) -> bool:
    from ...core.search.query import QueryError, parse

    try:
        return parse(query).asks_for_missing
    except QueryError:
        return False  # said by the search itself
