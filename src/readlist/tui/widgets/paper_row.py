"""One row of the paper list: star, status, mark, year and first author (when the list has them), title
(matches highlighted, cut with an ellipsis) and tags."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

from ...core.papers.describe import surname
from ...core.papers.paper import Paper
from ...core.store.annotation import title_of
from ...core.text.normalize import hashtags
from ..display import row_marks, safe

Spans = Callable[[str], list[tuple[int, int]]]
MARK = "▸"  # in the space before the title of a marked paper
SURNAME_CELLS = 9  # of the first author's surname in the byline column
SOURCE_CELLS = 16  # of the name of the paper's list, before its title (`in:all`)
BYLINE_CELLS = 4 + 1 + SURNAME_CELLS + 1  # "2022 van der … "
BYLINE_MIN_WIDTH = 40  # a narrower list keeps its room for titles


@dataclass(frozen=True)
class RowLook:
    """What one row shows besides the title (from the annotations)."""

    starred: bool = False
    status: str = "unread"
    tags: tuple[str, ...] = ()
    title: str | None = None
    marked: bool = False
    source: str | None = None  # the name of the paper's list, when the view holds every list's (`in:all`)


def fit(text: str, cells: int) -> str:
    """`text` cut to at most `cells` terminal cells with an ellipsis (a CJK character takes two)."""
    head = text[: cells + 1]
    if len(head) > cells and head.isascii() and head.isprintable():
        # A cell a character, each its own: the text is longer than `cells` and is cut where rich would cut it,
        # without measuring the whole of it (most derived titles end in a non-ASCII '…', which made rich measure
        # every character of a long title one by one).
        return text[: max(cells - 1, 0)].rstrip() + "…"
    if cell_len(text) <= cells:
        return text
    return set_cell_size(text, max(cells - 1, 0)).rstrip() + "…"  # padded where a wide character did not fit


def has_bylines(papers: Sequence[Paper]) -> bool:
    """Whether any paper has a year or an author: the list then shows them in a column (a plain list of abstracts
    has neither, and is drawn as it always was)."""
    return any(paper.record is not None and (paper.year or paper.authors) for paper in papers)


def byline(paper: Paper) -> str:
    """The byline column of a row: '2022 Doe        ', blank where the paper lacks a year or authors."""
    year = str(paper.year) if paper.year and paper.year < 10000 else ""
    family = fit(safe(surname(paper.authors[0])), SURNAME_CELLS) if paper.authors else ""
    return f"{year:<4} {set_cell_size(family, SURNAME_CELLS)} "


def render_row(
    paper: Paper,
    look: RowLook,
    width: int,
    style_of: Callable[[str], Style],
    spans: Spans | None,
    bylines: bool = False,
) -> Text:
    star, status, status_class = row_marks(look.starred, look.status)
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    text.append(star, style_of("star"))
    text.append(status, style_of(status_class))
    text.append(MARK if look.marked else " ")
    if bylines and width >= BYLINE_MIN_WIDTH:
        text.append(byline(paper), style_of("byline"))
        width -= BYLINE_CELLS  # what follows fits the rest, as in a row without the column
    if look.source is not None:
        text.append(set_cell_size(fit(safe(look.source), SOURCE_CELLS - 1), SOURCE_CELLS), style_of("byline"))
        width -= SOURCE_CELLS
    title = safe(title_of(paper, look))
    tags = ("  " + hashtags(look.tags)) if look.tags else ""
    room = max(width - 4 - min(cell_len(tags), width // 3), 8)
    shown = fit(title, room)
    title_text = Text(shown)
    if spans is not None:
        match_style = style_of("match")
        for start, end in spans(shown):
            title_text.stylize(match_style, start, end)
    text.append_text(title_text)
    if tags:
        left = width - 4 - cell_len(shown)
        if cell_len(tags) > left:  # cut like the title, never mid-tag without a mark
            tags = fit(tags, left) if left > 4 else ""
        text.append(tags, style_of("tags"))
    if look.marked:  # the mark, title and tags: the star and status keep their colours
        text.stylize(style_of("marked"), 2)
    return text
