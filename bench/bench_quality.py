"""Known-item search quality on the arXiv sample: can a user find a paper from a few title words?

python bench/bench_quality.py [--papers 300] [--seed 7 | --seeds 1,2,3] [--show 20]

For papers picked with a fixed seed, the query is the 2-4 rarest content words of the paper's real
title (rarest by document frequency in the abstracts), with a one-letter typo in one word of 4+ letters.
"word absent" is the share of queries with a title word found in no form in the paper's abstract: such
a paper cannot rank first when another paper holds every word (full matches come first).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import sample_path

from readlist.core.papers.reader import read_papers
from readlist.core.search.index import SearchIndex
from readlist.core.text.tokens import STOPWORDS, fold, index_form, root, split_words, stem

LETTERS = "abcdefghijklmnopqrstuvwxyz"


def typo(word: str, rng: random.Random) -> str:
    """One wrong, missing, extra or swapped letter."""
    kind = rng.choice(["wrong", "missing", "extra", "swapped"])
    at = rng.randrange(len(word) - (kind == "swapped"))
    if kind == "wrong":
        return word[:at] + rng.choice(LETTERS.replace(word[at], "")) + word[at + 1 :]
    if kind == "missing":
        return word[:at] + word[at + 1 :]
    if kind == "extra":
        return word[:at] + rng.choice(LETTERS) + word[at:]
    return word[:at] + word[at + 1] + word[at] + word[at + 2 :]


def make_query(title: str, index: SearchIndex, rng: random.Random) -> tuple[str, list[str]] | None:
    """The query, and its words as the title spells them."""
    words = []
    for word in split_words(fold(title)):
        if word not in STOPWORDS and len(word) >= 3 and word.isalpha() and word not in words:
            words.append(word)
    if len(words) < 2:
        return None
    rarest = sorted(words, key=lambda w: (index.df(stem(w)), words.index(w)))[: rng.choice([2, 3, 4])]
    chosen = [w for w in words if w in rarest]  # in title order
    long = [n for n, w in enumerate(chosen) if len(w) >= 4]
    if not long:
        return None
    n = rng.choice(long)
    typed = [*chosen]
    typed[n] = typo(chosen[n], rng)
    return " ".join(typed), chosen


def absent(words: list[str], text: str) -> bool:
    """Whether some word has no form (plural, inflection) in the text."""
    roots = {root(word) for word in split_words(index_form(text))}
    return any(root(word) not in roots for word in words)


@dataclass
class Run:
    seed: int
    ranks: list[int | None] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    misses: list[tuple[str, int | None, str, int | None]] = field(default_factory=list)
    missing_word: int = 0
    kinds: Counter = field(default_factory=Counter)  # why the paper was not first

    def row(self) -> list[str]:
        n = len(self.ranks)
        first = sum(r == 1 for r in self.ranks) / n
        top10 = sum(r is not None and r <= 10 for r in self.ranks) / n
        mrr = sum(1 / r for r in self.ranks if r) / n
        kinds = "/".join(str(self.kinds[k]) for k in KINDS)
        median = statistics.median(self.times) * 1000
        return [str(self.seed), f"{first:.1%}", f"{top10:.1%}", f"{mrr:.3f}", f"{median:.1f} ms",
                f"{self.missing_word / n:.1%}", kinds]  # fmt: skip


KINDS = ("outranked", "missing", "none", "unwinnable")


def measure(papers, titles: dict[int, str], index: SearchIndex, seed: int, size: int) -> Run:
    rng = random.Random(seed)
    order = list(range(len(papers)))
    rng.shuffle(order)
    run = Run(seed)
    for pos in order:
        if len(run.ranks) >= size:
            break
        made = make_query(titles.get(papers[pos].index, ""), index, rng)
        if made is None:
            continue
        query, words = made
        run.missing_word += absent(words, papers[pos].text)
        start = time.perf_counter()
        result = index.search(query)
        run.times.append(time.perf_counter() - start)
        found = list(result.positions)
        rank = found.index(pos) + 1 if pos in found else None
        run.ranks.append(rank)
        if rank != 1:
            run.misses.append((query, rank, titles[papers[pos].index], found[0] if found else None))
            if rank is None:
                run.kinds["none"] += 1
            elif rank <= result.full_matches:
                run.kinds["outranked"] += 1
            else:
                run.kinds["missing" if not result.full_matches else "unwinnable"] += 1
    return run


def real_titles() -> dict[int, str]:
    """The arXiv sample's real titles by paper number, from its .titles.tsv sidecar."""
    path = sample_path()
    titles = {}
    for line in path.with_name(path.stem + ".titles.tsv").read_text(encoding="utf-8").splitlines():
        number, _, title = line.partition("\t")
        titles[int(number)] = title
    return titles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--seeds", type=str, default="", help="comma-separated seeds, with their mean (e.g. 1,2,3)")
    parser.add_argument("--show", type=int, default=0, help="print this many misses")
    args = parser.parse_args()
    path = sample_path()
    papers = read_papers(path).papers
    titles = real_titles()
    index = SearchIndex.build(papers)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()] or [args.seed]
    runs = [measure(papers, titles, index, seed, args.papers) for seed in seeds]
    rows = [run.row() for run in runs]
    if len(runs) > 1:
        mean = Run(0, [r for run in runs for r in run.ranks], [t for run in runs for t in run.times])
        mean.missing_word = sum(run.missing_word for run in runs)
        mean.kinds = sum((run.kinds for run in runs), Counter())
        rows.append(["all", *mean.row()[1:]])
    print(f"Known-item search on {path.name}: {len(runs[0].ranks)} papers per seed, one typo per query; "
          "target >= 80% first / 92% top 10")  # fmt: skip
    print("misses: outranked by full matches / missing a word (no full match) / not found / missing a word,")
    print("        others hold every word (cannot rank first: full matches come first)")
    print_table(["seed", "ranked 1st", "top 10", "MRR", "median query", "word absent", "misses"], rows)
    for query, rank, title, top in runs[0].misses[: args.show]:
        print(f"  {rank!s:>5}  {query!r}  <- {title}")
        print(f"         first: {'-' if top is None else papers[top].title}")


if __name__ == "__main__":
    main()
