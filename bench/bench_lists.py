"""A library of 50 lists holding 100k annotated papers: what the library takes on disk, and what opening one list
costs, in a command and in the TUI's first screen, against the same database knowing one list.

    python bench/bench_lists.py [--papers 100000] [--lists 50] [--runs 3] [--no-tui]

The 100k corpus is cut into 50 paper files of 2,000 papers; each is opened in turn and every one of its papers
marked read, so the database holds 100,000 annotations and a library of 50 lists. Then list 1 is opened:

- "50 lists": the library as made; the other lists' annotations are theirs (no search for them);
- "1 list": the same database with list 1 alone in its library (as before lists were remembered: the other
  98,000 annotations are missing papers, looked for in list 1 once, then skipped by the cache's marker);
- "list 1's own": a database holding list 1's 2,000 annotations only.

"switch" opens list 2 then list 1 in turn, each opening written to the library (the list opened last changes).
Commands run in fresh processes, timed with /usr/bin/time (wall seconds, peak RSS); medians, printed with the
load average of the moment, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from bench_annotated import load, timed, tui_first_screen
from corpus import corpus_path

CLI_TARGET = "<= 1.5 s, 400 MB"
TUI_TARGET = "<= 2.5 s"


def cut(corpus: Path, n_lists: int, where: Path) -> list[Path]:
    """The corpus as `n_lists` paper files of as many papers each, named `List N`."""
    paragraphs = corpus.read_text(encoding="utf-8").split("\n\n")[1:]
    size = len(paragraphs) // n_lists
    files = []
    for n in range(n_lists):
        path = where / f"list{n + 1:02d}.txt"
        path.write_text(f"List {n + 1}\n\n" + "\n\n".join(paragraphs[n * size : (n + 1) * size]), encoding="utf-8")
        files.append(path)
    return files


def build(files: list[Path], db: Path) -> float:
    """Each list opened in turn, every paper of it marked read in one step. Seconds taken."""
    from readlist.core.papers.reader import read_papers
    from readlist.core.store.store import Store

    start = time.perf_counter()
    store = Store(db)  # one store, as one terminal UI opening each list in turn
    for path in files:
        papers = read_papers(path)
        store.reconcile(papers)
        store.update_many(papers.papers, status="read")
    return time.perf_counter() - start


def only(db: Path, keep: Path, out: Path) -> None:
    """A copy of the database whose library knows the list at `keep` alone."""
    data = json.loads(db.read_text(encoding="utf-8"))
    data["lists"] = {k: doc for k, doc in data["lists"].items() if doc["path"] == str(keep.resolve())}
    out.write_text(json.dumps(data), encoding="utf-8")


def cli(papers: Path, db: Path, runs: int, then: Path | None = None) -> tuple[float, float, str]:
    """Median wall time and peak RSS of `readlist --papers PAPERS list`; with `then`, that list opened before each."""
    results = []
    for _ in range(runs):
        if then is not None:
            timed([sys.executable, "-m", "readlist", "--papers", str(then), "--db", str(db), "list"])
        results.append(timed([sys.executable, "-m", "readlist", "--papers", str(papers), "--db", str(db), "list"]))
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results), load()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--lists", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-tui", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="readlist-bench-lists-") as tmp:
        tmp = Path(tmp)
        files = cut(corpus_path(args.papers), args.lists, tmp)
        library, one, own = tmp / "library.json", tmp / "one.json", tmp / "own.json"
        took = build(files, library)
        build(files[:1], own)
        only(library, files[0], one)
        size = library.stat().st_size
        table = json.loads(library.read_text(encoding="utf-8"))["lists"]
        listed = sum(len(json.dumps(doc, ensure_ascii=False)) for doc in table.values())
        rows.append(["database file", f"{size / 1e6:.1f} MB", "", ""])
        rows.append([f"  its library ({len(table)} lists)", f"{listed / 1e6:.2f} MB ({listed / size:.1%})", "", ""])
        rows.append(["  made in (each list opened, all read)", f"{took:.1f} s", load(), ""])
        first = files[0]
        cli(first, one, 1)  # the paper file's caches warmed, and the 1-list database's search for its missing papers
        dbs = ((f"{args.lists} lists", library), ("1 list", one), ("list 1's own", own))
        for label, db in dbs:
            wall, rss, at = cli(first, db, args.runs)
            rows.append([f"readlist list ({label})", f"{wall:.2f} s, {rss:.0f} MB", at, CLI_TARGET])
        wall, rss, at = cli(first, library, args.runs, then=files[1])
        rows.append([f"readlist list ({args.lists} lists, switch)", f"{wall:.2f} s, {rss:.0f} MB", at, CLI_TARGET])
        if not args.no_tui:
            for label, db in dbs:
                seconds, at = tui_first_screen(first, db, args.runs)
                rows.append([f"TUI first screen ({label})", f"{seconds:.2f} s", at, TUI_TARGET])
    print(f"{args.papers:,} annotated papers in {args.lists} lists; list 1 opened; medians of {args.runs} runs")
    print("'load' is the 1-minute load average when the figure was taken (2 cores, shared)")
    print_table(["measure", "result", "load", "target"], rows)


if __name__ == "__main__":
    main()
