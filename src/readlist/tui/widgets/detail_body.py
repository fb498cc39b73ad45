"""The scrolling text of the detail pane, drawn with the Line API.

A `Static` inside a scroll container costs a full screen layout every time the highlighted
paper changes (its height changes); here the wrapped lines are computed once per paper and
width, and changing paper only swaps them. The last few papers' lines are kept, so that going
back to one (`k` after `j`) wraps and draws nothing again. A line of plain ASCII (most abstracts)
is wrapped where rich wraps it, its words counted in characters rather than measured in cells.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widget import Widget

from .lines import KeptLines, fitted, runs

KEPT_TEXTS = 16  # papers' wrapped and drawn lines kept for going back to them
WORD = re.compile(r"\s*\S+\s*")  # a word and the spaces around it, as rich's wrapping reads words


def ascii_breaks(line: str, width: int) -> list[int] | None:
    """Where rich's `divide_line` breaks a line of printable ASCII (a cell a character) to fit `width`, found by
    counting characters; None when a word is longer than the width (rich folds it)."""
    breaks: list[int] = []
    used = 0
    for word in WORD.finditer(line):
        start, end = word.span()
        length = len(word.group().rstrip())
        if width - used >= length:
            used += end - start
        elif length > width:
            return None
        elif used and start:
            breaks.append(start)
            used = end - start
    return breaks


def wrapped(text: Text, console: Console, width: int) -> list[Text]:
    """`text` wrapped as rich's `Text.wrap(console, width, overflow="fold")` wraps it, each line of printable ASCII
    without rich measuring every word of it in cells (about half of wrapping a new paper's text)."""
    if text.justify not in (None, "default"):
        return list(text.wrap(console, width, overflow="fold"))
    lines: list[Text] = []
    for line in text.split(allow_blank=True):
        plain = line.plain
        breaks = ascii_breaks(plain, width) if plain.isascii() and plain.isprintable() else None
        if breaks is None:
            lines.extend(line.wrap(console, width, overflow="fold"))
            continue
        for part in line.divide(breaks):
            part.rstrip_end(width)
            part.truncate(width, overflow="fold")
            lines.append(part)
    return lines


def thumb(virtual: int, window: int) -> tuple[int, int] | None:
    """What a scrollbar draws for text of `virtual` lines in a window of `window`: a thumb, or none at all when the
    text fits (whatever its length)."""
    return (virtual, window) if window < virtual else None


class DetailBody(KeptLines, ScrollView, can_focus=True):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()
        self._lines: list[Text] = []  # the text wrapped to the width, each line drawn when it is first shown
        self._width = 0
        self._base: Style | None = None
        self._styled: dict[tuple[int, int], Strip] = {}  # drawn lines of the current text
        self._combined: dict[tuple, Style] = {}  # a run's span styles -> its style on the pane's own
        # (text, its styles, width) -> its wrapped lines and those drawn: a text wrapped again only when it changed
        self._kept: OrderedDict[tuple, tuple[list[Text], dict[tuple[int, int], Strip]]] = OrderedDict()

    @property
    def plain(self) -> str:
        return self._text.plain

    def set_text(self, text: Text, keep_scroll: bool = False) -> None:
        """Show `text` from its top, or where the reader was (`keep_scroll`: the same paper, redrawn)."""
        self._text = text
        self._rewrap(self.scrollable_content_region.width)
        if not keep_scroll and (self.scroll_offset.x or self.scroll_offset.y):  # a scroll costs a layout pass
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def _rewrap(self, width: int) -> None:
        self._width = width
        if width <= 0:
            self._lines, self._styled = [], {}
            return
        key = (self._text.plain, tuple(self._text.spans), width)  # all that its lines are made of
        kept = self._kept.get(key)
        if kept is None:
            lines = wrapped(self._text, self.app.console, max(width - 1, 1))  # a column off for the bar
            kept = self._kept[key] = (lines, {})
            if len(self._kept) > KEPT_TEXTS:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        self._lines, self._styled = kept
        # Set the scrollable size without a screen-wide layout pass (the gutter is stable), the scrollbar's thumb
        # fitted to it (no other widget's layout pass does it on the way, as the related papers' list once did).
        size = Size(width, len(self._lines))
        self.set_reactive(Widget.virtual_size, size)
        self._update_scrollbar(size)

    def _update_scrollbar(self, size: Size) -> None:
        """Fit the scrollbar to `size`, redrawn only when its thumb changes (text shorter than the pane has none
        whatever its length): redrawing the bar's every line cost 1.5 ms a paper at 120x40."""
        bar = self.vertical_scrollbar
        window = self.container_size.height - self.scrollbar_size_horizontal  # as Textual measures it
        at_top = not bar.position and not self.scroll_offset.y
        if (
            at_top
            and bar.window_size == window
            and thumb(bar.window_virtual_size, window) == thumb(size.height, window)
        ):
            bar.set_reactive(ScrollBar.window_virtual_size, size.height)  # the same bar: its size noted, nothing drawn
            return
        self._scroll_update(size)

    def on_resize(self) -> None:
        self.fit_width()

    def fit_width(self) -> None:
        """Wrap the text again if the width changed since it was wrapped."""
        width = self.scrollable_content_region.width
        if width != self._width:
            self._rewrap(width)
            self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None
        self._combined.clear()
        self._styled.clear()
        self._kept.clear()  # drawn in the old style

    def render_line(self, y: int) -> Strip:
        return self.text_line(int(self.scroll_offset.y) + y, self.scrollable_content_region.width)

    def draw_lines(self, rows: range) -> list[Strip]:
        top, width = int(self.scroll_offset.y), self.scrollable_content_region.width  # once for all the rows
        return [self.text_line(top + y, width) for y in rows]

    def text_line(self, row: int, width: int) -> Strip:
        """The text's wrapped line `row`, drawn `width` cells wide."""
        if self._base is None:
            self._base = self.rich_style
        base: Style = self._base
        if row >= len(self._lines):
            return Strip.blank(width, base)
        key = (row, width)
        strip = self._styled.get(key)
        if strip is None:  # drawn once, with the pane's style under the text's (lines below the pane never are)
            segments = runs(self._lines[row], base, self._combined, self.app.console.get_style)
            strip = self._styled[key] = fitted(segments, width, base)
        return strip
