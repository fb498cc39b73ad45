"""The user's text editor, as the environment names it: $VISUAL, then $EDITOR, then vi; and reading what it saved."""

from __future__ import annotations

import codecs
import locale
import os
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path


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


class EditFailed(Exception):
    """The editor could not be run, failed, or saved what cannot be read; `kept` is the file then left
    in place, the only copy of what was typed."""

    def __init__(self, message: str, kept: Path | None = None) -> None:
        super().__init__(message)
        self.kept = kept


def edit_text(
    initial: str,
    command: list[str],
    run: Callable[[list[str]], int],
    prefix: str = "readlist-note-",
    refuse: Callable[[str], str | None] = lambda text: None,
) -> str:
    """What the editor `command` saved of a temp file holding `initial`. `run(argv)` runs it and gives its exit
    status (the terminal UI hands the screen over meanwhile). Raises EditFailed; the temp file goes, unless it
    holds text that cannot be read or cannot be kept (`refuse(text)` says why, say a note too long)."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".md")
    path, keep = Path(name), False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(initial)
        try:
            code = run([*command, name])
        except OSError as exc:
            raise EditFailed(f"cannot run the editor {command[0]!r} ({exc.strerror or exc})") from None
        if code != 0:
            raise EditFailed(f"the editor exited with status {code}")
        try:
            text = decode_text(path.read_bytes())
        except OSError as exc:
            raise EditFailed(f"cannot read the edited note ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            keep = True
            raise EditFailed(f"cannot read the edited note as {text_encodings()}", kept=path) from None
        if "\0" in text:
            keep = True
            raise EditFailed("the edited note holds a NUL character (\\0), which a note cannot hold", kept=path)
        refused = refuse(text)
        if refused:
            keep = True
            raise EditFailed(refused, kept=path)
        return text
    finally:
        if not keep:
            path.unlink(missing_ok=True)
