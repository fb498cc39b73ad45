"""Command palette providers: every action of the main screen, and jumping to a paper found as the search bar does."""

from __future__ import annotations

import asyncio
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.markup import escape

from ..core.store.annotation import title_of
from .actions import ACTIONS
from .display import safe


class ActionCommands(Provider):
    """The same actions as the keys, found by name."""

    def _main(self):
        return self.app.main_screen

    async def discover(self) -> Hits:
        main = self._main()
        for action in ACTIONS:
            if action.palette:
                yield DiscoveryHit(
                    Content(action.label),
                    partial(main.run_action, action.action),
                    help=action.description,
                )

    async def search(self, query: str) -> Hits:
        """Actions whose line or short name (the one shown under it) match; a short name that is the
        query, or starts with it, comes first ("star" is Star, not the filter that mentions starred)."""
        matcher = self.matcher(query)
        # Textual scores the query matched against itself highest: no fuzzy match of it scores more.
        ceiling = matcher.match(query)
        main = self._main()
        for action in ACTIONS:
            if not action.palette:
                continue
            label = action.label
            score = max(matcher.match(label), matcher.match(action.description))
            if score > 0:
                yield Hit(
                    score + ceiling * name_rank(query, action.description),
                    matcher.highlight(label),
                    partial(main.run_action, action.action),
                    help=action.description,
                )


def name_rank(query: str, name: str) -> int:
    """2 when the query is the short name, 1 when the name starts with it, else 0 (case ignored)."""
    query, name = query.strip().casefold(), name.casefold()
    if not query:
        return 0
    return 2 if name == query else 1 if name.startswith(query) else 0


class PaperCommands(Provider):
    """Jump to any paper, found as the search bar finds it (title, abstract, note and tags, typos forgiven); while
    the search index is being built, by a fuzzy match on the titles (rapidfuzz, so 100k titles stay quick)."""

    LIMIT = 15

    async def startup(self) -> None:
        papers, notes = self.app.papers.papers, self.app.store.all()
        own = frozenset((pid, note.title) for pid, note in notes.items() if note.title)  # the titles users gave
        made = self.app.palette_titles
        if made is None or made[0] != own:  # made again only when a title of one's own changed

            def titles() -> list[str]:
                return [safe(title_of(paper, notes.get(paper.id))) for paper in papers]

            made = self.app.palette_titles = (own, await asyncio.to_thread(titles))
        self.titles = made[1]

    async def search(self, query: str) -> Hits:
        query = query.strip()
        if len(query) < 2:
            return
        main = self.app.main_screen
        index = main.searcher.index
        if index is None:
            found = await asyncio.to_thread(rank_titles, query, self.titles, self.LIMIT)
            hits = [(position, score, "by title: the search index is being built") for position, score in found]
        else:
            hits = await self._searched(index, query)
        for position, score, matched in hits:
            paper = self.app.papers.papers[position]
            title = self.titles[position]
            yield Hit(
                score,
                Content(f"#{paper.index} {title}"),
                partial(main.navigator.jump_to, position),
                text=title,
                help=f"Jump to this paper ({matched})",
            )

    async def _searched(self, index, query: str) -> list[tuple[int, float, str]]:
        """The search bar's best answers, on its thread (see MainScreen.run_in_thread); those holding every word
        first, each with the words it matched. Scores stay in 0.5..1, as the actions' fuzzy ones do."""
        store, lane = self.app.store, self.app.lanes["search"]
        result = await asyncio.get_running_loop().run_in_executor(
            lane, lambda: index.search(query, store.all(), self.LIMIT)
        )
        hits = []
        for n, position in enumerate(result.positions):
            full = n < result.full_matches
            score = (1.0 if full else 0.7) - 0.2 * n / self.LIMIT
            words = escape(safe(", ".join(result.matched_terms(position))))  # the help line is read as markup
            hits.append((position, score, f"matched: {words}" if full else f"some words: {words}"))
        return hits


def rank_titles(query: str, titles: list[str], limit: int = 15) -> list[tuple[int, float]]:
    """Titles holding every word of the query, each fuzzily (a typo or a partial word is fine), best first.

    One rapidfuzz pass per word, so words need not be adjacent ("effir retriever" finds
    "EffiR: … efficient retrievers"); the score is the mean word score in 0..1, ties in list order.
    """
    from rapidfuzz import fuzz, process, utils

    scores: dict[int, float] | None = None
    for word in query.split():
        if len(word) < 2:
            continue
        hits = process.extract(
            word, titles, scorer=fuzz.partial_ratio, processor=utils.default_process, limit=None, score_cutoff=75
        )
        found = {position: score for _, score, position in hits}
        scores = found if scores is None else {p: scores[p] + s for p, s in found.items() if p in scores}
        if not scores:
            return []
    if not scores:
        return []
    words = sum(1 for word in query.split() if len(word) >= 2)
    best = sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:limit]
    return [(position, score / (100 * words)) for position, score in best]
