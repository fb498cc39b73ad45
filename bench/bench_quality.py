"""Known-item search quality on the arXiv sample: can a user find a paper from a few title words?

python bench/bench_quality.py [--papers 300] [--seed 7]

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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from corpus import sample_path

from readlist.core.reader import read_papers
from readlist.core.search import SearchIndex
from readlist.core.tokens import STOPWORDS, fold, index_form, root, split_words, stem

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--show", type=int, default=0, help="print this many misses")
    args = parser.parse_args()
    path = sample_path()
    papers = read_papers(path).papers
    titles = {}
    for line in path.with_name(path.stem + ".titles.tsv").read_text(encoding="utf-8").splitlines():
        number, _, title = line.partition("\t")
        titles[int(number)] = title
    index = SearchIndex.build(papers)
    rng = random.Random(args.seed)
    order = list(range(len(papers)))
    rng.shuffle(order)
    ranks, times, misses, missing_word = [], [], [], 0
    for pos in order:
        if len(ranks) >= args.papers:
            break
        made = make_query(titles.get(papers[pos].index, ""), index, rng)
        if made is None:
            continue
        query, words = made
        missing_word += absent(words, papers[pos].text)
        start = time.perf_counter()
        result = index.search(query)
        times.append(time.perf_counter() - start)
        found = list(result.positions)
        rank = found.index(pos) + 1 if pos in found else None
        ranks.append(rank)
        if rank != 1:
            misses.append((query, rank, titles[papers[pos].index], found[0] if found else None))
    n = len(ranks)
    first = sum(r == 1 for r in ranks) / n
    top10 = sum(r is not None and r <= 10 for r in ranks) / n
    mrr = sum(1 / r for r in ranks if r) / n
    print(f"Known-item search on {path.name}: {n} papers, seed {args.seed}, one typo per query")
    print_table(
        ["ranked 1st", "top 10", "MRR", "median query", "word absent", "target"],
        [
            [
                f"{first:.1%}",
                f"{top10:.1%}",
                f"{mrr:.3f}",
                f"{statistics.median(times) * 1000:.1f} ms",
                f"{missing_word / n:.1%}",
                ">= 80% / 92%",
            ]
        ],
    )
    for query, rank, title, top in misses[: args.show]:
        print(f"  {rank!s:>5}  {query!r}  <- {title}")
        print(f"         first: {'-' if top is None else papers[top].title}")


if __name__ == "__main__":
    main()
