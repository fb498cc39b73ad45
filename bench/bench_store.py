"""Latency of one star toggle (lock, stat, change, atomic write with fsync) by number of annotated papers.

Also the first write after opening (what every CLI command pays) and a whole `readlist star`
process (start-up, reading the paper file, opening the database, the write).

python bench/bench_store.py [--runs 21]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import median_time, print_table
from corpus import corpus_path

TARGETS = {1_000: "<= 10 ms", 10_000: "<= 60 ms"}


def cli_star(papers: Path, db: Path, flip: list[bool]) -> None:
    """`readlist star #1` and `readlist unstar #1` in turn, so that every run writes."""
    flip[0] = not flip[0]
    verb = "star" if flip[0] else "unstar"
    command = [sys.executable, "-m", "readlist", "--papers", str(papers), "--db", str(db), verb, "#1"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def measure(n: int, runs: int, directory: Path) -> tuple[float, float, float, float, int]:
    from readlist.core.papers.reader import read_papers
    from readlist.core.store.store import Store

    source = corpus_path(n) if n >= 1_000 else corpus_path(1_000)
    papers = read_papers(source).papers[:n]
    db = directory / f"bench-{n}.json"
    store = Store(db)
    half = n // 2
    store.update_many(papers[:half], status="read")  # every paper gets a document and a log entry
    store.update_many(papers[half:], tags=["bench"])
    paper = papers[0]
    toggle = median_time(lambda: store.toggle_star(paper), runs)
    reopen = median_time(lambda: Store(db), max(3, runs // 4))
    first = median_time(lambda: Store(db).toggle_star(paper), max(3, runs // 4)) - reopen
    flip = [Store(db).get(paper.id).starred]
    cli = median_time(lambda: cli_star(source, db, flip), 6) if n >= 1_000 else float("nan")
    return toggle, first, reopen, cli, db.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="readlist-bench-store-") as tmp:
        for n in (100, 1_000, 10_000):
            toggle, first, reopen, cli, size = measure(n, args.runs, Path(tmp))
            ms = [f"{toggle * 1000:.1f} ms", f"{first * 1000:.0f} ms", f"{reopen * 1000:.0f} ms"]
            ms.append(f"{cli * 1000:.0f} ms" if cli == cli else "")
            rows.append([f"{n:,}", *ms, f"{size / 1e6:.1f} MB", TARGETS.get(n, "")])
    print(f"Store (median of {args.runs} star toggles; each one locks, writes the whole file and fsyncs)")
    print("'first write' is the first toggle after opening (without the open); 'readlist star' a whole process")
    print("(median of 6, star and unstar in turn) on an n-paper list, which also reads and parses the paper file")
    print_table(["annotated", "toggle star", "first write", "open", "readlist star", "file", "target"], rows)


if __name__ == "__main__":
    main()
