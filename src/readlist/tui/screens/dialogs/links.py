"""The `O` dialog: every link to a paper, best first (what each leads to above it); Enter opens one, Esc closes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ....core.papers.links import Link
from ...display import paper_heading, safe
from .base import Dialog


class LinksScreen(Dialog[str | None]):
    """Returns the chosen link's URL, or None."""

    def __init__(self, title: str, links: Sequence[Link]) -> None:
        super().__init__()
        self.title_shown = title
        self.links = tuple(links)

    def compose(self) -> ComposeResult:
        with Vertical(id="links-dialog", classes="dialog"):
            yield Static(paper_heading("Links", self.title_shown), classes="dialog-title")
            yield OptionList(*(self._option(n, link) for n, link in enumerate(self.links)), id="links-list")
            yield Static("Enter opens the link in the browser · Esc closes", classes="dialog-hint")

    @staticmethod
    def _option(n: int, link: Link) -> Option:
        prompt = Text(safe(link.label), "bold")  # never markup: a URL is the paper file's text
        prompt.append("\n  ")
        prompt.append(safe(link.url), "dim")
        return Option(prompt, id=str(n))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.links[int(event.option.id or 0)].url)
