"""Printing to a terminal whose encoding lacks some characters (★ … → █ under a Latin-1 locale)."""

from __future__ import annotations

import codecs
import json
import sys
import unicodedata
from typing import Any

import click

from ..core.text.normalize import escape_controls_in_json

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
