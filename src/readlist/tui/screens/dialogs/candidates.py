"""The `A` dialog for a paper with several possible matches found online: each with its score, who and where;
Enter takes the one chosen as the paper's match, Esc closes."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ....core.papers.describe import short_authors
from ....core.resolve.records import Match
from ...display import paper_heading, safe
from .base import ChoiceDialog


class CandidatesScreen(ChoiceDialog[int]):
    """Returns the chosen candidate's number (from 1, as `readlist resolve --show` numbers them), or None."""

    NAME = "candidates"

    def __init__(self, title: str, candidates: Sequence[Match]) -> None:
        choices = [(self._prompt(match), n) for n, match in enumerate(candidates, start=1)]
        super().__init__(paper_heading("Possible matches", title), choices, "Enter takes the match chosen · Esc closes")

    @staticmethod
    def _prompt(match: Match) -> Text:
        prompt = Text(f"{match.score:.2f}  ", "bold")  # never markup: titles and names come from the services
        prompt.append(safe(match.title), "bold")
        where = " · ".join(str(part) for part in (short_authors(match.authors), match.venue, match.year) if part)
        if where:
            prompt.append("\n      ")
            prompt.append(safe(where), "dim")
        return prompt
