"""`readlist search`: ranked, typo-tolerant search from the command line."""

from __future__ import annotations

import click

from ...core.store.annotation import title_of
from ...core.text.normalize import quoted, strip_control
from .. import progress
from ..context import Context, fail, warn
from ..output import echo_json, paper_dict


def titles_for(papers, query: str | None) -> None:
    """A `title:` search looks at every derived title: derive them all once (they are cached on disk)."""
    from ...core.search.query import QueryError, parse

    try:
        terms = parse(query or "").terms
    except QueryError:
        return  # the search itself reports it
    if any(term.kind == "title" for term in terms):
        from ...core.papers.title_cache import derive_all

        with progress.current().doing(f"deriving the titles of {len(papers):,} papers"):
            derive_all(papers)


def indexed(papers):
    """The papers' search index, from the cache (mapped in memory: a command reads what its query touches) or built
    (a new list of 100,000 papers takes a while: the progress line says so)."""
    from ...core.search.cache import load_or_build

    with progress.current().doing(f"indexing {len(papers):,} papers for search"):
        return load_or_build(papers, mapped=True)


def matching_papers(ctx: Context, query: str) -> list:
    """The papers matching all of a command's -q `query` (those missing a word left out), in list order. A query that
    cannot choose papers ends the command in one line: one with no words (it would match every paper), `is:missing`
    (those papers are not in the list), one that does not parse."""
    from ...core.export.formats import select
    from ...core.search.query import QueryError, parse

    try:
        parsed = parse(query)
    except QueryError as exc:
        fail(f"-q: {exc}")
    if not parsed.terms:
        fail(f"-q {quoted(query)}: no words to search for (it would match every paper)")
    if parsed.asks_for_missing:
        fail("-q is:missing: those papers are not in this list, so none can be chosen from it")
    papers = ctx.paper_list.papers
    titles_for(papers, query)
    try:
        return select(papers, annotations_of(ctx), query, index=indexed(papers))
    except QueryError as exc:
        fail(f"-q: {exc}")


def has_database(ctx: Context) -> bool:
    """Whether the command has a database to read annotations from (searching never creates one)."""
    return getattr(type(ctx), "store", None) is not None and ctx.db_file.exists()


def annotations_of(ctx: Context) -> dict:
    """The user's annotations, when there is a database (searching never creates one)."""
    if not has_database(ctx):
        return {}
    return ctx.store.all()


def searched_annotations(ctx: Context, query, as_json: bool) -> dict:
    """The annotations a search reads, when there is a database: those holding words (a note, tags, a title of the
    user's own) but for an `is:` flag, which reads the marks too. The database is let go of when no more is read
    from it (JSON prints the marks of the papers found: see `printed_annotations`)."""
    if any(term.kind == "is" for term in query.terms):
        return annotations_of(ctx)
    if not has_database(ctx):
        return {}
    worded = ctx.store.worded()
    if not as_json:
        ctx.let_go_of_store()
    return worded


def printed_annotations(ctx: Context, papers, annotations: dict) -> dict:
    """The annotations of the papers a search prints, by paper id, from the database (the search may have read only
    those holding words: `searched_annotations`)."""
    if not papers or not has_database(ctx):
        return annotations
    return {paper.id: note for paper, note in zip(papers, ctx.store.get_many(papers), strict=True)}


def searched_papers(ctx: Context, everywhere: bool) -> tuple[tuple, tuple[str, ...]]:
    """The papers a search looks at: this list's; with `in:all`, every known list's (this list's first, see
    `store.library`) and the name of each one's list."""
    if not everywhere or not ctx.db_file.exists():
        papers = ctx.paper_list.papers
        return papers, ((ctx.paper_list.name,) * len(papers) if everywhere else ())
    from ...core.store.library import every_list

    library = every_list(ctx.store, ctx.paper_list)
    for problem in library.problems:
        warn(problem)
    return library.papers.papers, library.sources


class QueryCommand(click.Command):
    """Only the command's own options are options: "-word" anywhere, even first, excludes a word."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        valued = {name for param in self.params if not getattr(param, "is_flag", True) for name in param.opts}
        flags = {name for param in self.params if getattr(param, "is_flag", False) for name in param.opts}
        options, words = [], []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                words.extend(rest)
            elif arg in valued:
                options += [arg, next(rest, "")]
            elif arg in flags or arg in self.get_help_option_names(ctx) or self._joined_value(arg, valued):
                options.append(arg)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words] if words else options)

    @staticmethod
    def _joined_value(arg: str, valued: set[str]) -> bool:
        """ "--limit=5" or "-n5"."""
        return any(arg.startswith(name + "=") for name in valued if name.startswith("--")) or any(
            arg.startswith(name) and arg[len(name) :].isdigit() for name in valued if not name.startswith("--")
        )


def _search_help() -> str:
    """The command's help, naming the query language's fields and flags from its one table."""
    from ...core.search.query import OPERATORS

    named = ", ".join(dict.fromkeys(f"{op.field}:" for op in OPERATORS))
    return f"""Rank the papers for QUERY: words (typos tolerated), "phrases", -word, {named}

    Words after the command are joined, so `readlist search graph -image` needs no quoting.
    Exit status 1 when no paper matches every word (papers missing one may still be listed).
    """


@click.command("search", cls=QueryCommand, help=_search_help())
@click.argument("query", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--limit", "-n", type=click.IntRange(min=0), default=20, show_default=True, help="Results (0: all).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array, best first.")
@click.pass_obj
def search_command(ctx: Context, query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """The ranked papers, one line each (or JSON), full matches first; `_search_help` is the command's help."""
    from ...core.search.query import QueryError, parse

    text = " ".join(query)
    try:
        parsed = parse(text)
        if parsed.says_nothing:  # the search bar lists every paper for it; a command asked for something
            fail(f'search: {quoted(text)} has nothing to search for: give words, a "phrase" or title:word, tag:name')
    except QueryError as exc:
        fail(f"search: {exc}")
    papers, sources = searched_papers(ctx, parsed.everywhere)
    annotations = searched_annotations(ctx, parsed, as_json)
    titles_for(papers, text)
    result = indexed(papers).search(text, annotations, limit or None)
    if result.error:
        fail(f"search: {result.error}")
    if result.missing:
        from ..output import missing_dict, missing_line

        orphans = sorted(ctx.store.orphans(), key=lambda ann: ann.id)
        if as_json:
            echo_json([missing_dict(ann) for ann in orphans])
        for ann in [] if as_json else orphans:
            click.echo(missing_line(ann))
        raise SystemExit(0 if orphans else 1)
    if as_json:
        printed = printed_annotations(ctx, [papers[pos] for pos in result.positions], annotations)
        rows = [
            paper_dict(papers[pos], printed.get(papers[pos].id))
            | ({"list": sources[pos]} if sources else {})
            | {
                "score": score,
                "full_match": n < result.full_matches,
                "matched": result.matched_terms(pos),
            }
            for n, (pos, score) in enumerate(zip(result.positions, result.scores, strict=True))
        ]
        echo_json(rows)
    else:
        width = len(str(len(result.positions)))
        index_width = len(str(len(papers)))
        for n, pos in enumerate(result.positions):
            if n == result.full_matches:
                click.echo("-- below: papers missing some word --")
            paper = papers[pos]
            title = strip_control(title_of(paper, annotations.get(paper.id)))
            source = f"{strip_control(sources[pos])}  " if sources else ""
            click.echo(f"{n + 1:>{width}}  {paper.index:>{index_width}}  {paper.id}  {source}{title}")
    if not result.full_matches:  # papers missing some word are no match (a script can tell)
        from ...core.search.absent_fields import absent_fields_hint

        if absent := absent_fields_hint(text, papers):
            click.echo(f"readlist: search: no paper matches {quoted(text)}: {absent}", err=True)
        raise SystemExit(1)
