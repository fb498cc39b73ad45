"""`readlist resolve`: each abstract's paper found online (arXiv, DBLP, Semantic Scholar, OpenAlex), kept in the
database; what was found for a paper shown, a candidate accepted, or what was found forgotten.

Nothing is sent anywhere unless this command is run with papers to look up. The lookup runs on a thread of its
own, saving each paper's result as it arrives; this thread prints them, draws the progress bar and takes Ctrl+C,
which stops the run keeping what was found (the next run skips it).
"""

from __future__ import annotations

import queue
import sys
import threading
from collections.abc import Callable

import click
from filelock import Timeout

from ...core.papers.paper import Paper
from ...core.resolve.records import Match, Resolution
from ...core.resolve.settings import SOURCES
from ...core.resolve.tally import Tally
from ...core.store.annotation import title_of
from ...core.text.normalize import strip_control
from ..context import Context, fail, warn
from ..output import echo_json

STOPPED = 130  # the exit status of a run stopped with Ctrl+C, as for any command interrupted so
SEARCHED = ("arxiv", "s2", "openalex")  # the sources that search for a paper; DBLP only completes one found
SOURCE_FAILED = 2  # a source that could not be asked: an error, as the README promises every error's status is


@click.command("resolve")
@click.argument("refs", nargs=-1, metavar="[REF]...")
@click.option("--all", "everything", is_flag=True, help="Look up every paper in the list.")
@click.option("--query", "-q", default=None, metavar="Q", help="Look up the papers matching Q (as in `search`).")
@click.option("--dry-run", is_flag=True, help="Look up and print what is found; save nothing.")
@click.option("--retry", is_flag=True, help="Ask again for papers not found before (else after 30 days).")
@click.option(
    "--source",
    "sources",
    multiple=True,
    type=click.Choice(SOURCES),
    help="Ask only this source (repeat for several; openalex needs READLIST_OPENALEX_KEY).",
)
@click.option("--show", "show_ref", default=None, metavar="REF", help="What was found for REF, candidates scored.")
@click.option("--accept", nargs=2, type=(str, int), default=None, metavar="REF N", help="Take candidate N for REF.")
@click.option("--forget", "forget_ref", default=None, metavar="REF", help="Drop what was found for REF.")
@click.option("--json", "as_json", is_flag=True, help="With --show: print the resolution as JSON.")
@click.pass_obj
def resolve_command(
    ctx: Context,
    refs: tuple[str, ...],
    everything: bool,
    query: str | None,
    dry_run: bool,
    retry: bool,
    sources: tuple[str, ...],
    show_ref: str | None,
    accept: tuple[str, int] | None,
    forget_ref: str | None,
    as_json: bool,
) -> None:
    """Find each paper online: its real title, authors, venue, arXiv id and PDF link, verified and kept.

    REF is an id, a unique id prefix (4+ characters) or #N; --all or -q Q choose papers instead. Sent: two or
    three phrases of each abstract to arXiv (and Semantic Scholar, OpenAlex with a key), a found title to DBLP.
    A paper found is not asked again (--forget REF first); one not found is asked again with --retry or after
    30 days. A near miss is kept as candidates: --show REF lists them, --accept REF N takes one.
    """
    asked = [name for name, given in (("--show", show_ref), ("--accept", accept), ("--forget", forget_ref)) if given]
    if asked:
        lookup = [name for name, given in (("REF", refs), ("--all", everything), ("-q", query), ("--dry-run", dry_run),
                                           ("--retry", retry), ("--source", sources)) if given]  # fmt: skip
        if len(asked) > 1 or lookup:
            fail(f"{asked[0]} goes alone (not with {(asked[1:] + lookup)[0]})")
        if show_ref is not None:
            _show(ctx, show_ref, as_json)
        elif accept is not None:
            _accept(ctx, *accept)
        else:
            _forget(ctx, forget_ref or "")
        return
    if as_json:
        fail("--json goes with --show")
    chosen = _chosen(ctx, refs, everything, query)
    settings = _settings(sources)
    _look_up(ctx, chosen, settings, dry_run=dry_run, retry=retry)


# ----- which papers -----------------------------------------------------------------------------------------


def _chosen(ctx: Context, refs: tuple[str, ...], everything: bool, query: str | None) -> list[Paper]:
    """The papers named, all, or those matching the query, in list order; never the whole list unasked."""
    given = [name for name, value in (("REF", refs), ("--all", everything), ("-q", query)) if value]
    if not given:
        fail("resolve: name the papers to look up (REF..., --all or -q QUERY); nothing is sent otherwise")
    if len(given) > 1:
        fail(f"resolve: {given[0]} and {given[1]} exclude each other")
    papers = ctx.paper_list.papers
    if everything:
        return list(papers)
    if refs:
        return list({paper.id: paper for paper in (ctx.paper(ref) for ref in refs)}.values())
    from .search import matching_papers

    return matching_papers(ctx, query)


def _settings(sources: tuple[str, ...]):
    from ...core.resolve.settings import Settings, SettingsError

    try:
        settings = Settings.from_env(**({"sources": sources} if sources else {}))
    except SettingsError as exc:
        fail(str(exc))
    if not any(settings.enabled(source) for source in SEARCHED):  # nobody asked: "not found" would be untrue
        key = " (openalex is asked only with READLIST_OPENALEX_KEY set)" if "openalex" in sources else ""
        fail(f"--source: none of {', '.join(SEARCHED)} would be asked, and dblp only adds a found paper's venue{key}")
    return settings


# ----- looking up -------------------------------------------------------------------------------------------


def _look_up(ctx: Context, chosen: list[Paper], settings, *, dry_run: bool, retry: bool) -> None:
    from ...core.resolve.engine import Resolver
    from ...core.store.found import query_for

    store = ctx.store
    known = store.resolutions()
    todo = [paper for paper in chosen if (r := known.get(paper.id)) is None or r.is_due(retry=retry)]
    tally = _Tally(before=len(chosen) - len(todo), dry_run=dry_run)
    if not todo:
        click.echo(tally.summary())
        return
    annotations = store.all()
    queries = [query_for(paper, getattr(annotations.get(paper.id), "title", None)) for paper in todo]
    by_id = {paper.id: paper for paper in todo}
    resolver = Resolver(settings)
    results: queue.Queue = queue.Queue()
    worker = threading.Thread(
        target=_run, args=(store, resolver, queries, not dry_run, results.put), name="readlist-resolve", daemon=True
    )
    stopped = False
    with _Progress(len(todo)) as progress:
        worker.start()
        try:
            while (item := _next(results)) is not _DONE:
                if isinstance(item, BaseException):
                    _failed_to_save(ctx, item)
                progress.echo(tally.counted(item, by_id[item.paper_id]))
                progress.advance()
        except KeyboardInterrupt:
            stopped = True
            resolver.cancel.set()
            worker.join(1.0)  # a result being saved is written whole (the write is atomic either way)
            while not results.empty() and isinstance(item := results.get_nowait(), Resolution):
                tally.add(item)  # saved before it was put here
    if not stopped:
        resolver.close()
    for line in tally.problem_lines(resolver.given_up()):
        warn(line)
    if stopped:
        left = len(todo) - tally.done
        click.echo(f"stopped: {tally.summary()} · {left} left (run it again to go on)")
        sys.exit(STOPPED)
    click.echo(tally.summary())
    if tally.problems:
        sys.exit(SOURCE_FAILED)


_DONE = object()


def _run(store, resolver, queries, keep: bool, put: Callable[[object], None]) -> None:
    """The worker: each resolution (saved first when `keep`) put for the main thread, then _DONE; an error
    saving is put instead of the rest."""
    from ...core.store.found import look_up

    try:
        for resolution in look_up(store, resolver, queries, keep=keep):
            put(resolution)
    except (OSError, Timeout) as exc:
        put(exc)
    finally:
        put(_DONE)


def _next(results: queue.Queue):
    """The next result; waiting in short steps so that Ctrl+C is taken at once on every platform."""
    while True:
        try:
            return results.get(timeout=0.2)
        except queue.Empty:
            continue


def _failed_to_save(ctx: Context, exc: BaseException) -> None:
    if isinstance(exc, Timeout):
        fail(f"{ctx.db_file}: locked by another readlist; what was found so far is saved, run it again to go on")
    fail(f"{exc}; what was found before is saved, run it again to go on")


class _Tally(Tally):
    """What a run found, counted, and the line printed for each paper."""

    def __init__(self, before: int, dry_run: bool):
        super().__init__(before)
        self.dry_run = dry_run

    def counted(self, resolution: Resolution, paper: Paper) -> str:
        self.add(resolution)
        return _line(paper, resolution)

    def summary(self, before_hint: str = " (--retry asks again for those not found)") -> str:
        return super().summary(before_hint) + (" (dry run: nothing saved)" if self.dry_run else "")


def _line(paper: Paper, resolution: Resolution) -> str:
    """'#3  a1b2c3d4e5f6  found      Title (arxiv+dblp)'"""
    if resolution.match is not None:
        detail = f"{resolution.match.title} ({resolution.match.source})"
    elif resolution.candidates:
        best = resolution.candidates[0]
        n = len(resolution.candidates)
        detail = f"{n} candidate{'s' if n != 1 else ''}, best {best.score:.2f}: {best.title}"
        detail += f" (see readlist resolve --show #{paper.index})"
    else:
        detail = ""
    return strip_control(f"#{paper.index}  {paper.id}  {resolution.status.value:<9}  {detail}".rstrip())


class _Progress:
    """A progress bar on standard error when it is a terminal (else nothing); lines printed above it."""

    def __init__(self, total: int):
        self.total = total
        self._bar = None
        self._task = None

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            console = Console(stderr=True)
            columns = (TextColumn("resolving"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            self._bar = Progress(
                *columns, console=console, transient=True, redirect_stdout=False, redirect_stderr=False
            )
            self._bar.start()
            self._task = self._bar.add_task("resolving", total=self.total)
        return self

    def __exit__(self, *exc_info) -> None:
        if self._bar is not None:
            self._bar.stop()

    def echo(self, line: str) -> None:
        if self._bar is not None and sys.stdout.isatty():  # the same terminal: above the bar, not through it
            self._bar.console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)
        else:
            click.echo(line)

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)


# ----- one paper's resolution -------------------------------------------------------------------------------


def _resolution_of(ctx: Context, ref: str) -> tuple[Paper, Resolution | None]:
    paper = ctx.paper(ref)
    return paper, ctx.store.resolutions().get(paper.id)


def _show(ctx: Context, ref: str, as_json: bool) -> None:
    paper, resolution = _resolution_of(ctx, ref)
    if resolution is None:
        fail(f"{ref}: not looked up yet (readlist resolve {ref} looks it up)", code=1)
    if as_json:
        echo_json(resolution.to_dict())
        return
    click.echo(strip_control(title_of(paper, ctx.store.get(paper.id))))
    click.echo(f"#{paper.index} · {paper.id} · {resolution.status.value}, checked {resolution.checked_at}")
    if resolution.match is not None:
        click.echo()
        click.echo(f"Found on {resolution.match.source} (score {resolution.match.score:.2f}):")
        for line in _match_lines(resolution.match):
            click.echo(f"  {line}")
    if resolution.candidates:
        click.echo()
        click.echo("Candidates (readlist resolve --accept REF N takes one):")
        for n, candidate in enumerate(resolution.candidates, start=1):
            lines = _match_lines(candidate)
            click.echo(f"  {n}. {candidate.score:.2f}  {lines[0]}")
            for line in lines[1:]:
                click.echo(f"           {line}")
    for problem in resolution.problems:
        click.echo(strip_control(f"problem: {problem}"))


def _match_lines(match: Match) -> list[str]:
    """A match as --show prints it: the title, then who and where, then its ids and link."""
    people = ", ".join(match.authors[:6]) + (", …" if len(match.authors) > 6 else "")
    where = " ".join(str(part) for part in (match.venue or match.journal_ref, match.year) if part)
    ids = [f"arXiv {match.arxiv_id}" if match.arxiv_id else "", f"DOI {match.doi}" if match.doi else ""]
    lines = [match.title, " · ".join(part for part in (people, where) if part), " · ".join(i for i in ids if i)]
    lines.append(match.record_url or match.url or "")
    return [strip_control(line) for line in lines if line]


def _accept(ctx: Context, ref: str, n: int) -> None:
    paper, resolution = _resolution_of(ctx, ref)
    if resolution is None:
        fail(f"{ref}: not looked up yet, so there is no candidate to accept (readlist resolve {ref})")
    try:
        accepted = resolution.accept(n)
    except IndexError as exc:
        fail(f"{ref}: {exc} (see readlist resolve --show {ref})")
    ctx.store.keep_resolutions([accepted])
    ctx.saved()
    click.echo(strip_control(f"#{paper.index}  {paper.id}  found      {accepted.match.title} (accepted)"))


def _forget(ctx: Context, ref: str) -> None:
    paper, _ = _resolution_of(ctx, ref)
    dropped = ctx.store.forget_resolution(paper.id)
    ctx.saved()
    if dropped is None:
        fail(f"{ref}: nothing was found for it, so there is nothing to forget", code=1)
    what = f"{dropped.status.value}: {dropped.match.title}" if dropped.match else dropped.status.value
    click.echo(strip_control(f"#{paper.index}  {paper.id}  forgotten ({what}); the paper shows the file's fields"))
