"""The `O` dialog: every link to a paper, best first (what each leads to above it); Enter opens one, Esc closes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ....core.papers.links import Link
from ...display import paper_heading, safe
from .base import ChoiceDialog


class LinksScreen(ChoiceDialog[str]):
    """Returns the chosen link's URL, or None."""

    NAME = "links"

    def __init__(self, title: str, links: Sequence[Link]) -> None:
        self.links = tuple(links)
        choices = [(self._prompt(link), link.url) for link in links]
        super().__init__(paper_heading("Links", title), choices, "Enter opens the link in the browser · Esc closes")

    @staticmethod
    def _prompt(link: Link) -> Text:
        prompt = Text(safe(link.label), "bold")  # never markup: a URL is the paper file's text
        prompt.append("\n  ")
        prompt.append(safe(link.url), "dim")
        return prompt
