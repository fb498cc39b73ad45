"""`readlist star/unstar/status/note/tag/title/undo/log`: changing annotations from the command line."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence

import click
from filelock import Timeout

from ...core.files.editor import EditFailed, chosen_editor, decode_text, edit_text, editor_command, text_encodings
from ...core.papers.paper import Paper
from ...core.store.annotation import STATUSES, Annotation, normalize_tags, own_title, title_of
from ...core.store.changes import current_ids
from ...core.store.note_edits import note_size_error
from ...core.text.normalize import quoted, strip_control
from ..context import Context, fail
from ..output import echo_json, paper_line
from .search import QueryCommand, matching_papers


def _line(paper: Paper, ann: Annotation) -> str:
    return paper_line(f"#{paper.index}", paper, ann)


def check_status(status: str) -> None:
    if status not in STATUSES:
        fail(f"{status!r}: not a status (expected {', '.join(STATUSES)})")


def _report(ctx: Context, paper: Paper, ann: Annotation) -> None:
    ctx.saved()
    click.echo(_line(paper, ann))


def _report_all(ctx: Context, papers: list[Paper]) -> None:
    """After a change to several papers: a line for each, as it is now."""
    ctx.saved()
    for paper in papers:
        click.echo(_line(paper, ctx.store.get(paper.id)))


QUERY_HELP = "The papers matching Q (as in `search`; those missing a word are left out) instead of REFs."


def chosen_papers(ctx: Context, refs: Sequence[str], query: str | None) -> list[Paper]:
    """The papers a command changes: those REFs name (each once, in the order given), or those matching all of
    QUERY; never both. A QUERY matching nothing is an error, as is one that cannot choose papers (see
    matching_papers)."""
    if refs and query is not None:
        fail(f"give papers (REF) or -q QUERY, not both ({quoted(refs[0])} and -q {quoted(query)})")
    if query is None:
        if not refs:
            fail("name the papers: REF... (an id, a unique id prefix or #N), or -q QUERY")
        return list({paper.id: paper for paper in map(ctx.paper, refs)}.values())
    chosen = matching_papers(ctx, query)
    if not chosen:
        fail(f"-q {quoted(query)}: no paper matches every word; nothing changed")
    return chosen


@click.command("star")
@click.argument("refs", nargs=-1, metavar="[REF]...")
@click.option("--query", "-q", default=None, metavar="Q", help=QUERY_HELP)
@click.pass_obj
def star_command(ctx: Context, refs: tuple[str, ...], query: str | None) -> None:
    """Star papers. REF is an id, a unique id prefix or #N; several are one step to undo."""
    papers = chosen_papers(ctx, refs, query)
    ctx.store.update_many(papers, starred=True)
    _report_all(ctx, papers)


@click.command("unstar")
@click.argument("refs", nargs=-1, metavar="[REF]...")
@click.option("--query", "-q", default=None, metavar="Q", help=QUERY_HELP)
@click.pass_obj
def unstar_command(ctx: Context, refs: tuple[str, ...], query: str | None) -> None:
    """Remove papers' stars; several are one step to undo."""
    papers = chosen_papers(ctx, refs, query)
    ctx.store.update_many(papers, starred=False)
    _report_all(ctx, papers)


@click.command("status")
@click.argument("args", nargs=-1, metavar="[REF]... unread|reading|read")
@click.option("--query", "-q", default=None, metavar="Q", help=QUERY_HELP)
@click.pass_obj
def status_command(ctx: Context, args: tuple[str, ...], query: str | None) -> None:
    """Set papers' reading status: unread, reading or read (the last argument); several are one step to undo."""
    if not args or (len(args) == 1 and query is None and args[0] not in STATUSES):
        fail("missing the status: unread, reading or read (after the papers)")
    *refs, status = args
    check_status(status)
    papers = chosen_papers(ctx, refs, query)
    ctx.store.update_many(papers, status=status)
    _report_all(ctx, papers)


def edit_note_text(initial: str) -> str:
    """Run $VISUAL or $EDITOR (default vi) on a temp file holding `initial`; returns the saved text."""
    try:
        command = editor_command()
    except ValueError as exc:
        fail(f"{exc}; the note is unchanged")
    if not chosen_editor() and not sys.stdin.isatty():  # vi with no terminal would wait forever
        fail("no $VISUAL or $EDITOR is set and there is no terminal for vi; use --text or --append")
    try:
        return edit_text(
            initial + "\n" if initial else "",
            command,
            lambda argv: subprocess.run(argv).returncode,
            refuse=note_size_error,
        )
    except EditFailed as exc:
        kept = f", your text is kept in {exc.kept}" if exc.kept else ""
        fail(f"{exc}; the note is unchanged{kept}")


def _text_of(value: str) -> str:
    """An option's text; "-" stands for what standard input holds (UTF-8, else the locale's encoding)."""
    if value != "-":
        return value
    raw = sys.stdin.buffer.read()
    try:
        text = decode_text(raw)
    except UnicodeDecodeError:
        fail(f"standard input is not {text_encodings()} text; the note is unchanged")
    if "\0" in text:
        fail("standard input holds a NUL character (\\0), which a note cannot hold; the note is unchanged")
    return text


@click.command("note")
@click.argument("ref")
@click.option("--text", "text", default=None, metavar="T", help="Replace the note with T (empty: remove it; -: stdin).")
@click.option(
    "--append",
    "appends",
    multiple=True,
    metavar="T",
    help="Add T as a new line at the end of the note (repeatable: each in order; -: stdin).",
)
@click.option("--edit", is_flag=True, help="Edit the note in $VISUAL or $EDITOR.")
@click.pass_obj
def note_command(ctx: Context, ref: str, text: str | None, appends: tuple[str, ...], edit: bool) -> None:
    """Print a paper's note, or change it (Markdown text). A T of "-" is read from standard input."""
    if sum([text is not None, bool(appends), edit]) > 1:
        fail("use only one of --text, --append and --edit")
    if appends.count("-") > 1:
        fail("--append -: standard input can be read only once")
    paper = ctx.paper(ref)
    current = ctx.store.get(paper.id).note
    if text is None and not appends and not edit:
        if current:
            click.echo(strip_control(current, keep_tabs=True))
        return
    joined = False
    try:
        if edit:
            ann, joined = ctx.store.edit_note(paper, current, edit_note_text(current))
        elif appends:
            lines = [line.rstrip() for line in map(_text_of, appends)]
            ann = ctx.store.append_note(paper, "\n".join(line for line in lines if line))  # one step to undo
        else:
            ann = ctx.store.set_note(paper, _text_of(text or ""))
    except ValueError as exc:  # a note longer than a note may be
        fail(f"{exc}; the note is unchanged")
    ctx.saved()
    click.echo(f"{_line(paper, ann)}  (note: {len(ann.note)} characters)")
    if joined:
        click.echo("The note was changed elsewhere while you edited it: both versions are kept, yours first.", err=True)


@click.command("tag", cls=QueryCommand, context_settings={"help_option_names": ["--help"]})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[REF]... [+name|-name|name]...")
@click.option("--query", "-q", default=None, metavar="Q", help=QUERY_HELP)
@click.pass_obj
def tag_command(ctx: Context, args: tuple[str, ...], query: str | None) -> None:
    """Add (+name or name) and remove (-name) tags; with none, print the papers' tags.

    After the first REF, more papers are named by #N or their full id; any other word is a tag. Several papers
    are one step to undo, each keeping its other tags.
    """
    refs, changes = _refs_and_changes(ctx, args, query)
    papers = chosen_papers(ctx, refs, query)
    if not changes:
        if len(papers) == 1 and query is None:
            for tag in ctx.store.get(papers[0].id).tags:
                click.echo(strip_control(tag))
        else:
            _report_all(ctx, papers)
        return
    added, removed = [], []
    for change in changes:
        name = normalize_tags([change[1:] if change[:1] in "+-" else change])
        if not name:
            fail(f"{change!r}: expected +name or -name")
        key = name[0].casefold()  # the later of "+x" and "-x" wins
        added, removed = [t for t in added if t.casefold() != key], [t for t in removed if t.casefold() != key]
        (removed if change.startswith("-") else added).append(name[0])
    if len(papers) == 1:
        _report(ctx, papers[0], ctx.store.change_tags(papers[0], added, removed))
        return
    ctx.store.change_tags_many(papers, added, removed)
    _report_all(ctx, papers)


def _refs_and_changes(ctx: Context, args: Sequence[str], query: str | None) -> tuple[list[str], list[str]]:
    """`tag`'s papers and its tag changes. The first argument names a paper (unless -q does), and so does each
    one after it that is #N or a paper's full id; the rest are changes, so `tag #3 theory` adds the tag as
    before. With -q, an argument naming a paper so is one given both ways (a tag written so takes a +)."""
    ids = ctx.paper_list.by_id

    def names_a_paper(arg: str) -> bool:
        return bool(_PAPER_NUMBER.fullmatch(arg)) or arg.lower() in ids

    if query is not None:
        return [arg for arg in args if names_a_paper(arg)], list(args)
    end = 1 if args else 0
    while end < len(args) and names_a_paper(args[end]):
        end += 1
    return list(args[:end]), list(args[end:])


_PAPER_NUMBER = re.compile(r"#[0-9]+")


@click.command("title")
@click.argument("ref")
@click.argument("words", nargs=-1)
@click.option("--clear", is_flag=True, help="Go back to the paper's own title (the file's, or the derived one).")
@click.pass_obj
def title_command(ctx: Context, ref: str, words: tuple[str, ...], clear: bool) -> None:
    """Print the title shown for a paper, or give it your own (the words after REF); --clear removes yours.

    A title starting with "-" goes after "--": `readlist title #3 -- -Net revisited`.
    """
    if clear and words:
        fail("give a title or --clear, not both")
    paper = ctx.paper(ref)
    if not words and not clear:
        click.echo(strip_control(title_of(paper, ctx.store.get(paper.id))))
        return
    _report(ctx, paper, ctx.store.update(paper, title=None if clear else own_title(paper, " ".join(words))))


@click.command("undo")
@click.pass_obj
def undo_command(ctx: Context) -> None:
    """Undo the newest change to a paper of this list (made here or in the terminal UI).

    Then a merge: once nothing made since it is left to undo, the database goes back to how it was before.
    Exit status 1 when there is nothing to undo.
    """
    by_id = {paper.id: paper for paper in ctx.paper_list.papers}
    store = ctx.store

    def name_of(pid: str) -> str | None:
        return title_of(by_id[pid], store.get(pid)) if pid in by_id else None

    undone = store.undo(by_id, name_of)
    ctx.saved()
    if undone:
        click.echo(strip_control(undone))
        return
    try:
        kept = store.undo_merge()
    except (OSError, Timeout) as exc:
        fail(f"{ctx.db_file}: cannot take the merge back ({getattr(exc, 'strerror', None) or exc})")
    if kept:
        click.echo(f"undid the merge: the database is as it was before it (the merged one is kept as {kept})")
        return
    backup = store.merge_backup()
    merged = f" since the merge; to take the merge back, copy {backup} over {ctx.db_file}" if backup else ""
    click.echo(f"nothing to undo{merged}")
    raise SystemExit(1)  # `while readlist undo; do :; done` ends


@click.command("log")
@click.option("--limit", type=int, default=20, show_default=True, help="How many entries.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@click.pass_obj
def log_command(ctx: Context, limit: int, as_json: bool) -> None:
    """The newest changes first: time, paper, what changed."""
    if limit < 1:
        fail(f"--limit {limit}: expected a number of entries, 1 or more")
    events = ctx.store.events(limit)
    if as_json:
        keys = ("time", "paper", "action", "before", "after", "group", "undoes")
        echo_json(
            [{k: getattr(e, k) for k in keys} | ({"note_edit": e.note_edit} if e.note_edit else {}) for e in events]
        )
        return
    by_id = ctx.paper_list.by_id
    renamed = current_ids(ctx.store.events())  # a paper's id now, after its text changed
    shown = ctx.store.shown_as()  # and the paper of this list showing it, when it is another file's version
    for event in events:
        record = renamed.get(event.paper, event.paper)
        paper = by_id.get(shown.get(record, record))
        where = f"#{paper.index} {paper.title}" if paper else f"{event.paper} (not in this paper list)"
        what = event.describe()
        if event.action == "undo":
            what = "undo " + ", ".join(key for key in event.changed if key != "read_at")
        click.echo(strip_control(f"{event.time}  {what:<28}  {where}"))
