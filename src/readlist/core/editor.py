"""The user's text editor, as the environment names it: $VISUAL, then $EDITOR, then vi; and reading what it saved."""

from __future__ import annotations

import codecs
import locale
import os
import shlex


def editor_command() -> list[str]:
    """The editor's command line, split like a shell would ("code --wait" is two words).

    Raises ValueError when the variable cannot be split (an unclosed quote).
    """
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                command = shlex.split(value)
            except ValueError as exc:
                raise ValueError(f"cannot read ${name} ({exc})") from None
            if command:
                return command
    return ["vi"]


def chosen_editor() -> bool:
    """Whether the user named an editor ($VISUAL or $EDITOR), rather than readlist falling back to vi."""
    return any(os.environ.get(name, "").strip() for name in ("VISUAL", "EDITOR"))


def locale_encoding() -> str:
    """The encoding the locale gives text files (ISO-8859-1 under en_US.ISO-8859-1), as Python names it."""
    try:
        return codecs.lookup(locale.getencoding()).name
    except LookupError:  # a name Python does not know: only UTF-8 is tried
        return "utf-8"


def text_encodings() -> str:
    """The encodings `decode_text` reads, for a message: "UTF-8 or ISO8859-1"."""
    return " or ".join(dict.fromkeys(["UTF-8", locale_encoding().upper()]))


def decode_text(raw: bytes) -> str:
    """Text an editor saved: UTF-8, else in the locale's encoding (an editor that follows a Latin-1 locale).

    Raises UnicodeDecodeError when it is neither.
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode(locale_encoding())
