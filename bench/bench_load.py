"""Load time and peak memory of reading paper files (each size in a fresh process).

python bench/bench_load.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import corpus_path, sample_path

CHILD = r"""
import json, sys, time
start = time.perf_counter()
from readlist.core.papers.reader import read_papers
papers = read_papers(sys.argv[1])
elapsed = time.perf_counter() - start
peak_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
print(json.dumps({"papers": len(papers), "seconds": elapsed, "peak_mb": peak_kb / 1024}))
"""

TARGETS = {"10k": "<= 0.3 s", "100k": "<= 3 s, <= 600 MB"}


def measure(path: Path, runs: int) -> dict:
    results = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout))
    results.sort(key=lambda r: r["seconds"])
    return results[len(results) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from readlist.core.files.paths import bundled_papers

    files = [
        ("bundled", bundled_papers()),
        ("6k sample", sample_path()),
        ("10k", corpus_path(10_000)),
        ("100k", corpus_path(100_000)),
    ]
    rows = []
    for label, path in files:
        r = measure(path, args.runs)
        rows.append(
            [label, r["papers"], f"{r['seconds'] * 1000:.0f} ms", f"{r['peak_mb']:.0f} MB", TARGETS.get(label, "")]
        )
    print(f"Load (median of {args.runs} runs, time inside the process incl. imports of the reader)")
    print_table(["file", "papers", "load", "peak RSS", "target"], rows)


if __name__ == "__main__":
    main()
