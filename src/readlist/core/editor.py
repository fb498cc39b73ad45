"""The user's text editor, as the environment names it: $VISUAL, then $EDITOR, then vi."""

from __future__ import annotations

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
