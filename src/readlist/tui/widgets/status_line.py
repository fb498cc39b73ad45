"""The header line: list name, live counts, the active filter and query."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from ..display import safe


@dataclass(frozen=True)
class Counts:
    total: int
    read: int = 0
    reading: int = 0
    starred: int = 0


class StatusLine(Static):
    def show(
        self,
        name: str,
        counts: Counts,
        quick_filter: str,
        query: str,
        matches: int | None,
        note: str = "",
        partial: int = 0,
    ) -> None:
        width = self.app.size.width - 2
        tail = Text()  # what the view is: filter, match counts, notes (the query itself is in the bar)
        if quick_filter != "all":
            tail.append(f"  filter: {quick_filter}", "bold")
        if matches is not None and (query.strip() or quick_filter != "all"):
            tail.append(f"  → {matches} match{'es' if matches != 1 else ''}", "bold")
            if partial:
                tail.append(f" (+{partial} missing a word)")
        if note:
            tail.append(f"  {safe(note)}", "dim")
        full = f"{counts.total} papers · {counts.read} read · {counts.reading} reading · {counts.starred} starred"
        short = f"{counts.total} papers · {counts.read}● {counts.reading}◐ {counts.starred}★"
        room = width - tail.cell_len
        shown = full if len(full) + 12 <= room else short
        query_text = Text()
        if query.strip():
            query_text.append("  query: ")
            query_text.append(safe(query.strip()), "italic")
            if room - len(shown) - query_text.cell_len < 12:
                query_text = Text()  # no room: the search bar shows it anyway
        title = Text(safe(name), style="bold")
        title.truncate(max(room - len(shown) - query_text.cell_len - 2, 6), overflow="ellipsis")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(title)
        text.append(f"  {shown}")
        text.append_text(query_text)
        text.append_text(tail)
        self.update(text)
