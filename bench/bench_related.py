"""Related papers: what they cost beyond the search index (every paper's vector length, computed once
per list) and single-paper query latency (medians). The search index itself comes from its cache.

python bench/bench_related.py [--runs 5] [--queries 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import median_time, print_table
from corpus import corpus_path, sample_path

TARGETS = {"10k": "build <= 1.5 s, query <= 200 ms"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="builds per size")
    parser.add_argument("--queries", type=int, default=200, help="papers queried per size")
    parser.add_argument("--skip-100k", action="store_true")
    args = parser.parse_args()
    from readlist.core.papers.reader import read_papers
    from readlist.core.search.cache import load_or_build
    from readlist.core.search.related import RelatedIndex

    rows = []
    files = [("6k sample", sample_path()), ("10k", corpus_path(10_000))]
    if not args.skip_100k:
        files.append(("100k", corpus_path(100_000)))
    for label, path in files:
        papers = read_papers(path).papers
        search = load_or_build(papers)
        build = median_time(lambda search=search: RelatedIndex(search).lengths(), runs=args.runs)
        index = RelatedIndex(search)
        rng = random.Random(7)
        latencies = []
        for position in rng.sample(range(len(papers)), min(args.queries, len(papers))):
            start = time.perf_counter()
            index.related(position, k=5)
            latencies.append(time.perf_counter() - start)
        latencies.sort()
        rows.append(
            [
                label,
                len(papers),
                f"{build * 1000:.0f} ms",
                f"{statistics.median(latencies) * 1000:.1f} ms",
                f"{latencies[int(0.99 * (len(latencies) - 1))] * 1000:.1f} ms",
                TARGETS.get(label, ""),
            ]
        )
    print(f"Related papers (build: median of {args.runs}; query: {args.queries} random papers, k=5)")
    print_table(["file", "papers", "build", "query p50", "query p99", "target"], rows)


if __name__ == "__main__":
    main()
