"""Search latency and index build time, and whole-process `readlist search` against `fzf --filter`.

python bench/bench_search.py [--process-queries 5] [--skip-100k]

Queries: 50 mixed ones (1-3 words from the sample's abstracts, some with a typo, some with filters),
fixed seed. fzf (Debian package `fzf`) is skipped with a note when it is not installed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from bench_quality import typo
from corpus import corpus_path, sample_path

from readlist.core.papers.reader import read_papers
from readlist.core.papers.title_cache import derive_all
from readlist.core.search.cache import load_or_build
from readlist.core.search.index import SearchIndex
from readlist.core.text.tokens import STOPWORDS, fold, split_words

SEED = 11


def make_queries(n: int = 50) -> list[str]:
    rng = random.Random(SEED)
    papers = read_papers(sample_path()).papers
    queries = []
    while len(queries) < n:
        words = [w for w in split_words(fold(rng.choice(papers).text)) if w.isalpha() and w not in STOPWORDS]
        if len(words) < 6:
            continue
        start = rng.randrange(len(words) - 3)
        picked = words[start : start + rng.randint(1, 3)]
        if rng.random() < 0.3:
            long = [k for k, w in enumerate(picked) if len(w) >= 4]
            if long:
                k = rng.choice(long)
                picked[k] = typo(picked[k], rng)
        roll = rng.random()
        if roll < 0.1:
            picked.append("-" + rng.choice(words))
        elif roll < 0.2:
            picked[0] = "title:" + picked[0]
        elif roll < 0.25 and len(picked) > 1:
            picked = [f'"{" ".join(picked)}"']
        queries.append(" ".join(picked))
    return queries


def plain_words(query: str) -> str:
    return " ".join(w.removeprefix("title:").strip('"') for w in query.split() if not w.startswith("-"))


def run(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--process-queries", type=int, default=5, help="queries for the whole-process comparison")
    parser.add_argument("--skip-100k", action="store_true")
    args = parser.parse_args()
    queries = make_queries()
    files = [("6k sample", sample_path()), ("10k", corpus_path(10_000))]
    if not args.skip_100k:
        files.append(("100k", corpus_path(100_000)))
    fzf = shutil.which("fzf")
    readlist = [sys.executable, "-m", "readlist"]
    rows, process_rows = [], []
    for label, path in files:
        papers = read_papers(path).papers
        start = time.perf_counter()
        index = SearchIndex.build(papers)
        build = time.perf_counter() - start
        with tempfile.TemporaryDirectory() as cache:
            load_or_build(papers, cache_dir=Path(cache))
            start = time.perf_counter()
            load_or_build(papers, cache_dir=Path(cache))
            cached = time.perf_counter() - start
            start = time.perf_counter()
            derive_all(papers, Path(cache))  # title: reads derived titles; the app derives them once and caches them
            titles = time.perf_counter() - start
        times = []
        for query in queries:
            start = time.perf_counter()
            index.search(query)
            times.append(time.perf_counter() - start)
        times.sort()
        median, p90 = statistics.median(times) * 1000, times[int(len(times) * 0.9)] * 1000
        rows.append([label, len(papers), f"{build:.2f} s", f"{cached:.2f} s", f"{titles:.2f} s", f"{median:.1f} ms",
                     f"{p90:.0f} ms"])  # fmt: skip
        if label == "6k sample":
            continue
        sample = [plain_words(q) for q in queries[: args.process_queries]]
        run([*readlist, "--papers", str(path), "search", "warm", "up"])  # writes the index cache
        ours = statistics.median(run([*readlist, "--papers", str(path), "search", q]) for q in sample)
        theirs = "skipped: fzf not installed (apt-get install fzf)"
        ratio = ""
        if fzf:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as lines:
                lines.write("\n".join(p.text for p in papers) + "\n")
            took = statistics.median(
                run(["sh", "-c", f'{fzf} --filter "$1" < "$2"', "fzf", q, lines.name]) for q in sample
            )
            Path(lines.name).unlink()
            theirs, ratio = f"{took:.2f} s", f"{ours / took:.2f}x"
        process_rows.append([label, len(sample), f"{ours:.2f} s", theirs, ratio, "<= 0.5x"])
    print(f"Search latency ({len(queries)} mixed queries, seed {SEED}); targets: <= 10 ms at 10k, <= 60 ms at 100k;")
    print("build <= 1 s at 10k, <= 8 s at 100k (or cached)")
    print("titles: deriving every title once (then cached on disk), which title: queries read")
    print_table(["file", "papers", "build", "cached load", "titles", "median query", "p90 query"], rows)
    print()
    print("Whole process: `readlist search Q --papers F` (index cache warm) vs `fzf --filter Q` (medians)")
    print_table(["file", "queries", "readlist", "fzf", "ratio", "target"], process_rows)


if __name__ == "__main__":
    main()
