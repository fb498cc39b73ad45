"""The `p` screen: reading progress, papers read per day, and per-tag progress."""

from __future__ import annotations

from datetime import date

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Sparkline, Static

from ....core.papers.paper import PaperList
from ....core.store.stats import compute_stats, progress_bar
from ...display import safe
from .base import Modal


class ProgressScreen(Modal[None]):
    BINDINGS = [Binding("escape,q,p", "dismiss", "Close")]

    def __init__(self, papers: PaperList) -> None:
        super().__init__()
        self.papers = papers

    def compose(self) -> ComposeResult:
        store = self.app.store
        stats = compute_stats(self.papers.papers, store.all(), store.events(), date.today())
        summary = Text()
        summary.append(f"{stats.total} papers\n", "bold")
        summary.append(f"{progress_bar(stats.read, stats.total, 40)}  {stats.read} read\n")
        summary.append(f"unread {stats.unread} · reading {stats.reading} · read {stats.read}\n")
        summary.append(f"starred {stats.starred} · with notes {stats.noted}\n")
        summary.append(
            f"\nPapers read per day, last {len(stats.read_per_day)} days ({stats.read_last_30_days} in all)", "bold"
        )
        tags = Table(box=None, expand=False, show_header=True, header_style="bold", pad_edge=False)
        tags.add_column("Tag")
        tags.add_column("Papers", justify="right")
        tags.add_column("Read", justify="right")
        tags.add_column("Progress")
        for tag, count, done in stats.tags:
            tags.add_row(Text(f"#{safe(tag)}"), str(count), str(done), progress_bar(done, count, 20))
        with VerticalScroll(id="progress-dialog", classes="dialog"):
            yield Static(Text("Reading progress", style="bold"), classes="dialog-title")
            yield Static(summary, id="progress-summary")
            yield Sparkline(list(stats.read_per_day), id="progress-sparkline")
            yield Static(
                tags if stats.tags else Text("No tags yet — press t on a paper to add some.", "dim"), id="progress-tags"
            )
            yield Static("Esc, q or p closes this screen", classes="dialog-hint")

    def action_dismiss(self) -> None:
        self.dismiss(None)
