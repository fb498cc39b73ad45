"""TUI speed, driven by Textual's Pilot in fresh processes, measured in process CPU time.

    python bench/bench_tui.py [--runs 3] [--keys 100]

Pilot adds its own pauses (~60 ms of wall time per key), so we count CPU seconds of the
process (all threads), not wall time:
  * first paint: CPU from process start (interpreter, imports, reading the file) to the first
    drawn row of the list;
  * navigation: CPU per `j` key at 100k papers, abstracts only and records (years and authors in a column);
  * typing: CPU from a typed character in the search bar to the refreshed list (search worker included).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import corpus_path

CHILD = r"""
import asyncio, json, sys, tempfile, time
from pathlib import Path
first = {}
from readlist.tui.widgets.paper_list import PaperListView
_render = PaperListView.row_line  # every row drawn passes here (render_line or draw_lines)
def row_line(self, row, width):
    first.setdefault("paint", time.process_time())
    return _render(self, row, width)
PaperListView.row_line = row_line
from readlist.core.papers.formats import load_papers
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.searcher import Searcher

applied = []
_apply = Searcher.apply_result
def apply_result(self, text, result):
    _apply(self, text, result)
    applied.append((text, time.process_time()))
Searcher.apply_result = apply_result

async def main(path, mode, keys, query):
    tmp = Path(tempfile.mkdtemp())
    app = ReadlistApp(load_papers(path), tmp / "db.json", cursor_blink=False)
    out = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        out["first_paint"] = first["paint"]
        if mode == "paint":
            return out
        main = app.main_screen
        while main.searcher.index is None:
            await asyncio.sleep(0.05)
        await app.workers.wait_for_complete()  # steady state: no titles derived, no vectors measured meanwhile
        await pilot.pause()
        if mode == "nav":
            costs = []
            for _ in range(keys):
                start = time.process_time()
                await pilot.press(query or "j")
                costs.append(time.process_time() - start)
            out["nav"] = costs
        if mode == "type":
            await pilot.press("slash")
            costs = []
            typed = ""
            for ch in query:
                typed += ch
                start = time.process_time()
                await pilot.press(ch if ch != " " else "space")
                target = typed.strip()
                while not applied or applied[-1][0] != target:
                    await asyncio.sleep(0.001)
                costs.append(applied[-1][1] - start)
            out["type"] = costs
    return out

res = asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
print(json.dumps(res))
"""

QUERIES = ["langauge model", "reinforcement", "graph neural"]


def child(path: Path, mode: str, keys: int = 0, query: str = "") -> dict:
    args = [sys.executable, "-c", CHILD, str(path), mode, str(keys), query]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench child failed on {path} ({mode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keys", type=int, default=100)
    args = parser.parse_args()
    from readlist.core.files.paths import bundled_papers

    files = {"bundled": bundled_papers(), "10k": corpus_path(10_000), "100k": corpus_path(100_000)}
    paint_target = {"bundled": "<= 0.6 s", "10k": "<= 1.0 s", "100k": "<= 3.0 s"}
    rows = []
    for label, path in files.items():
        paints = [child(path, "paint")["first_paint"] for _ in range(args.runs)]
        rows.append([f"first paint, {label}", f"{statistics.median(paints):.2f} s CPU", paint_target[label]])
    nav = child(files["100k"], "nav", keys=args.keys)["nav"]
    rows.append(["navigation key (j), 100k", f"{statistics.median(nav) * 1000:.1f} ms CPU", "<= 10 ms"])
    records = child(corpus_path(100_000, "jsonl"), "nav", keys=args.keys)["nav"]
    rows.append(["navigation key (j), 100k records", f"{statistics.median(records) * 1000:.1f} ms CPU", "<= 10 ms"])
    idle = child(files["100k"], "nav", keys=args.keys, query="z")["nav"]
    rows.append(["  of which Pilot itself (unbound key)", f"{statistics.median(idle) * 1000:.1f} ms CPU", ""])
    for label in ("10k", "100k"):
        costs = []
        for query in QUERIES:
            costs += child(files[label], "type", query=query)["type"]
        rows.append(
            [
                f"typed char -> list, {label}",
                f"{statistics.median(costs) * 1000:.1f} ms CPU (p90 {sorted(costs)[int(len(costs) * 0.9)] * 1000:.0f})",
                "<= 50 ms" if label == "10k" else "",
            ]
        )
    print(f"TUI (Pilot, 120x40; medians; first paint over {args.runs} runs)")
    print_table(["measure", "result", "target"], rows)


if __name__ == "__main__":
    main()
