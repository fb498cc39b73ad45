"""A cold and a warm start of the TUI, each in a fresh process: when the list shows, when a search typed at once
answers with its final results, when the background work is over, and how long the UI was ever kept waiting.

    python bench/bench_start.py [--runs 3] [--sizes 10000 100000] [--query "graph neural network"]

Cold: an empty cache directory (XDG_CACHE_HOME), so the search index, related papers' lengths and derived titles are
all made anew; warm: the same directory again, as the cold run left it. Per start, measured from the process's
launch (wall time):
  * list shown: the list's first row drawn;
  * first answer: the query, typed right after the first paint (its keys sent at once, as a terminal sends a
    paste), gets a result (one marked partial, found before the index was ready, counts); search usable: it gets
    its final results (the index's);
  * idle: no background worker left running (held for a second: one that starts another counts as one);
  * background CPU: CPU seconds of the process (all threads) from the list shown to idle; workers' CPU: those of the
    processes it started and saw end (indexing workers);
  * longest stall: the event loop's longest lateness, from the list shown to idle, measured by a task that asks to
    wake every 10 ms (a bench-only App subclass: the app itself pays nothing for it); it counts the first paint, in
    which the list's first row is drawn, whole (the tick late through it ends after the list shown). After paint:
    the same of the ticks that began once the list's first row was drawn, the first paint left out;
  * peak RSS of the process.
Each figure is the median of --runs starts; the load average at the start of each is noted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import corpus_path

CHILD = r"""
import asyncio, json, resource, sys, tempfile, time
from pathlib import Path
launched = float(sys.argv[3])
marks = {}

def mark(name):
    marks.setdefault(name, time.time() - launched)

from readlist.tui.widgets.paper_list import PaperListView
_render = PaperListView.row_line  # every row drawn passes here (render_line or draw_lines)
def row_line(self, row, width):
    if "list" not in marks:
        mark("list")
        marks["cpu_list"] = time.process_time()
    return _render(self, row, width)
PaperListView.row_line = row_line

from textual import events
from readlist.core.papers.formats import load_papers
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.searcher import Searcher

query = sys.argv[2]
_apply = Searcher.apply_result
def apply_result(self, text, result):
    _apply(self, text, result)
    if text == query and result is not None:
        mark("answer")
        if not result.__dict__.get("partial", False):
            mark("search")
Searcher.apply_result = apply_result


class StallMeter(ReadlistApp):
    # The event loop's lateness: a task asking to wake every 10 ms, and how much later than asked it woke.
    CSS_PATH = str(Path(sys.modules[ReadlistApp.__module__].__file__).with_name(ReadlistApp.CSS_PATH))
    stalls = []

    def on_mount(self):  # after ReadlistApp's (Textual calls each class's handler)
        self._meter = asyncio.get_running_loop().create_task(self._measure())

    async def _measure(self):
        while True:
            start, began = time.perf_counter(), time.time() - launched
            await asyncio.sleep(0.01)
            self.stalls.append((time.time() - launched, time.perf_counter() - start - 0.01, began))


def running(app):
    return [w for w in app.workers if not w.is_finished]


async def main(path):
    tmp = Path(tempfile.mkdtemp())
    app = StallMeter(load_papers(path), tmp / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while "list" not in marks:
            await asyncio.sleep(0.005)
        for char in "/" + query:  # sent as a terminal sends them, not waiting between keys as Pilot's press does
            key = {"/": "slash", " ": "space"}.get(char, char)
            event = events.Key(key, char)
            event.set_sender(app)
            app._driver.send_message(event)
        deadline = time.time() + 300
        quiet_since = None
        while time.time() < deadline:
            await asyncio.sleep(0.02)
            if "search" not in marks or running(app):
                quiet_since = None
                continue
            if quiet_since is None:
                quiet_since = (time.time() - launched, time.process_time())
            elif time.time() - launched - quiet_since[0] >= 1.0:
                break
        marks["idle"], cpu_idle = quiet_since if quiet_since else (float("nan"), time.process_time())
        marks["cpu"] = cpu_idle - marks.pop("cpu_list")
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # worker processes, once ended
        marks["workers"] = children.ru_utime + children.ru_stime
        late = [(lateness, began) for at, lateness, began in app.stalls if marks["list"] <= at <= marks["idle"]]
        marks["stall"] = max((lateness for lateness, _ in late), default=0.0)
        marks["stall_after"] = max((lateness for lateness, began in late if began >= marks["list"]), default=0.0)
    marks["rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return marks

print(json.dumps(asyncio.run(main(sys.argv[1]))))
"""

COLUMNS = [  # (key, heading, format)
    ("list", "list shown", "{:.2f} s"),
    ("answer", "first answer", "{:.2f} s"),
    ("search", "search usable", "{:.2f} s"),
    ("idle", "idle", "{:.1f} s"),
    ("cpu", "background CPU", "{:.1f} s"),
    ("workers", "workers' CPU", "{:.1f} s"),
    ("stall", "longest stall", "{:.0f} ms"),
    ("stall_after", "after paint", "{:.0f} ms"),
    ("rss", "peak RSS", "{:.0f} MB"),
]


def start(path: Path, cache: Path, query: str) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    launched = time.time()
    args = [sys.executable, "-c", CHILD, str(path), query, repr(launched)]
    proc = subprocess.run(args, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"bench child failed on {path}:\n{proc.stderr[-3000:]}")
    marks = json.loads(proc.stdout.strip().splitlines()[-1])
    marks["stall"] *= 1000
    marks["stall_after"] *= 1000
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--query", default="graph neural network")
    args = parser.parse_args()
    rows, loads = [], []
    for size in args.sizes:
        path = corpus_path(size)
        runs: dict[str, list[dict]] = {"cold": [], "warm": []}
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="readlist-bench-cache-") as cache:
                for kind in ("cold", "warm"):
                    loads.append(os.getloadavg()[0])
                    runs[kind].append(start(path, Path(cache), args.query))
        for kind, marks in runs.items():
            cells = [fmt.format(statistics.median(m[key] for m in marks)) for key, _, fmt in COLUMNS]
            rows.append([f"{size // 1000}k {kind}", *cells])
    print(f"Start of the TUI (120x40, query {args.query!r} typed at once; medians of {args.runs})")
    print_table(["start", *(heading for _, heading, _ in COLUMNS)], rows)
    print(f"load average (1 min) at the starts: {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
