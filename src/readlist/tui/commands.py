"""Command palette providers: every action of the main screen, and jumping to a paper by title."""

from __future__ import annotations

import asyncio
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from .actions import ACTIONS
from .display import safe


class ActionCommands(Provider):
    """The same actions as the keys, found by name."""

    def _main(self):
        from .screens.main import MainScreen

        screen = self.app.screen_stack[0] if self.app.screen_stack else None
        for candidate in reversed(self.app.screen_stack):
            if isinstance(candidate, MainScreen):
                return candidate
        return screen

    async def discover(self) -> Hits:
        main = self._main()
        for action in ACTIONS:
            if action.palette:
                yield DiscoveryHit(
                    Content(f"{action.help} ({action.display_keys})"),
                    partial(main.run_action, action.action),
                    help=action.description,
                )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        main = self._main()
        for action in ACTIONS:
            if not action.palette:
                continue
            label = f"{action.help} ({action.display_keys})"
            score = matcher.match(label)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(label), partial(main.run_action, action.action), help=action.description
                )


class PaperCommands(Provider):
    """Jump to any paper by a fuzzy match on its title (rapidfuzz, so 100k titles stay quick)."""

    async def startup(self) -> None:
        if self.app.palette_titles is None:  # the paper list never changes while the app runs: once is enough
            papers = self.app.papers.papers
            self.app.palette_titles = await asyncio.to_thread(lambda: [safe(paper.title) for paper in papers])
        self.titles = self.app.palette_titles

    async def search(self, query: str) -> Hits:
        query = query.strip()
        if len(query) < 2:
            return
        from rapidfuzz import fuzz, process

        found = await asyncio.to_thread(
            process.extract, query, self.titles, scorer=fuzz.WRatio, limit=15, score_cutoff=50
        )
        main = self.app.main_screen
        for title, score, position in found:
            paper = self.app.papers.papers[position]
            yield Hit(
                score / 100,
                Content(f"#{paper.index} {title}"),
                partial(main.jump_to, position),
                text=title,
                help="Jump to this paper",
            )
