"""Load time and peak memory of reading paper files in each format (each file in a fresh process), and how many
titles shown for the arXiv sample, read with its sidecar files, are its real titles.

python bench/bench_load.py [--runs 5] [--formats text,bibtex,...]

Every format's 10k and 100k files hold the same abstracts as the text ones (see corpus.py), each with a
title, authors, year, venue and ids. Each file is measured twice: "cold", parsing the file (an empty cache
directory), and "cached", read again with the user cache directory of a first read: another format than text
as its parsed list, a text file cut where its papers are (text_cache.py). The CPU time beside the load is the
process's own (user and system, imports included), which a busy machine inflates less than the load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import FORMATS, corpus_path, sample_path, titles_path

CHILD = r"""
import json, sys, time
start, cpu = time.perf_counter(), time.process_time()
from readlist.core.papers.formats import load_papers
papers = load_papers(sys.argv[1])
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
peak_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
print(json.dumps({"papers": len(papers), "seconds": elapsed, "cpu": cpu, "peak_mb": peak_kb / 1024}))
"""

TARGETS = {"10k": "<= 0.3 s", "100k": "<= 3 s, <= 600 MB"}

# The papers as a command reads them with its database: the database opened (holding N papers' lookups, each with
# a found title, authors and links) and the found fields laid over the papers read from the file.
WITH_FOUND = r"""
import json, sys, time
from readlist.core.papers.formats import load_papers
from readlist.core.store.found import with_found
from readlist.core.store.store import Store
papers = load_papers(sys.argv[1])
start = time.perf_counter()
store = Store(sys.argv[2])
store.reconcile(papers)
shown = with_found(papers, store.resolutions())
elapsed = time.perf_counter() - start
found = sum(paper.title_origin == "found" for paper in shown.papers)
print(json.dumps({"papers": len(shown), "found": found, "seconds": elapsed}))
"""


def measure(path: Path, runs: int, cache: Path | None = None) -> dict:
    """The median run; each in a fresh process with the cache directory `cache` (None: a new, empty one)."""
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as empty:
            env = {**os.environ, "XDG_CACHE_HOME": str(cache or empty)}
            out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, check=True,
                                 env=env)  # fmt: skip
        results.append(json.loads(out.stdout))
    results.sort(key=lambda r: r["seconds"])
    return results[len(results) // 2]


def found_overlay(path: Path, counts: tuple[int, ...] = (0, 1_000, 10_000)) -> list[list]:
    """Rows: opening a database holding N lookups and laying them over the 100k papers (median of 3 processes)."""
    from readlist.core.papers.formats import load_papers
    from readlist.core.resolve import Match, Resolution, Status
    from readlist.core.store.store import Store

    papers = load_papers(path).papers
    rows = []
    for n in counts:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "readlist.json"
            found = [
                Resolution(paper.id, Status.FOUND, match=Match(f"Found title {paper.index}", "arxiv+dblp",
                           authors=("Ada Lovelace", "Alan Turing"), year=2025, arxiv_id=f"2501.{paper.index:05d}",
                           pdf_url=f"https://arxiv.org/pdf/2501.{paper.index:05d}", score=0.95, verified=True))
                for paper in papers[:n]
            ]  # fmt: skip
            Store(db).keep_resolutions(found)
            results = []
            for _ in range(3):
                out = subprocess.run([sys.executable, "-c", WITH_FOUND, str(path), str(db)], capture_output=True,
                                     text=True, check=True)  # fmt: skip
                results.append(json.loads(out.stdout))
            r = sorted(results, key=lambda r: r["seconds"])[1]
            rows.append([f"{n:,}", r["found"], f"{r['seconds'] * 1000:.0f} ms"])
    return rows


def real_titles() -> list[str]:
    """Rows: the share of the sample's papers whose title, read with the sidecars, is the real one."""
    from readlist.core.papers.formats import load_papers
    from readlist.core.text.normalize import to_plain

    real = {}
    for line in titles_path().read_text(encoding="utf-8").splitlines():
        number, _, title = line.partition("\t")
        real[int(number)] = title
    papers = load_papers(sample_path()).papers
    as_written = sum(paper.given_title == real.get(paper.index) for paper in papers)
    shown = sum(paper.title == to_plain(real.get(paper.index, "")) for paper in papers)
    return [
        ["given title == titles.tsv as written", f"{as_written}/{len(papers)}", f"{as_written / len(papers):.1%}"],
        ["title shown == titles.tsv as shown", f"{shown}/{len(papers)}", f"{shown / len(papers):.1%}"],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--formats", default=",".join(["text", *FORMATS]), help="comma-separated format names")
    args = parser.parse_args()
    from readlist.core.files.paths import bundled_papers

    files = [("bundled", "text", bundled_papers()), ("6k sample + sidecars", "text", sample_path())]
    for fmt in args.formats.split(","):
        files += [("10k", fmt, corpus_path(10_000, fmt)), ("100k", fmt, corpus_path(100_000, fmt))]
    rows = []
    with tempfile.TemporaryDirectory() as warm:
        for label, fmt, path in files:
            runs = [("cold", measure(path, args.runs))]
            measure(path, 1, Path(warm))
            runs.append(("cached", measure(path, args.runs, Path(warm))))
            for cache, r in runs:
                load, cpu = f"{r['seconds'] * 1000:.0f} ms", f"{r['cpu'] * 1000:.0f} ms"
                target = TARGETS.get(label, "")
                rows.append([label, fmt, cache, r["papers"], load, cpu, f"{r['peak_mb']:.0f} MB", target])
    print(
        f"Load (median of {args.runs} runs, time inside the process incl. imports of the reader; load average "
        f"{os.getloadavg()[0]:.1f})"
    )
    print_table(["file", "format", "cache", "papers", "load", "CPU", "peak RSS", "target"], rows)
    print("\n100k text papers read with a database holding N lookups (`readlist resolve`): opening it and laying the")
    print("found fields over the papers, median of 3 processes")
    print_table(["lookups", "papers shown found", "open + overlay"], found_overlay(corpus_path(100_000, "text")))
    print("\nTitles of the arXiv sample read with arxiv-cs-6k.titles.tsv and .ids.tsv (target 100%)")
    print_table(["measure", "papers", "share"], real_titles())


if __name__ == "__main__":
    main()
