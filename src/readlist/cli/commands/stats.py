"""`readlist stats`: reading progress, counts by status, papers read per day and per tag."""

from __future__ import annotations

from datetime import date

import click

from ...core.store.stats import Stats, compute_stats, progress_bar
from ...core.text.normalize import strip_control
from ..context import Context
from ..output import echo_json

BAR_WIDTH = 30
_SPARKS = " ▁▂▃▄▅▆▇█"


def sparkline(values: tuple[int, ...] | list[int]) -> str:
    """One character per value, scaled to the largest; zero stays blank-ish (lowest block)."""
    top = max(values, default=0)
    if top <= 0:
        return _SPARKS[1] * len(values)
    return "".join(_SPARKS[1 + round((len(_SPARKS) - 2) * v / top)] if v else _SPARKS[1] for v in values)


def _percent(done: int, total: int) -> str:
    return f"{100 * done / total:.0f}%" if total else "0%"


def format_stats(stats: Stats) -> list[str]:
    total = stats.total
    lines = [
        f"Papers   {total}",
        f"Read     {progress_bar(stats.read, total, BAR_WIDTH)}  {stats.read}/{total} ({_percent(stats.read, total)})",
        f"Reading  {stats.reading}",
        f"Unread   {stats.unread}",
        f"Starred  {stats.starred}",
        f"Noted    {stats.noted}",
        "",
        f"Read per day, last {len(stats.read_per_day)} days ({stats.read_last_30_days} papers):",
        f"  {sparkline(stats.read_per_day)}  max {max(stats.read_per_day, default=0)}/day",
    ]
    if stats.tags:
        width = max(len(tag) for tag, _, _ in stats.tags)
        lines += ["", "Tags:"]
        for tag, count, done in stats.tags:
            bar = progress_bar(done, count, 10)
            lines.append(f"  {strip_control(tag):<{width}}  {count:>4}  {bar}  {done} read")
    return lines


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object.")
@click.pass_obj
def stats_command(ctx: Context, as_json: bool) -> None:
    """Reading progress: counts by status, papers read per day, tags."""
    store = ctx.store
    stats = compute_stats(ctx.paper_list.papers, store.all(), store.events(), date.today())
    if as_json:
        echo_json(stats.to_dict())
        return
    for line in format_stats(stats):
        click.echo(line)
