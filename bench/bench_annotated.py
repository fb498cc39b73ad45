"""A database of 100k annotated papers: its size, and what commands, a star and the TUI's first screen cost over it.

    python bench/bench_annotated.py [--papers 100000] [--notes 1000] [--runs 3] [--no-tui]

The database is what `R` on a whole 100k list makes (every paper read, in one step), then 1,000 papers given a
note. Commands run in fresh processes over the same 100k paper file (its caches warmed first), timed with
/usr/bin/time (wall seconds and peak RSS); the same commands with an empty database show what reading the paper
file costs by itself, so the difference is the database's share. A star "on disk" is `Store.toggle_star`
in-process: lock, change, atomic write with fsync. Each figure is a median and is printed with the load average
of the moment, since the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import median_time, print_table
from corpus import corpus_path

NOTE = "Read for the reading group. The method section is the part to come back to; compare with the baseline. "

COMMANDS = {
    "list": ["list"],
    "star #1": ["star", "#1"],
    "search": ["search", "graph neural"],
    "show #1": ["show", "#1"],
    "list --json": ["list", "--json"],
}
TARGETS = {"list --json": "<= 5 s, 800 MB"}
CLI_TARGET = "<= 1.5 s, 400 MB"

TUI_CHILD = r"""
import asyncio, sys, time
from pathlib import Path
first = {}
from readlist.tui.widgets.paper_list import PaperListView
_render = PaperListView.row_line  # every row drawn passes here (render_line or draw_lines)
def row_line(self, row, width):
    first.setdefault("paint", time.time())
    return _render(self, row, width)
PaperListView.row_line = row_line
from readlist.core.papers.reader import read_papers
from readlist.tui.app import ReadlistApp

async def main(path, db):
    app = ReadlistApp(read_papers(Path(path)), Path(db), state_path=Path(db).with_suffix(".ui-bench.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        while "paint" not in first:
            await pilot.pause(0.01)
    print(first["paint"])

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def build(papers_path: Path, db: Path, n_notes: int) -> float:
    """The annotated database: every paper read in one step, then `n_notes` of them given a note. Seconds taken."""
    from readlist.core.papers.reader import read_papers
    from readlist.core.store.store import Store

    start = time.perf_counter()
    papers = read_papers(papers_path).papers
    store = Store(db)
    store.update_many(papers, status="read")
    for n in range(0, n_notes, 100):  # notes of their own, a hundred papers a step
        batch = papers[n : min(n + 100, n_notes)]
        store.update_many(batch, note=f"{NOTE}{n}")
    return time.perf_counter() - start


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a command, by /usr/bin/time (exit status 1, "no match", is fine)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as out:
        command = ["/usr/bin/time", "-f", "%e %M", "-o", out.name, *args]
        done = subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(args[1:])} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        wall, rss = out.read().split()[-2:]
    return float(wall), int(rss) / 1024


def cli(papers: Path, db: Path, args: list[str], runs: int) -> tuple[float, float, str]:
    """Median wall time and peak RSS of `readlist ARGS` over `runs` runs (star: star and unstar in turn)."""
    results = []
    for n in range(runs):
        verb = args if args[0] != "star" or n % 2 == 0 else ["unstar", *args[1:]]
        command = [sys.executable, "-m", "readlist", "--papers", str(papers), "--db", str(db), *verb]
        results.append(timed(command))
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results), load()


def tui_first_screen(papers: Path, db: Path, runs: int) -> tuple[float, str]:
    """Median wall seconds from starting the process to the first drawn row of the list."""
    times = []
    for _ in range(runs):
        start = time.time()
        out = subprocess.run([sys.executable, "-c", TUI_CHILD, str(papers), str(db)], capture_output=True, text=True)
        if out.returncode != 0:
            raise SystemExit(f"TUI child failed:\n{out.stderr[-3000:]}")
        times.append(float(out.stdout.strip().splitlines()[-1]) - start)
    return statistics.median(times), load()


def star_in_process(db: Path, papers_path: Path, runs: int) -> tuple[float, float, str]:
    """(median seconds of a star toggle written to disk, seconds to open the store) in one process."""
    from readlist.core.papers.reader import read_papers
    from readlist.core.store.store import Store

    paper = read_papers(papers_path).papers[1]
    opened = median_time(lambda: Store(db), 3)
    store = Store(db)
    return median_time(lambda: store.toggle_star(paper), runs), opened, load()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-tui", action="store_true")
    args = parser.parse_args()
    papers = corpus_path(args.papers)
    rows = []
    with tempfile.TemporaryDirectory(prefix="readlist-bench-annotated-") as tmp:
        db, empty = Path(tmp) / "annotated.json", Path(tmp) / "empty.json"
        took = build(papers, db, args.notes)
        size = db.stat().st_size
        rows.append(["database file", f"{size / 1e6:.1f} MB ({size / args.papers:.0f} B a paper)", "", "<= 30 MB"])
        rows.append(["  made in (R on all, then notes)", f"{took:.1f} s", load(), ""])
        toggle, opened, at = star_in_process(db, papers, max(5, args.runs))
        rows.append(["open the store", f"{opened * 1000:.0f} ms", at, ""])
        rows.append(["star on disk (in-process)", f"{toggle * 1000:.0f} ms", at, "<= 50 ms"])
        subprocess.run(
            [sys.executable, "-m", "readlist", "--papers", str(papers), "--db", str(empty), "list"],
            check=True,
            stdout=subprocess.DEVNULL,
        )  # the paper file's caches (derived titles, the parsed list) warmed first
        for label, command in COMMANDS.items():
            wall, rss, at = cli(papers, db, command, args.runs)
            base_wall, base_rss, base_at = cli(papers, empty, command, args.runs)
            rows.append(
                [
                    f"readlist {label}",
                    f"{wall:.2f} s, {rss:.0f} MB (empty db: {base_wall:.2f} s, {base_rss:.0f} MB)",
                    f"{at} / {base_at}",
                    TARGETS.get(label, CLI_TARGET),
                ]
            )
        if not args.no_tui:
            first, at = tui_first_screen(papers, db, args.runs)
            base, base_at = tui_first_screen(papers, empty, args.runs)
            rows.append(
                ["TUI first screen", f"{first:.2f} s (empty db: {base:.2f} s)", f"{at} / {base_at}", "<= 2.5 s"]
            )
    print(f"{args.papers:,} annotated papers (all read, {args.notes:,} with notes); medians of {args.runs} runs")
    print("'load' is the 1-minute load average when the figure was taken (2 cores, shared)")
    print_table(["measure", "result", "load", "target"], rows)


if __name__ == "__main__":
    main()
