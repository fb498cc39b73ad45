"""The search bar: Enter moves to the results, Esc clears, a second Esc leaves; opened again, it holds the words
cleared last."""

from __future__ import annotations

from collections.abc import Callable

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input

from ...core.search.query import OPERATORS


class SearchBar(Input):
    BINDINGS = [
        Binding("escape", "clear_or_leave", "Clear / leave", show=True),
        Binding("enter", "to_results", "Results", show=True),
        Binding("down", "to_results", "Results", show=False),
    ]

    class Leave(Message):
        """Focus should leave the bar: for the results (Enter, ↓), or back to the pane shown (Esc)."""

        def __init__(self, to_results: bool) -> None:
            super().__init__()
            self.to_results = to_results

    LONG_HINT = f'Search: words, "phrase", -exclude, {", ".join(op.label for op in OPERATORS if op.hint)} …  (/)'
    SHORT_HINT = "Search (/) — ? lists the query forms"

    def __init__(self, typed: Callable[[str], None] | None = None, **kwargs) -> None:
        """`typed` is told of the words whenever they change."""
        super().__init__(placeholder=self.LONG_HINT, **kwargs)
        self.cleared = ""  # the words Esc cleared last: opening the bar again brings them back
        # A callback rather than the Changed message: that reaches the screen later, and until it does the header,
        # drawn meanwhile, named the words before the key as those searched ("query: graph" with "graph n" typed).
        self.typed = typed

    def watch_value(self, value: str) -> None:
        if self.typed is not None:
            self.typed(value)

    def clear_and_keep(self) -> None:
        """Clear the words (Esc, here or in the list), keeping them for the next time the bar opens."""
        if self.value.strip():
            self.cleared = self.value
        self.value = ""

    def reopen(self) -> None:
        """Opened on no search: the words cleared last come back, selected on focus (Input's select_on_focus), so
        typing replaces them and Esc clears them again."""
        if not self.value and self.cleared:
            self.value = self.cleared

    def set_width_hint(self, width: int) -> None:
        self.placeholder = self.LONG_HINT if width >= len(self.LONG_HINT) + 8 else self.SHORT_HINT

    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "cursor_blink", True)

    def action_clear_or_leave(self) -> None:
        if self.value:
            self.clear_and_keep()
        else:
            self.post_message(self.Leave(to_results=False))

    def action_to_results(self) -> None:
        self.post_message(self.Leave(to_results=True))
