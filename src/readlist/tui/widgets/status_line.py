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
        full = f"{counts.total} papers · {counts.read} read · {counts.reading} reading · {counts.starred} starred"
        short = f"{counts.total} papers · {counts.read}● {counts.reading}◐ {counts.starred}★"
        shown = full if len(full) + 12 <= width else short
        title = Text(safe(name), style="bold")
        title.truncate(max(width - len(shown) - 2, 6), overflow="ellipsis")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(title)
        text.append(f"  {shown}")
        if quick_filter != "all":
            text.append(f"  filter: {quick_filter}", "bold")
        if query.strip():
            text.append("  query: ")
            text.append(safe(query.strip()), "italic")
        if matches is not None and (query.strip() or quick_filter != "all"):
            text.append(f"  → {matches} match{'es' if matches != 1 else ''}", "bold")
            if partial:
                text.append(f" (+{partial} missing a word)")
        if note:
            text.append(f"  {note}", "dim")
        self.update(text)
