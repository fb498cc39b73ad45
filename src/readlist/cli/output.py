"""Printing to a terminal whose encoding lacks some characters (★ … → █ under a Latin-1 locale)."""

from __future__ import annotations

import codecs
import sys
import unicodedata

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
