"""Typing into the search bar at a real pace, navigation keys and memory, at 100k papers (and figures at 1M).

    python bench/bench_typing.py [--queries 12] [--keys 60] [--million]

Each measure runs the app headless (Textual's `run_test`, 120x40) in a fresh process, with the search index
cached first (a warm start), the cache in a directory of the bench's own:
  * typing: each query (15-30 characters) is typed at 12 characters per second, in real time: the keys are sent as
    a terminal sends them (no Pilot pauses), with a sleep between them. Measured: the wall time from the last key to
    the final query's results drawn on screen (p50 and p90 over the queries), and how often the header, read just
    before each key, named a query other than the one in the search bar as the current one (stale headers; a key
    the app has not handled yet, in neither, is counted apart);
  * navigation: process CPU (all threads) per `j` and per PageDown, the keys sent as a terminal does and the app
    left to draw before the next one;
  * memory: the app's peak RSS after loading, typing and navigating; that of `readlist list` on the same file;
  * --million: a 1M-paper file written to the temp dir (about 1.2 GB; deleted at the end): the app's first paint,
    its search index built (cold), a search typed, a navigation key and its peak RSS.
The load average is printed with the results: the machine is shared, so absolutes are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import corpus_path

QUERIES = [
    "graph neural networks",
    "reinforcement learning agent",
    "large langauge models",
    "diffusion models for images",
    "contrastive representation",
    "federated learning privacy",
    "transformer attention heads",
    "adversarial robustness",
    "bayesian optimization method",
    "knowledge distillation",
    "speech recognition systems",
    "protein structure prediction",
]
RATE = 12.0  # characters per second

CHILD = r"""
import asyncio, json, resource, sys, tempfile, time
from pathlib import Path
from textual import events
from readlist.core.papers.formats import load_papers
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.searcher import Searcher
from readlist.tui.widgets.status_line import StatusLine

path, mode, rate, keys = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
queries = json.loads(sys.argv[5])
started = time.perf_counter()
headers = []  # the header's text as last drawn
_update = StatusLine.update
def update(self, content="", **kwargs):
    headers.append(getattr(content, "plain", str(content)))
    return _update(self, content, **kwargs)
StatusLine.update = update
applied = []  # (query, time) of each search result the view took
_apply = Searcher.apply_result
def apply_result(self, text, result):
    _apply(self, text, result)
    applied.append((text, time.perf_counter()))
Searcher.apply_result = apply_result

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def send(app, key, char):
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)

async def drawn(app):
    # the next frame drawn after now: call_after_refresh runs once the screen was refreshed
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()

async def settle(app, main, query):
    while not applied or applied[-1][0] != query:
        await asyncio.sleep(0.002)
    await drawn(app)

def shown_query(header):
    # the query the header names as current, None when it names none ("query: words  → 12 matches")
    if "query: " not in header:
        return None
    rest = header.split("query: ", 1)[1]
    return rest.split("  ", 1)[0]

async def main():
    out = {}
    tmp = Path(tempfile.mkdtemp())
    t0 = time.perf_counter()
    papers = load_papers(path)
    out["load_s"] = time.perf_counter() - t0
    app = ReadlistApp(papers, tmp / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        out["first_paint_s"] = time.perf_counter() - started
        main = app.main_screen
        t0 = time.perf_counter()
        while main.searcher.index is None:
            await asyncio.sleep(0.02)
        out["index_s"] = time.perf_counter() - t0
        if mode == "warm":
            return out
        print(f"index ready after {out['index_s']:.0f} s", file=sys.stderr, flush=True)
        if mode != "million":  # at 1M the background work (titles, related papers) takes many minutes: not waited for
            await app.workers.wait_for_complete()  # steady state: nothing derived in the background meanwhile
        await pilot.pause()
        out["rss_loaded_mb"] = rss_mb()
        bar = main.query_one("#search")
        await pilot.press("slash")
        latencies, stale, samples, lagging = [], [], 0, 0
        for query in queries:
            bar.value = ""
            await pilot.pause()
            await asyncio.sleep(0.3)
            typed = ""
            for n, ch in enumerate(query):
                key_time = time.perf_counter()
                send(app, "space" if ch == " " else ch, ch)
                typed += ch
                if n + 1 < len(query):
                    await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - key_time)))
                    # what the header says now, the next key about to come, against the words in the bar (a key
                    # not handled yet is in neither: that is lag, counted apart)
                    current = shown_query(headers[-1]) if headers else None
                    samples += 1
                    lagging += bar.value != typed
                    if current is not None and current != bar.value.strip():
                        stale.append((typed, bar.value, current))
            await settle(app, main, typed.strip())
            latencies.append(time.perf_counter() - key_time)
            current = shown_query(headers[-1])
            if current is not None and current != typed.strip():
                stale.append((typed, typed, current))
        out["latency"] = latencies
        out["stale"] = len(stale)
        out["stale_examples"] = stale[:3]
        out["samples"] = samples
        out["lagging"] = lagging
        await pilot.press("escape", "escape")  # clear the search, back to the list
        await pilot.pause()
        for key, label in (("j", "j"), ("pagedown", "pagedown")):
            costs, ui = [], []
            for _ in range(keys):
                start, ui_start = time.process_time(), time.thread_time()
                send(app, key, "j" if key == "j" else None)
                await pilot.pause()
                await drawn(app)
                costs.append(time.process_time() - start)
                ui.append(time.thread_time() - ui_start)
            out[label] = costs
            out[label + "_ui"] = ui
        costs = []
        for _ in range(keys):  # what sending a key and waiting for the frame costs with nothing to do
            start = time.process_time()
            send(app, "f12", None)
            await pilot.pause()
            await drawn(app)
            costs.append(time.process_time() - start)
        out["idle_key"] = costs
        out["rss_peak_mb"] = rss_mb()
    return out

print(json.dumps(asyncio.run(main())))
"""


def child(path: Path, mode: str, cache: Path, keys: int = 0, queries: list[str] | None = None) -> dict:
    args = [sys.executable, "-c", CHILD, str(path), mode, str(RATE), str(keys), json.dumps(queries or [])]
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_DATA_HOME": str(cache / "data")}
    proc = subprocess.run(args, stdout=subprocess.PIPE, text=True, check=False, env=env)  # its progress on stderr
    if proc.returncode != 0:
        raise SystemExit(f"bench child failed on {path} ({mode}): see above")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def peak_rss_of(args: list[str], cache: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of a command, its output thrown away."""
    import time

    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_DATA_HOME": str(cache / "data")}
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.read().decode()[-2000:]}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def ms(value: float) -> str:
    return f"{value * 1000:.0f} ms"


def measure(path: Path, label: str, cache: Path, args) -> list[list[str]]:
    child(path, "warm", cache)  # the index cached
    res = child(path, "type", cache, keys=args.keys, queries=QUERIES[: args.queries])
    lat, rows = res["latency"], []
    rows.append([f"last key -> final results, {label} (12 char/s)", f"p50 {ms(statistics.median(lat))}, "
                 f"p90 {ms(percentile(lat, 0.9))}, max {ms(max(lat))}", "p90 <= 150 ms"])  # fmt: skip
    rows.append([f"stale header while typing, {label}", f"{res['stale']} of {res['samples']} looks", "0"])
    rows.append([f"  keys not yet in the bar at the next key, {label}", f"{res['lagging']} of {res['samples']}", ""])
    idle = statistics.median(res["idle_key"])
    for key in ("j", "pagedown"):
        cost, ui = statistics.median(res[key]), statistics.median(res[key + "_ui"])
        rows.append(
            [
                f"navigation key ({key}) CPU, {label}",
                f"{ms(cost)}, UI thread {ms(ui)} ({ms(cost - idle)} over an unbound key)",
                "<= 10 ms",
            ]
        )
    rows.append([f"app peak RSS, {label}", f"{res['rss_peak_mb']:.0f} MB (loaded: {res['rss_loaded_mb']:.0f})",
                 "<= 400 MB"])  # fmt: skip
    if res["stale_examples"]:
        print(f"stale headers seen ({label}): {res['stale_examples']}", file=sys.stderr)
    db = cache / "list-db.json"
    wall, rss = peak_rss_of([sys.executable, "-m", "readlist", "--papers", str(path), "--db", str(db), "list"], cache)
    rows.append([f"`readlist list` peak RSS, {label} (cached)", f"{rss:.0f} MB ({wall:.1f} s)", "<= 400 MB"])
    return rows


def million(cache: Path, args) -> list[list[str]]:
    if shutil.disk_usage(tempfile.gettempdir()).free < 6 << 30:
        return [["1M papers", "skipped: less than 6 GB free in the temp dir", ""]]
    path = corpus_path(1_000_000)
    try:
        res = child(path, "million", cache, keys=max(args.keys // 3, 5), queries=QUERIES[:3])
        rows = [
            ["1M: file read", f"{res['load_s']:.1f} s", ""],
            ["1M: first paint (from process start)", f"{res['first_paint_s']:.1f} s", ""],
            ["1M: search index ready (after the first paint)", f"{res['index_s']:.1f} s", ""],
            [
                "1M: last key -> final results",
                f"p50 {ms(statistics.median(res['latency']))}, max {ms(max(res['latency']))}",
                "",
            ],
            ["1M: stale header while typing", f"{res['stale']} of {res['samples']} looks", ""],
            [
                "1M: navigation key (j) CPU, UI thread",
                f"{ms(statistics.median(res['j']))}, {ms(statistics.median(res['j_ui']))}",
                "",
            ],
            [
                "1M: navigation key (pagedown) CPU, UI thread",
                f"{ms(statistics.median(res['pagedown']))}, {ms(statistics.median(res['pagedown_ui']))}",
                "",
            ],
            ["1M: app peak RSS", f"{res['rss_peak_mb']:.0f} MB", ""],
        ]
    finally:
        path.unlink(missing_ok=True)
        for stale in (cache / "readlist").glob("**/*"):
            if stale.is_file() and stale.stat().st_size > 200 << 20:
                stale.unlink()  # the 1M index cache
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=len(QUERIES))
    parser.add_argument("--keys", type=int, default=60)
    parser.add_argument("--million", action="store_true", help="also the 1M-paper figures (minutes, ~1.2 GB)")
    parser.add_argument("--only-million", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cache = Path(tempfile.gettempdir()) / "readlist-bench" / "typing-cache"
    cache.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    size = int(os.environ.get("BENCH_TYPING_SIZE", 100_000))
    rows = [] if args.only_million else measure(corpus_path(size), f"{size // 1000}k", cache, args)
    if args.million or args.only_million:
        rows += million(cache, args)
    end = os.getloadavg()
    print(
        f"Typing, navigation and memory (headless, 120x40; load average {load[0]:.1f} at the start, "
        f"{end[0]:.1f} at the end)"
    )
    print_table(["measure", "result", "target"], rows)


if __name__ == "__main__":
    main()
