"""Latency of one star toggle (lock, stat, change, atomic write with fsync) by number of annotated papers.

python bench/bench_store.py [--runs 21]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import median_time, print_table
from corpus import corpus_path

TARGETS = {1_000: "<= 10 ms", 10_000: "<= 60 ms"}


def measure(n: int, runs: int, directory: Path) -> tuple[float, float, int]:
    from readlist.core.reader import read_papers
    from readlist.core.store import Store

    papers = read_papers(corpus_path(max(n, 1_000))).papers[:n]
    db = directory / f"bench-{n}.json"
    store = Store(db)
    half = n // 2
    store.update_many(papers[:half], status="read")  # every paper gets a document and a log entry
    store.update_many(papers[half:], tags=["bench"])
    paper = papers[0]
    toggle = median_time(lambda: store.toggle_star(paper), runs)
    reopen = median_time(lambda: Store(db), max(3, runs // 4))
    first = median_time(lambda: Store(db).toggle_star(paper), max(3, runs // 4)) - reopen
    return toggle, first, reopen, db.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="readlist-bench-store-") as tmp:
        for n in (100, 1_000, 10_000):
            toggle, first, reopen, size = measure(n, args.runs, Path(tmp))
            ms = [f"{toggle * 1000:.1f} ms", f"{first * 1000:.0f} ms", f"{reopen * 1000:.0f} ms"]
            rows.append([f"{n:,}", *ms, f"{size / 1e6:.1f} MB", TARGETS.get(n, "")])
    print(f"Store (median of {args.runs} star toggles; each one locks, writes the whole file and fsyncs)")
    print("'first toggle' is the first write after opening, which encodes every document once")
    print_table(["annotated", "toggle star", "first toggle", "open", "file", "target"], rows)


if __name__ == "__main__":
    main()
