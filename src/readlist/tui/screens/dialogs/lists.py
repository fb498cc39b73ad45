"""The lists screen (`L`): every paper file opened with the database, with its progress; Enter opens one, Esc
closes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ....core.store.lists import KnownList, Progress, when
from ...display import safe
from .base import ChoiceDialog


class ListsScreen(ChoiceDialog[str]):
    """Returns the chosen list's path, or None. The list opened last comes first; the one shown is marked, and the
    first other one highlighted, so that Enter goes back to the list opened before."""

    NAME = "lists"

    def __init__(self, lists: Sequence[tuple[KnownList, Progress]], shown: str | None) -> None:
        choices = [(self._prompt(known, figures, known.path == shown), known.path) for known, figures in lists]
        hint = "Enter opens the list · Esc closes · readlist lists --forget NAME drops one"
        super().__init__(Text("Lists"), choices, hint)
        self.highlight = next((n for n, (known, _) in enumerate(lists) if known.path != shown), 0)

    @staticmethod
    def _prompt(known: KnownList, figures: Progress, shown: bool) -> Text:
        prompt = Text(safe(known.name), "bold")  # never markup: a name is the paper file's text
        if shown:
            prompt.append("  (shown)", "italic")
        if not known.exists:
            prompt.append("  (file gone)", "bold red")
        prompt.append(f"\n  {figures.figures()} · last opened {when(known.last_opened)}")
        prompt.append(f"\n  {safe(known.path)}", "dim")
        return prompt
