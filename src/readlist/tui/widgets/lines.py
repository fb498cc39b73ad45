"""Drawing the list's and the detail pane's lines for the screen, and moving their scrollbars' thumbs, with no more
work than what the user sees changes.

Textual passes every line a widget draws through its styles cache, which frames it with the widget's border,
padding and effects, and makes a new strip of it each time. Our two scrolling widgets have none of those: their
lines are drawn once and kept, so that pass only copied them, and the copy was styled for the terminal again
(about a third of a navigation key's drawing at 100k papers, where each key scrolls every row of the list).
The screen then cuts each line where the widget's scrollbar covers it: a line given with the blank cells under the
bar apart is cut there without its every segment measured again. The scrollbars keep what they drew for each place of
their thumb: the detail pane's thumb changes with the length of each paper shown.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from math import ceil
from operator import itemgetter

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.color import Color
from textual.css.styles import StylesBase
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style

STEPS = len(ScrollBarRender.VERTICAL_BARS)  # a thumb's ends are drawn in steps of this part of a cell


FINISHED_LINES = 256  # lines kept as given to the screen: a page of each widget, and those scrolled in after it
KEPT_BARS = 64  # scrollbars drawn, kept for their thumb's next time in the same place


def runs(
    text: Text, base: RichStyle, combined: dict[tuple, RichStyle], get_style: Callable[[str | RichStyle], RichStyle]
) -> list[Segment]:
    """`text` cut into runs of one style each, each run's style put on `base`: what rich's `Text.render` gives (and
    `base` added), with each combination of span styles combined once for all lines (kept in `combined`, for one
    `base`) rather than once for each line. `get_style` reads a style's name as rich's console does."""
    plain, spans = text.plain, text.spans
    if not spans:
        return [Segment(plain, base)]  # as rich: the text's own style is left out
    edges = [
        (0, False, 0),
        *((span.start, False, index) for index, span in enumerate(spans, 1)),
        *((span.end, True, index) for index, span in enumerate(spans, 1)),
        (len(plain), True, 0),
    ]
    edges.sort(key=itemgetter(0, 1))
    open_spans: list[int] = []
    segments = []
    for (offset, leaving, index), (next_offset, _, _) in pairwise(edges):
        if leaving:
            open_spans.remove(index)
        else:
            open_spans.append(index)
        if next_offset > offset:
            styles = tuple(spans[index - 1].style if index else text.style for index in sorted(open_spans))
            style = combined.get(styles)
            if style is None:
                parts = [get_style(part) if part else RichStyle.null() for part in styles]
                merged = RichStyle.combine((RichStyle.null(), *parts))
                style = base + merged if merged else base
                if not any(part.link for part in parts):  # a link's style is made anew each time, as rich does
                    combined[styles] = style
            segments.append(Segment(plain[offset:next_offset], style))
    return segments


def fitted(segments: list[Segment], width: int, style: RichStyle) -> Strip:
    """A line's segments as a strip `width` cells wide, padded with `style`: as `Strip.adjust_cell_length` pads it,
    without making a strip of the line first."""
    cells = sum(cell_len(segment.text) for segment in segments)
    if cells > width:
        return Strip(segments, cells).adjust_cell_length(width, style)
    if cells < width:
        segments.append(Segment(" " * (width - cells), style))
    return Strip(segments, width)


class Gutter(Strip):
    """A widget's line and the blank cells after it, under its scrollbar, as one strip. The screen cuts every line
    at the scrollbar's edge (the bar is drawn over the blank cells): cut there, it gives back the two strips it was
    made of, instead of cutting each of the line's segments anew (as long as the rest of a new row's drawing)."""

    __slots__ = ("_parts",)

    def __init__(self, line: Strip, blank: Strip) -> None:
        super().__init__([*line, *blank], line.cell_length + blank.cell_length)
        self._parts = [line, blank]

    def divide(self, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = list(cuts)
        if cuts == [self._parts[0].cell_length, self.cell_length]:
            return self._parts
        return super().divide(cuts)


def draws_as_is(styles: StylesBase) -> bool:
    """Whether Textual's styles pass would leave a widget's lines as drawn: no border, padding or outline around
    them, no tint, opacity or hatching over them."""
    return (
        not any(styles.gutter)
        and not any(edge for edge, _ in styles.outline)
        and not styles.tint.a
        and styles.opacity == 1
        and styles.text_opacity == 1
        and (not styles.has_rule("hatch") or styles.hatch == "none")
    )


class KeptBar(ScrollBar):
    """A vertical scrollbar that keeps the lines it drew for each place of its thumb and look: drawn again through
    Textual's widget drawing each time the detail pane showed a paper of another length, it cost about 1 ms a paper;
    most lengths come back."""

    _kept: OrderedDict[tuple, list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        bar = self.render()  # what Textual draws: the thumb's place, the bar's style (hovered, grabbed)
        if not isinstance(bar, ScrollBarRender) or not self.vertical or not draws_as_is(self.styles):
            return super().render_lines(crop)
        _, background = self.background_colors
        thumb = drawn_thumb(self, self.position) if bar.window_size else None
        key = (type(bar), thumb, bar.style, self.size, crop, tuple(self.app.get_line_filters()), background)
        kept = self._kept
        if kept is None:
            kept = self._kept = OrderedDict()
        lines = kept.get(key)
        if lines is None:
            lines = kept[key] = super().render_lines(crop)
            if len(kept) > KEPT_BARS:
                kept.popitem(last=False)
        else:
            kept.move_to_end(key)
        return lines

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._kept = None  # drawn in the old style


class KeptLines:
    """A Line API widget whose lines go to the screen as drawn, as Textual's styles pass would give them, when its
    styles add nothing to them (else through that pass). `draw_lines` gives the lines of a range of rows."""

    # A line drawn -> what it became for the screen (styled for the terminal, the cells under the scrollbar
    # added), as long as the width, background and filters stay; keyed by the line's id, the line kept beside it.
    _finished: dict[int, tuple[Strip, Strip]] | None = None
    _finished_for: tuple = ()

    def draw_lines(self, rows: range) -> Sequence[Strip]:
        return [self.render_line(y) for y in rows]

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        """Textual's vertical scrollbar, as Textual makes it on first use, a KeptBar."""
        if self._vertical_scrollbar is None:
            bar = KeptBar(vertical=True, name="vertical", thickness=self.scrollbar_size_vertical)
            bar.display = False
            self._vertical_scrollbar = bar
            self.app._start_widget(self, bar)
        return self._vertical_scrollbar

    def render_lines(self, crop: Region) -> list[Strip]:
        hover = self.hover_style
        if not draws_as_is(self.styles) or (self.auto_links and hover.link_id and "@click" in hover.meta):
            return super().render_lines(crop)  # a border, an effect, a link under the mouse: Textual's own way
        base_background, background = self.background_colors
        pad = Style(background=base_background + background).rich_style  # what the styles pass pads a line with
        width = self.size.width
        filters = tuple(self.app.get_line_filters())
        finished = self._finished
        if finished is None or self._finished_for != (width, pad, filters, background):
            finished = self._finished = {}
            self._finished_for = (width, pad, filters, background)
        strips = []
        for line in self.draw_lines(crop.line_range):
            kept = finished.get(id(line))
            if kept is None or kept[0] is not line:
                kept = finished[id(line)] = (line, self._finish(line, width, pad, filters, background))
                if len(finished) > FINISHED_LINES:
                    del finished[next(iter(finished))]
            strips.append(kept[1])
        x1, x2 = crop.column_span
        if (x1, x2) != (0, width):
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    @staticmethod
    def _finish(line: Strip, width: int, pad: RichStyle, filters: tuple, background: Color) -> Strip:
        """A line as the styles pass gives it: padded (or cut) to the widget's width, styled for the terminal. A
        filter styles each segment alone, so the line and its padding are styled apart and joined after."""
        gutter = width - line.cell_length
        blank = Strip.blank(gutter, pad) if gutter > 0 else None
        if gutter < 0:
            line = line.adjust_cell_length(width, pad)
        for line_filter in filters:
            line = line.apply_filter(line_filter, background)
            if blank is not None:
                blank = blank.apply_filter(line_filter, background)
        return line if blank is None else Gutter(line, blank)


def drawn_thumb(bar: ScrollBar, position: float) -> tuple[int, int] | None:
    """Where a vertical scrollbar draws its thumb at `position`, in STEPS of a cell, as Textual's ScrollBarRender
    places it, or None when it draws none."""
    size = bar.size.height
    virtual = ceil(bar.window_virtual_size)
    window = ceil(bar.window_size) if bar.window_size < bar.window_virtual_size else 0
    if not (window and size and virtual and size != virtual):
        return None
    thumb = max(1, window / (virtual / size))
    start = int((size - thumb) * (position / (virtual - window)) * STEPS)
    return start, start + ceil(thumb * STEPS)


def move_thumb(bar: ScrollBar, position: float) -> None:
    """Set a vertical scrollbar's position, drawing it again only when its thumb moves on screen: over 100,000 rows
    it moves by an eighth of a cell every few hundred, and drawing the bar's every line cost more than the row
    scrolled in."""
    position = bar.validate_position(position)
    if position != bar.position and drawn_thumb(bar, position) == drawn_thumb(bar, bar.position):
        bar.set_reactive(ScrollBar.position, position)  # noted (a drag starts from it), nothing drawn
    else:
        bar.position = position
