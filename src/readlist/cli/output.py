"""Printing: to a terminal whose encoding lacks some characters (★ … → █ under a Latin-1 locale), JSON that
keeps the data exact, and papers and their annotations as every command shows them."""

from __future__ import annotations

import codecs
import json
import os
import re
import sys
import unicodedata
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

import click
import orjson

from ..core.export.paper_json import paper_json
from ..core.papers.describe import title_origin, title_origin_line, where_and_ids
from ..core.papers.links import IN_ABSTRACT, source_links
from ..core.papers.paper import Paper
from ..core.store.annotation import Annotation, missing_title, title_of
from ..core.text.normalize import controls_in_utf8_json, escape_controls_in_json, hashtags, strip_control, to_plain

ERRORS = "readlist-lookalike"
_LOOKALIKES = {
    "★": "*",
    "…": "...",
    "→": "->",
    "·": ".",
    "─": "-",
    "—": "--",
    "–": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "░": "-",
    "█": "#",
    **dict(zip("▁▂▃▄▅▆▇", "_.-~=+%", strict=True)),  # the sparkline's rising blocks
}


def _lookalike(exc: UnicodeError) -> tuple[str, int]:
    """An encoding error handler: ASCII look-alikes (★ -> *, é -> e), else "?"."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for char in exc.object[exc.start : exc.end]:
        plain = "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())
        out.append(_LOOKALIKES.get(char) or plain or "?")
    return "".join(out), exc.end


def tolerate_unencodable_output() -> None:
    """Let stdout and stderr print what their encoding lacks as look-alikes, never as a traceback
    (which came after a change was saved, so a script retrying the command made it twice)."""
    codecs.register_error(ERRORS, _lookalike)
    for stream in (sys.stdout, sys.stderr):
        # "surrogateescape" (a C locale, UTF-8 mode) already writes everything: left as it is
        if getattr(stream, "errors", None) in ("strict", "backslashreplace") and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=ERRORS)


def fits_stdout(text: str) -> bool:
    """Whether standard output's encoding holds every character of `text` (no look-alike needed)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def echo_json(obj: Any) -> None:
    """Print `obj` as indented JSON that a JSON reader gets back exactly: with ASCII escapes (\\u2605) when
    stdout's encoding lacks a character, which a look-alike would replace in the data itself (★ read as *), and
    always for control characters (a CSI, a bidi mark), which a terminal would obey."""
    text = json.dumps(obj, ensure_ascii=False, indent=2)
    click.echo(escape_controls_in_json(text) if fits_stdout(text) else json.dumps(obj, indent=2))


def ascii_json(text: str) -> str:
    """JSON text with its characters past ASCII written as \\u escapes, as `json.dumps` writes them by default (only
    strings hold such characters, so the JSON means the same)."""
    return _PAST_ASCII.sub(lambda match: json.dumps(match.group())[1:-1], text)


_PAST_ASCII = re.compile(r"[^\x00-\x7f]+")


def echo_json_list(items: Iterable[Any]) -> None:
    """`echo_json` of a list, written as it is made, a few hundred items at a time, in the same text: `list --json` of
    100,000 papers held the whole list, its text and two copies of it at once (2.8 GB). Each batch is encoded by orjson
    (ten times as fast, the same text) and checked for control characters once; a batch orjson refuses (a lone
    surrogate) is written an item at a time by the standard library."""
    utf8 = _stdout_takes_utf8()
    started = False
    for batch in batched(items, 256):
        try:
            data = orjson.dumps(batch, option=orjson.OPT_INDENT_2)
        except TypeError:
            click.echo(("," if started else "[") + _json_items(batch), nl=False)
        else:  # '[\n  {...},\n  {...}\n]', indented as json.dumps indents the list's items: the brackets left out
            data = data[1:-2]
            if utf8 and not controls_in_utf8_json(data):
                click.echo((b"," if started else b"[") + data, nl=False)
            else:
                _echo_json_text(data.decode(), batch, started)
        started = True
    click.echo("\n]" if started else "[]")


def echo_lines(lines: Iterable[str]) -> None:
    """Print each of `lines` on a line of its own, as they come, a few hundred at a time: a click.echo a line (each
    checking the terminal for colours and flushing) took 0.8 s of `readlist list`'s 100,000 lines."""
    for batch in batched(lines, 256):
        click.echo("\n".join(batch))


def batched(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """`items` in lists of `size` (the last shorter)."""
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def _stdout_takes_utf8() -> bool:
    """Whether UTF-8 bytes can go to standard output as they are: its encoding is UTF-8, it has bytes beneath it, and
    it writes a line end as "\n" (decoding JSON text to have it encoded again took a second of 100,000 papers)."""
    try:
        utf8 = codecs.lookup(getattr(sys.stdout, "encoding", None) or "ascii").name == "utf-8"
    except LookupError:
        return False
    return utf8 and os.linesep == "\n" and getattr(sys.stdout, "buffer", None) is not None


def _echo_json_text(text: str, batch: list[Any], started: bool) -> None:
    """A batch's JSON text, its control characters written as escapes; when standard output's encoding lacks some
    character, each item as `echo_json` writes it."""
    if fits_stdout(text):
        click.echo(("," if started else "[") + escape_controls_in_json(text), nl=False)
    else:
        click.echo(("," if started else "[") + _json_items(batch), nl=False)


def _json_items(batch: list[Any]) -> str:
    """The items of `batch` as `echo_json` writes each, indented as a list's items, a comma between them."""
    texts = []
    for item in batch:
        try:
            text = orjson.dumps(item, option=orjson.OPT_INDENT_2).decode()
        except TypeError:
            text = json.dumps(item, ensure_ascii=False, indent=2)
        text = escape_controls_in_json(text) if fits_stdout(text) else json.dumps(item, indent=2)
        texts.append("\n  " + text.replace("\n", "\n  "))  # as json.dumps indents
    return ",".join(texts)


# ----- papers and annotations as the commands print them -------------------------------------------------


def annotation_dict(ann: Annotation) -> dict:
    tags = list(ann.tags)
    return {"starred": ann.starred, "status": ann.status, "tags": tags, "note": ann.note, "read_at": ann.read_at}


def paper_dict(paper: Paper, ann: Annotation | None) -> dict:
    """A paper with its annotation, in the one shape of every JSON readlist writes (`list`, `show`, `search`, and the
    JSON export's papers): control characters kept, `echo_json` writes them as escapes."""
    return paper_json(paper, ann)


def record_lines(paper: Paper, ann: Annotation) -> list[str]:
    """What `show` prints of the paper's record, a line each: all its authors, its venue, year and ids, and where the
    title shown comes from ('title derived from the abstract')."""
    lines = [", ".join(paper.authors)] if paper.authors else []
    if where := where_and_ids(paper):
        lines.append(where)
    lines.append(title_origin_line(paper, ann.title))
    return [strip_control(line) for line in lines]


def link_lines(paper: Paper) -> list[str]:
    """The paper's links, best first, a line each: a link of its record followed by what it leads to ('PDF'), a link
    in its abstract alone."""
    links = source_links(paper)
    return [strip_control(link.url if link.label == IN_ABSTRACT else f"{link.url}  {link.label}") for link in links]


def record_dict(paper: Paper, ann: Annotation) -> dict:
    """What `show --json` adds: where the title comes from (yours, given, found, derived), the links best first."""
    links = [{"label": link.label, "url": link.url} for link in source_links(paper)]
    return {"title_origin": title_origin(paper, ann.title), "links": links}


def printed_title(paper: Paper, ann: Annotation) -> str:
    """The title a command prints: the user's own, else the paper's, without terminal control characters."""
    return strip_control(title_of(paper, ann))


def paper_line(number: str, paper: Paper, ann: Annotation) -> str:
    """One paper on one line: number, id, star, status, title, tags."""
    mark = "★" if ann.starred else " "
    return f"{number}  {paper.id}  {mark} {ann.status:<7}  {printed_title(paper, ann)}{tag_suffix(ann)}"


def tag_suffix(ann: Annotation) -> str:
    return "  " + hashtags(ann.tags) if ann.tags else ""


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


def missing_line(ann: Annotation) -> str:
    mark = "★" if ann.starred else " "
    return f"{strip_control(ann.id)}  {mark} {ann.status:<7}  {strip_control(missing_title(ann))}{tag_suffix(ann)}"


def missing_dict(ann: Annotation) -> dict:
    title = strip_control(missing_title(ann))
    return {"id": ann.id, "title": title, "missing": True, "snippet": ann.snippet} | annotation_dict(ann)


def show_missing(ann: Annotation, as_json: bool) -> None:
    if as_json:
        echo_json(missing_dict(ann))
        return
    click.echo(strip_control(missing_title(ann)))
    shown = strip_control(ann.id)  # as a damaged or hand-made database may hold it
    click.echo(f"{shown} · not in this paper list (readlist reattach {shown} REF moves it onto a paper)")
    click.echo(marks_line(ann))
    if ann.snippet:
        click.echo()
        click.echo(strip_control(to_plain(ann.snippet)))
    echo_note(ann)
