"""Search engines side by side: ours (core/search) against tantivy fed our own normalised text.

python bench/bench_engines.py quality [--engine ours|tantivy|both] [--seeds 7] [--papers 300]
python bench/bench_engines.py search [--skip-100k] [--threads 2] [--heap-mb 128]
python bench/bench_engines.py related [--queries 200] [--skip-100k]
python bench/bench_engines.py writer --dir DIR [--size 100000]

quality: bench_quality.py's method exactly (same papers, same typed queries, generated from our index's
document frequencies), only the engine answering differs. search: build cold and open warm (each in a fresh
process, with its peak RSS and the index's size on disk), then bench_search.py's 50 mixed queries (p50/p90).
related: more-like-this against related.py: query latency, overlap of the top 10, whether a planted
near-duplicate (the abstract less one sentence, or half its sentences) comes first, and how many of the top 5
share a word of the paper's real title (the arXiv sample's text holds none). writer: the on-disk writer in DIR (point it
at a small filesystem to see what a full disk does to it).

tantivy is no dependency of readlist: `pip install tantivy` first; without it this says so and exits.
The adapter feeds tantivy our terms (index_form: LaTeX and Greek folding, hyphen joins; split_words: CJK
pairs; stem; stopwords left out), whitespace-separated, so the folding rules stay ours. Of the query language
it maps words (BM25; fuzzy with transpositions from 4 letters, 2 typos from 8, as ours; the word being typed
as a prefix), "phrases", -exclusions and title:. Fields and flags (author:, tag:, year:, is:starred, ...)
are out of scope: those terms are left out of tantivy's query and counted. Word families ("evaluated" for
"evaluation") go in as a field of our roots; near forms ("revision" for "revise") and weighing each typo
variant by its own IDF (tantivy scores fuzzy and prefix matches as a constant) are ours only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _table import print_table
from bench_quality import Run, measure, real_titles
from corpus import corpus_path, sample_path

from readlist.core.papers.paper import Paper
from readlist.core.papers.reader import read_papers
from readlist.core.search.index import AUTHOR_BOOST, SENTENCE_BOOST, TITLE_BOOST, SearchIndex
from readlist.core.search.matching import FAINT, FAMILY, NEAREST, PREFIX, WordMatcher, matchers
from readlist.core.search.postings import author_words, title_source
from readlist.core.search.query import QueryError, Term, parse
from readlist.core.search.related import QUERY_TERMS, RelatedIndex, _boilerplate
from readlist.core.text.tokens import MIN_ROOT, STOPWORDS, fold, index_form, root, split_words, stem

try:
    import tantivy
except ImportError:  # not a dependency of readlist
    tantivy = None

LIMIT = 100  # hits asked of tantivy (ours ranks every match): ranks past it count as not found
FUZZY = 2.0  # a fuzzy term's score: tantivy scores automaton queries (fuzzy, prefix) as a constant
HEAP = 128_000_000  # the writer's memory, shared by its threads (tantivy wants >= 15 MB a thread)
THREADS = 2
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


# -- the adapter --------------------------------------------------------------------------------------------


def terms(folded: str) -> str:
    """Our index terms of folded text, as tantivy's whitespace tokenizer will split them."""
    return " ".join(stem(word) for word in split_words(folded) if word not in STOPWORDS)


FIELDS = (("body", 1.0), ("title", TITLE_BOOST), ("lead", SENTENCE_BOOST), ("authors", AUTHOR_BOOST))


def schema():
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="position")  # positions: phrases
    builder.add_text_field("title", tokenizer_name="whitespace", index_option="freq")  # the file's title
    builder.add_text_field("lead", tokenizer_name="whitespace", index_option="freq")  # else the first sentence
    builder.add_text_field("authors", tokenizer_name="whitespace", index_option="basic")
    builder.add_text_field("roots", tokenizer_name="whitespace", index_option="freq")  # our word families
    builder.add_integer_field("pos", fast=True)  # i64: a Python int given to a u64 field panics the writer
    return builder.build()


def document(paper: Paper, position: int):
    body = terms(index_form(paper.text))
    heading = terms(title_source(paper))
    return tantivy.Document(
        body=body,
        roots=" ".join(map(root, body.split())),
        title=heading if paper.known_title else "",
        lead="" if paper.known_title else heading,
        authors=" ".join(map(stem, author_words(paper))),
        pos=position,
    )


@dataclass(frozen=True)
class Hits:
    positions: list[int]
    full_matches: int
    skipped: int  # query terms out of scope


class TantivyEngine:
    """Our papers in a tantivy index, searched with our query language's words."""

    fuzzy = FUZZY

    def __init__(self, index, size: int) -> None:
        self.index = index
        self.schema = index.schema
        self.size = size
        index.reload()
        self.searcher = index.searcher()
        self.rare = math.log(1 + (size - 0.5) / 1.5)  # BM25's IDF of a word in one paper

    @classmethod
    def build(cls, papers, path: Path | None = None, heap: int = HEAP, threads: int = THREADS) -> TantivyEngine:
        index = tantivy.Index(schema(), path=str(path) if path is not None else None)
        writer = index.writer(heap, threads)
        for position, paper in enumerate(papers):
            writer.add_document(document(paper, position))
        writer.commit()
        writer.wait_merging_threads()
        return cls(index, len(papers))

    @classmethod
    def open(cls, path: Path, size: int) -> TantivyEngine:
        return cls(tantivy.Index.open(str(path)), size)

    # -- queries --

    def _boolean(self, clauses):
        return tantivy.Query.boolean_query(clauses)

    def _word(self, matcher: WordMatcher, fields) -> tuple[object, list]:
        """Any of: the term in each field (BM25, boosted as ours), its family, its completions, its typo variants;
        and the faint typo variants of a real word, which rank a paper but do not match it (as ours)."""
        q, should = tantivy.Query, tantivy.Occur.Should
        clauses = [
            (should, q.boost_query(q.term_query(self.schema, name, matcher.stem), boost)) for name, boost in fields
        ]
        if matcher.prefix:
            for name, _ in fields[:2]:
                found = q.fuzzy_term_query(self.schema, name, matcher.word, distance=0, prefix=True)
                clauses.append((should, q.boost_query(found, self.fuzzy * PREFIX)))
        if matcher.family and len(matcher.root) >= MIN_ROOT:
            clauses.append((should, q.boost_query(q.term_query(self.schema, "roots", matcher.root), FAMILY)))
        if matcher.typos:
            # A word no paper holds is a typo: its variants stand in for it, weighing as a rare word (ours: NEAREST
            # times the word's IDF). A real word's variants stay faint.
            typo = not self.searcher.doc_freq("body", matcher.stem)
            boost = NEAREST * self.rare if typo else self.fuzzy * FAINT
            variants = [
                (
                    should,
                    q.boost_query(q.fuzzy_term_query(self.schema, name, matcher.stem, distance=matcher.typos), boost),
                )
                for name, _ in fields[:3]
            ]
            if not typo:
                return self._boolean(clauses), variants
            clauses += variants
        return self._boolean(clauses), []

    def _clause(self, term: Term) -> tuple[object, list] | None:
        """A query term as one tantivy query and its faint clauses, or None when it is out of scope (a field or
        a flag)."""
        q = tantivy.Query
        if term.kind == "phrase":
            words = [stem(w) for w in split_words(fold(term.value)) if w not in STOPWORDS]
            if not words:
                return None
            if len(words) == 1:
                return q.term_query(self.schema, "body", words[0]), []
            return q.phrase_query(self.schema, "body", words), []
        if term.kind not in ("word", "title"):
            return None
        fields = FIELDS if term.kind == "word" else FIELDS[1:3]
        words = [self._word(m, fields) for m in matchers(term.value, term.prefix)]
        if not words:
            return None
        faint = [clause for _, extra in words for clause in extra]
        if len(words) == 1:
            return words[0][0], faint
        return self._boolean([(tantivy.Occur.Must, w) for w, _ in words]), faint

    def _positions(self, query, limit: int) -> list[int]:
        hits = self.searcher.search(query, limit, count=False).hits
        return self.searcher.fast_field_values("pos", [address for _, address in hits]) if hits else []

    def search(self, text: str, limit: int = LIMIT) -> Hits:
        """Papers holding every word first (as ours ranks them), then those holding some, by score."""
        try:
            parsed = parse(text)
        except QueryError:
            return Hits([], 0, 0)
        must, must_not, faint, skipped = [], [], [], 0
        for term in parsed.terms:
            found = self._clause(term)
            if found is None:
                skipped += 1
            elif term.negated:
                must_not.append(found[0])
            else:
                must.append(found[0])
                faint += found[1]
        if not must:
            return Hits([], 0, skipped)
        extra = [(tantivy.Occur.MustNot, clause) for clause in must_not] + faint
        full = self._positions(self._boolean([(tantivy.Occur.Must, c) for c in must] + extra), limit)
        positions = list(full)
        if len(must) > 1 and len(positions) < limit:
            seen = set(positions)
            some = self._boolean([(tantivy.Occur.Should, c) for c in must] + extra)
            positions += [p for p in self._positions(some, limit) if p not in seen][: limit - len(positions)]
        return Hits(positions, len(full), skipped)

    def related(self, paper: Paper, position: int, k: int = 10) -> list[int]:
        """More like this: the paper's heaviest terms (ours: at most QUERY_TERMS, none in over half the papers)."""
        query = tantivy.Query.more_like_this_document_fields_query(
            self.schema,
            {"body": [terms(index_form(paper.text))]},
            min_doc_frequency=2,
            max_doc_frequency=max(2, self.size // 2),
            min_term_frequency=1,
            max_query_terms=QUERY_TERMS,
            stop_words=sorted(_boilerplate()),
        )
        return [p for p in self._positions(query, k + 1) if p != position][:k]


class QualityAdapter:
    """What bench_quality.measure asks of an index: `df` (ours, so the queries are the same) and `search`."""

    def __init__(self, ours: SearchIndex, engine: TantivyEngine) -> None:
        self.df = ours.df
        self.engine = engine

    def search(self, query: str) -> Hits:
        return self.engine.search(query)


# -- quality ------------------------------------------------------------------------------------------------


def quality(args) -> None:
    path = sample_path()
    papers = read_papers(path).papers
    titles = real_titles()
    ours = SearchIndex.build(papers)
    engines = {"ours": ours}
    if args.engine in ("tantivy", "both"):
        engines["tantivy"] = QualityAdapter(ours, TantivyEngine.build(papers))
    if args.engine == "tantivy":
        del engines["ours"]
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    rows = []
    for name, index in engines.items():
        runs = [measure(papers, titles, index, seed, args.papers) for seed in seeds]
        for run in runs:
            rows.append([name, *run.row()[:5], load()])
        if len(runs) > 1:
            mean = Run(0, [r for run in runs for r in run.ranks], [t for run in runs for t in run.times])
            rows.append([name, "all", *mean.row()[1:5], load()])
    print(f"Known-item search on {path.name} (bench_quality's queries: {args.papers} papers a seed, one typo each);")
    print(f"tantivy asked for its top {LIMIT}: a rank past that counts as not found")
    print_table(["engine", "seed", "ranked 1st", "top 10", "MRR", "median query", "load"], rows)


# -- build, open, queries -----------------------------------------------------------------------------------


def child(args) -> None:
    """In a fresh process: build (cold) or open (warm) one engine's index of one file; print JSON."""
    papers = read_papers(corpus_path(args.size)).papers
    before = rss_mb()
    directory = Path(args.dir)
    start = time.perf_counter()
    if args.engine == "ours":
        from readlist.core.search.cache import load_or_build

        index = load_or_build(papers, cache_dir=directory)
        index.search("graph neural")
    elif args.engine == "tantivy-ram":
        TantivyEngine.build(papers, None, args.heap_mb * 1_000_000, args.threads).search("graph neural")
    elif args.mode == "build":
        TantivyEngine.build(papers, directory, args.heap_mb * 1_000_000, args.threads).search("graph neural")
    else:
        TantivyEngine.open(directory, len(papers)).search("graph neural")
    took = time.perf_counter() - start
    print(json.dumps({"seconds": took, "rss_papers": before, "rss_peak": rss_mb(), "load": load()}))


def run_child(mode: str, engine: str, size: int, directory: Path, args) -> dict:
    cmd = [sys.executable, __file__, "_child", mode, "--engine", engine, "--size", str(size), "--dir", str(directory),
           "--threads", str(args.threads), "--heap-mb", str(args.heap_mb)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_engine(engine: str, size: int, args) -> tuple[dict, dict, int]:
    """One cold build and (but for the index kept in memory) one warm open, each in a fresh process; and the
    index's size on disk."""
    directory = Path(tempfile.mkdtemp(prefix=f"engines-{engine}-"))
    try:
        built = run_child("build", engine, size, directory, args)
        opened = run_child("open", engine, size, directory, args) if engine != "tantivy-ram" else {}
        return built, opened, dir_size(directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def latencies(search, queries: list[str]) -> tuple[float, float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.9)] * 1000


def search_bench(args) -> None:
    from bench_search import make_queries

    queries = make_queries()
    out_of_scope = sum(1 for q in queries for t in parse(q).terms if t.kind not in ("word", "title", "phrase"))
    sizes = [10_000] if args.skip_100k else [10_000, 100_000]
    build_rows, query_rows = [], []
    for size in sizes:
        for engine in ("ours", "tantivy", "tantivy-ram"):
            runs = [measure_engine(engine, size, args) for _ in range(args.runs)]
            failed = [built for built, _, _ in runs if "error" in built]
            if failed:
                build_rows.append([size, engine, failed[0]["error"], "", "", "", "", ""])
                continue
            built = {
                key: statistics.median(b[key] for b, _, _ in runs) for key in ("seconds", "rss_peak", "rss_papers")
            }
            built["load"] = "/".join(b["load"] for b, _, _ in runs)
            opened = {"seconds": statistics.median(o["seconds"] for _, o, _ in runs)} if runs[0][1] else {}
            on_disk = runs[0][2]
            build_rows.append([
                size, engine, f"{built['seconds']:.2f} s", f"{built['rss_peak']:.0f} MB",
                f"+{built['rss_peak'] - built['rss_papers']:.0f} MB", f"{opened['seconds']:.3f} s" if opened else "-",
                f"{on_disk / 1e6:.1f} MB" if on_disk else "-", built["load"],
            ])  # fmt: skip
        papers = read_papers(corpus_path(size)).papers
        ours = SearchIndex.build(papers)
        theirs = TantivyEngine.build(papers, None, args.heap_mb * 1_000_000, args.threads)
        for name, search in (("ours", ours.search), ("tantivy", theirs.search)):
            latencies(search, queries[:5])  # warm up
            p50, p90 = latencies(search, queries)
            query_rows.append([size, name, f"{p50:.1f} ms", f"{p90:.1f} ms", load()])
        del ours, theirs, papers
    print(f"Build cold / open warm, each in a fresh process, medians of {args.runs} (tantivy: {args.threads} writer "
          f"threads, {args.heap_mb} MB heap); peak RSS counts reading the papers, + is the index's share")  # fmt: skip
    print_table(["papers", "engine", "build", "peak RSS", "index", "open warm", "on disk", "load (builds)"], build_rows)
    print()
    print(f"bench_search's {len(queries)} mixed queries ({out_of_scope} filter terms out of tantivy's scope, left out);"
          f" tantivy returns its top {LIMIT}, ours ranks every match")  # fmt: skip
    print_table(["papers", "engine", "p50", "p90", "load"], query_rows)


# -- related papers -----------------------------------------------------------------------------------------


def with_twins(papers, count: int, keep: float, rng: random.Random) -> tuple[list[Paper], dict[int, int]]:
    """The papers and, after them, a near-duplicate of `count` of them: the abstract with one later sentence left
    out (keep 1.0), or only this share of its sentences, in their order, the first always kept."""
    out, twins = list(papers), {}
    for position in rng.sample(range(len(papers)), len(papers)):
        sentences = _SENTENCE.split(papers[position].text)
        if len(sentences) < 3:
            continue
        if keep < 1.0:
            kept = {0, *rng.sample(range(1, len(sentences)), max(1, round(keep * len(sentences)) - 1))}
        else:
            kept = set(range(len(sentences))) - {rng.randrange(1, len(sentences))}
        twins[position] = len(out)
        out.append(Paper(id=f"twin-{position}", index=len(out) + 1, text=" ".join(sentences[n] for n in sorted(kept))))
        if len(twins) == count:
            break
    return out, twins


def title_roots(title: str) -> set[str]:
    return {root(word) for word in split_words(fold(title)) if word not in STOPWORDS and word.isalpha()}


def related_positions(engine: RelatedIndex | TantivyEngine, papers, position: int, k: int) -> list[int]:
    if isinstance(engine, RelatedIndex):
        return [doc for doc, _ in engine.related(position, k=k)]
    return engine.related(papers[position], position, k=k)


def related_bench(args) -> None:
    rows, quality_rows = [], []
    files = [("6k sample", sample_path()), ("6k sample, half", sample_path()), ("10k", corpus_path(10_000))]
    if not args.skip_100k:
        files.append(("100k", corpus_path(100_000)))
    titles = {number: title_roots(title) for number, title in real_titles().items()}
    for label, path in files:
        papers = read_papers(path).papers
        rng = random.Random(7)
        twins: dict[int, int] = {}
        if label.startswith("6k sample"):
            keep = 1.0 if label == "6k sample" else 0.5
            papers, twins = with_twins(papers, args.queries, keep, rng)
        ours = RelatedIndex(SearchIndex.build(papers))
        start = time.perf_counter()
        ours.lengths()
        lengths = time.perf_counter() - start
        theirs = TantivyEngine.build(papers, None, args.heap_mb * 1_000_000, args.threads)
        sample = rng.sample(range(len(papers)), min(args.queries, len(papers)))
        answers = {}
        for name, engine in (("ours", ours), ("tantivy", theirs)):
            times, found = [], {}
            for position in sample:
                start = time.perf_counter()
                found[position] = related_positions(engine, papers, position, 10)
                times.append(time.perf_counter() - start)
            answers[name] = found
            times.sort()
            extra = f"{lengths * 1000:.0f} ms" if name == "ours" else "none"
            rows.append([label, name, extra, f"{statistics.median(times) * 1000:.1f} ms",
                         f"{times[int(0.9 * (len(times) - 1))] * 1000:.1f} ms", load()])  # fmt: skip
        overlap = statistics.mean(
            len(set(answers["ours"][p]) & set(answers["tantivy"][p])) / 10 for p in sample if answers["ours"][p]
        )
        first = statistics.mean(answers["ours"][p][:1] == answers["tantivy"][p][:1] for p in sample)
        rows[-1].append(f"{overlap:.0%} / {first:.0%}")
        rows[-2].append("")
        if twins:
            for name, engine in (("ours", ours), ("tantivy", theirs)):
                hit = 0
                for original, twin in twins.items():
                    found = related_positions(engine, papers, original, 1)
                    hit += found[:1] == [twin]
                shared = [
                    len(titles[papers[p].index] & titles.get(papers[q].index, set())) > 0
                    for p in sample
                    if papers[p].index in titles
                    for q in answers[name][p][:5]
                    if not papers[q].id.startswith("twin-")
                ]
                kind = "less one sentence" if label == "6k sample" else "half the sentences"
                quality_rows.append(
                    [name, kind, len(twins), f"{hit / len(twins):.1%}", f"{statistics.mean(shared):.1%}"]
                )
    print(f"Related papers: {args.queries} random papers a file, k=10 (the 6k sample with near-duplicates planted);")
    print("overlap@10: share of ours' top 10 that tantivy lists too; same 1st: both list the same paper first")
    print_table(["file", "engine", "build beyond index", "p50", "p90", "load", "overlap@10 / same 1st"], rows)
    print()
    print("On the arXiv sample: does a planted near-duplicate come first among the related papers; and how many of the")
    print("top 5 share a word of their real title with the paper's (titles are not in the text either engine reads)")
    print_table(["engine", "near-duplicate", "planted", "comes first", "top 5 sharing a title word"], quality_rows)


# -- the on-disk writer -------------------------------------------------------------------------------------


def writer_bench(args) -> None:
    papers = read_papers(corpus_path(args.size)).papers
    directory = Path(tempfile.mkdtemp(prefix="engines-writer-", dir=args.dir))
    free = shutil.disk_usage(directory).free
    start = time.perf_counter()
    peak = 0
    try:
        index = tantivy.Index(schema(), path=str(directory))
        writer = index.writer(args.heap_mb * 1_000_000, args.threads)
        for position, paper in enumerate(papers):
            writer.add_document(document(paper, position))
            if not position % 5000:
                peak = max(peak, dir_size(directory))
        writer.commit()
        writer.wait_merging_threads()
        outcome = "ok"
    except ValueError as exc:
        outcome = f"failed: {exc}"
    peak = max(peak, dir_size(directory))
    print(f"{len(papers)} papers into {directory} ({free / 1e6:.0f} MB free), {args.threads} threads, "
          f"{args.heap_mb} MB heap: {outcome} after {time.perf_counter() - start:.1f} s; "
          f"largest size seen {peak / 1e6:.1f} MB, final {dir_size(directory) / 1e6:.1f} MB")  # fmt: skip
    shutil.rmtree(directory, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["quality", "search", "related", "writer", "_child"])
    parser.add_argument("mode", nargs="?", default="build", choices=["build", "open"])
    parser.add_argument("--engine", default="both")
    parser.add_argument("--seeds", default="7")
    parser.add_argument("--papers", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--heap-mb", type=int, default=HEAP // 1_000_000)
    parser.add_argument("--skip-100k", action="store_true")
    parser.add_argument("--runs", type=int, default=1, help="builds and opens per engine and size (medians)")
    parser.add_argument("--fuzzy", type=float, default=FUZZY, help="score of a fuzzy or prefix match in tantivy")
    args = parser.parse_args()
    TantivyEngine.fuzzy = args.fuzzy
    if tantivy is None:
        print("bench_engines: tantivy is not installed (pip install tantivy); nothing measured")
        return
    {"quality": quality, "search": search_bench, "related": related_bench, "writer": writer_bench,
     "_child": child}[args.what](args)  # fmt: skip


if __name__ == "__main__":
    main()
