"""Resolving the shared arXiv sample against a local stand-in of the arXiv API: how many papers find their own id.

    python bench/bench_resolve.py                 # every paper of ../shared/data/arxiv-cs-6k (about 2 min)
    python bench/bench_resolve.py --limit 500     # the first 500
    python bench/bench_resolve.py --calibrate     # the similarity scores the threshold was chosen on
    python bench/bench_resolve.py --common-words  # rewrite core/resolve/common_words.tsv from the sample

The stand-in serves every paper (title and id from the .titles.tsv and .ids.tsv sidecars, summary = the
abstract as written, LaTeX and all) after two distractors per paper that hold its two most distinctive
phrases, so the search finds them and only verification can turn them down: one sets the sentences holding
the phrases among as many words of other papers' sentences, one is a follow-up paper's abstract (this one
with sentences replaced until it scores under 0.6, as the sample's own near-duplicate pairs do). A second
pass serves the distractors alone, as when the paper is not on arXiv: nothing may be resolved then.
Only arXiv is asked; pacing runs on a fake clock (no real waiting), whose total gives the time at 3 s a request.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table import print_table  # noqa: E402
from resolve_fakes import ArxivEntry, ArxivService, FakeClock, LocalServer  # noqa: E402

from readlist.core.resolve import PaperQuery, Resolver, Settings, Status  # noqa: E402
from readlist.core.resolve.phrases import distinctive_phrases  # noqa: E402
from readlist.core.resolve.similarity import THRESHOLD, abstract_score, words  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SEED = 20250713
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def load_sample() -> list[tuple[str, str, str, str]]:
    """(arXiv id, category, title, abstract) of every paper of the sample, in file order."""
    text = DATA / "arxiv-cs-6k.txt"
    if not text.is_file():
        raise SystemExit(f"missing {text}: the arXiv sample lives in ../shared/data")
    abstracts = [p.strip() for p in text.read_text(encoding="utf-8").split("\n\n") if p.strip()][1:]
    titles = dict(line.split("\t", 1) for line in (DATA / "arxiv-cs-6k.titles.tsv").read_text("utf-8").splitlines())
    ids = {
        n: rest.split("\t")
        for n, rest in (line.split("\t", 1) for line in (DATA / "arxiv-cs-6k.ids.tsv").read_text("utf-8").splitlines())
    }
    return [
        (ids[str(n)][0], ids[str(n)][1].replace("-", "."), titles[str(n)].strip(), abstract)
        for n, abstract in enumerate(abstracts, start=1)
    ]


def distractors(abstract: str, pool: list[str], rng: random.Random) -> tuple[str, str]:
    """Two abstracts of other papers that hold this one's two most distinctive phrases: the sentences holding
    them among as many words of other sentences, and a follow-up paper's, this abstract with sentences replaced
    until it scores under 0.6 (the sample's own near-duplicate pairs score 0.46 and 0.55). Other sentences are
    drawn one by one from `pool` (every sentence of the sample), so no distractor holds most of a third paper."""
    phrases = distinctive_phrases(abstract)[:2]
    sentences = _SENTENCES.split(abstract)
    kept = [s for s in sentences if any(p in s for p in phrases)]
    filler: list[str] = []
    while sum(len(s.split()) for s in filler) < sum(len(s.split()) for s in kept):
        filler.append(rng.choice(pool))
    cut = rng.randint(0, len(filler))
    sharing = " ".join(filler[:cut] + kept + filler[cut:])
    free = [n for n, s in enumerate(sentences) if s not in kept]
    rng.shuffle(free)
    follow_up = sentences[:]
    while abstract_score(abstract, " ".join(follow_up)) >= 0.6:
        if free:
            follow_up[free.pop()] = rng.choice(pool)
        else:
            follow_up.append(rng.choice(pool))
    return sharing, " ".join(follow_up)


def corpus(sample, rng: random.Random) -> tuple[list[ArxivEntry], dict[str, list[ArxivEntry]]]:
    """The entries served, distractors first, and each paper's distractors by its id."""
    # Whole sentences of up to 60 words: a longer one is a whole abstract written without sentence breaks.
    pool = [s for *_rest, abstract in sample for s in _SENTENCES.split(abstract) if len(s.split()) <= 60]
    fakes: dict[str, list[ArxivEntry]] = {}
    for n, (arxiv_id, _category, title, abstract) in enumerate(sample):
        fakes[arxiv_id] = [
            ArxivEntry(f"9{kind}{n:03d}.{rng.randrange(10**5):05d}", f"Not: {title}", text)
            for kind, text in enumerate(distractors(abstract, pool, rng))
        ]
    entries = [fake for pair in fakes.values() for fake in pair]
    return entries + [ArxivEntry(i, t, a, category=c) for i, c, t, a in sample], fakes


def resolve_all(entries: list[ArxivEntry], papers) -> tuple[collections.Counter[str], float, float]:
    """Counts of outcomes, requests and fake-clock seconds per paper, resolving `papers` against `entries`."""
    clock = FakeClock()
    counts: collections.Counter[str] = collections.Counter()
    with LocalServer(ArxivService(entries), clock) as server:
        settings = Settings.from_env({"READLIST_ARXIV_URL": f"{server.url}/api/query"}, sources=("arxiv",))
        with Resolver(settings, clock=clock) as resolver:
            queries = (PaperQuery(i, abstract) for i, _c, _t, abstract in papers)
            for (arxiv_id, _c, _t, _a), resolution in zip(papers, resolver.resolve_many(queries), strict=True):
                if resolution.status is Status.FOUND:
                    counts["right" if resolution.match.arxiv_id == arxiv_id else "wrong"] += 1
                else:
                    counts[resolution.status.value] += 1
        return counts, len(server.requests) / len(papers), (clock.now - 1000) / len(papers)


def run(limit: int | None) -> None:
    sample = load_sample()
    entries, fakes = corpus(sample, random.Random(SEED))
    distractor_entries = entries[: len(entries) - len(sample)]
    papers = sample[:limit] if limit else sample
    print(f"arXiv stand-in: {len(sample)} papers and {len(distractor_entries)} distractors; only arXiv asked\n")
    headers = ["arXiv holds", "papers", "right id", "wrong id", "possible", "not found", "failed", "requests/paper"]
    headers.append("s/paper at 3 s/request")
    rows, started = [], time.perf_counter()
    for holds, served in (("the paper", entries), ("distractors only", distractor_entries)):
        counts, requests, pace = resolve_all(served, papers)
        share = lambda key, counts=counts: f"{counts[key]} ({100 * counts[key] / len(papers):.1f}%)"  # noqa: E731
        cells = [share(key) for key in ("right", "wrong", "possible", "not found", "failed")]
        rows.append([holds, len(papers), *cells, f"{requests:.2f}", f"{pace:.1f}"])
    print_table(headers, rows)
    scores = [abstract_score(a, fake.summary) for i, _c, _t, a in papers for fake in fakes[i]]
    print(
        f"\nthreshold {THRESHOLD}; distractors' scores: median {sorted(scores)[len(scores) // 2]:.3f}, "
        f"best {max(scores):.3f}; the run took {time.perf_counter() - started:.0f} s (no real waiting)"
    )


def calibrate() -> None:
    """Scores of each abstract against its nearest other papers, and against edited versions of itself."""
    sample = load_sample()
    abstracts = [a for *_rest, a in sample]
    counts = collections.Counter(w for a in abstracts for w in set(words(a)))
    rare_index: dict[str, list[int]] = collections.defaultdict(list)
    for n, a in enumerate(abstracts):
        for w in set(words(a)):
            if counts[w] <= 50:
                rare_index[w].append(n)
    nearest = []
    for n, a in enumerate(abstracts):
        shared: collections.Counter[int] = collections.Counter()
        for w in set(words(a)):
            for m in rare_index.get(w, ()):
                if m != n:
                    shared[m] += 1 / counts[w]
        nearest.append(max((abstract_score(a, abstracts[m]) for m, _ in shared.most_common(15)), default=0.0))
    rng = random.Random(SEED)
    edits: dict[str, list[float]] = collections.defaultdict(list)
    for n in rng.sample(range(len(abstracts)), 1500):
        sentences = _SENTENCES.split(abstracts[n])
        if len(sentences) < 4:
            continue
        dropped = sentences[:]
        del dropped[rng.randrange(len(dropped))]
        edits["one sentence dropped"].append(abstract_score(abstracts[n], " ".join(dropped)))
        swapped = dropped[:]
        swapped[rng.randrange(len(swapped))] = rng.choice(_SENTENCES.split(abstracts[rng.randrange(len(abstracts))]))
        edits["one dropped, one replaced"].append(abstract_score(abstracts[n], " ".join(swapped)))
        edits["first 70%"].append(abstract_score(abstracts[n], abstracts[n][: len(abstracts[n]) * 7 // 10]))

    def q(values: list[float], share: float) -> str:
        return f"{sorted(values)[int(share * (len(values) - 1))]:.3f}"

    rows = [["nearest other paper", len(nearest), q(nearest, 0.5), q(nearest, 0.99), f"{max(nearest):.3f}", "-", "-"]]
    for name, values in edits.items():
        below = sum(v < THRESHOLD for v in values)
        rows.append([name, len(values), q(values, 0.5), "-", "-", f"{min(values):.3f} / {q(values, 0.01)}", below])
    print_table(["scores of", "papers", "median", "99th pct", "max", "min / 1st pct", f"< {THRESHOLD}"], rows)


def write_common_words() -> None:
    target = ROOT / "src" / "readlist" / "core" / "resolve" / "common_words.tsv"
    from readlist.core.text.normalize import fold, to_plain

    abstracts = [a for *_rest, a in load_sample()]
    counts = collections.Counter(w for a in abstracts for w in set(re.findall(r"[^\W\d_]+", fold(to_plain(a)))))
    lines = [
        f"# Words in at least 0.3% of {len(abstracts):,} arXiv cs abstracts (cs.LG, cs.AI, cs.CL), "
        "with how many hold them.",
        "# Folded (lower case, no accents); written by bench/bench_resolve.py --common-words.",
        f"# documents\t{len(abstracts)}",
    ]
    lines += [f"{w}\t{c}" for w, c in sorted(counts.items(), key=lambda x: (-x[1], x[0])) if c >= 19]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {target} ({len(lines) - 3} words)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="resolve only the first N papers")
    parser.add_argument("--calibrate", action="store_true", help="print the scores the threshold was chosen on")
    parser.add_argument("--common-words", action="store_true", help="rewrite common_words.tsv from the sample")
    args = parser.parse_args()
    if args.calibrate:
        calibrate()
    elif args.common_words:
        write_common_words()
    else:
        run(args.limit)
