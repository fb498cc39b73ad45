"""Drawing the list's and the detail pane's lines for the screen, and moving their scrollbars' thumbs, with no more
work than what the user sees changes.

Textual passes every line a widget draws through its styles cache, which frames it with the widget's border,
padding and effects, and makes a new strip of it each time. Our two scrolling widgets have none of those: their
lines are drawn once and kept, so that pass only copied them, and the copy was styled for the terminal again
(about a third of a navigation key's drawing at 100k papers, where each key scrolls every row of the list).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil

from textual.css.styles import StylesBase
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.style import Style

STEPS = len(ScrollBarRender.VERTICAL_BARS)  # a thumb's ends are drawn in steps of this part of a cell


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


class KeptLines:
    """A Line API widget whose lines go to the screen as drawn, as Textual's styles pass would give them, when its
    styles add nothing to them (else through that pass). `draw_lines` gives the lines of a range of rows."""

    def draw_lines(self, rows: range) -> Sequence[Strip]:
        return [self.render_line(y) for y in rows]

    def render_lines(self, crop: Region) -> list[Strip]:
        hover = self.hover_style
        if not draws_as_is(self.styles) or (self.auto_links and hover.link_id and "@click" in hover.meta):
            return super().render_lines(crop)  # a border, an effect, a link under the mouse: Textual's own way
        base_background, background = self.background_colors
        pad = Style(background=base_background + background).rich_style  # what the styles pass pads a line with
        width = self.size.width
        # The strips are those kept, padded (and styled for the terminal below) once: each caches what it became.
        strips = [line.adjust_cell_length(width, pad) for line in self.draw_lines(crop.line_range)]
        for line_filter in self.app.get_line_filters():
            strips = [strip.apply_filter(line_filter, background) for strip in strips]
        x1, x2 = crop.column_span
        if (x1, x2) != (0, width):
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips


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
