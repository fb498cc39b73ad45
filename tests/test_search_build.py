"""Building the search index in worker processes (search/build.py) and answering before it is built (scan.py)."""

from __future__ import annotations

import threading

import pytest

from readlist.core.papers.reader import parse_text
from readlist.core.search import build as builder
from readlist.core.search.index import SearchIndex
from readlist.core.search.postings import BuildCancelled, build_data
from readlist.core.search.scan import scan

ABSTRACTS = [
    "Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy.",
    "We propose FastDiff, a distilled diffusion sampler for $\\epsilon$-prediction that needs four steps.",
    "Reinforcement learning agents explore poorly; we add curiosity bonuses to graph search.",
    "Large language models translate 强化学习 and Schölkopf's kernels alike.",
    "A benchmark of tables: TableBench asks models to reason over rows and columns of graphs.",
]


def papers(count: int):
    text = "\n\n".join(f"{ABSTRACTS[n % len(ABSTRACTS)]} (Paper {n}, {'words ' * (n % 7)})" for n in range(count))
    return parse_text(text, "papers.txt").papers


@pytest.fixture
def in_processes(monkeypatch):
    """Any list is built by two worker processes (not only one of 20,000 papers or more)."""
    monkeypatch.setattr(builder, "IN_PROCESS_BELOW", 2)
    monkeypatch.setattr(builder, "_cores", lambda: 2)
    started = []
    start = builder._start

    def recorded():
        started.append(start())
        return started[-1]

    monkeypatch.setattr(builder, "_start", recorded)
    return started


def test_an_index_built_in_processes_is_the_index_built_in_one_thread(in_processes):
    listed = papers(101)
    apart, whole = builder.build(listed), build_data(listed)
    assert len(in_processes) == 2
    assert apart.terms == whole.terms and apart.lengths == whole.lengths
    for kind in ("body", "title", "authors"):
        one, other = getattr(apart, kind), getattr(whole, kind)
        assert (one.starts, one.docs, one.tfs) == (other.starts, other.docs, other.tfs)
    found = SearchIndex(listed, apart).search("graph")
    assert list(found.positions) == list(SearchIndex(listed, whole).search("graph").positions)


def test_a_cancelled_build_stops_its_processes(in_processes):
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(BuildCancelled):
        builder.build(papers(50), cancelled)
    assert in_processes and all(worker.returncode is not None for worker in in_processes)


def test_a_process_that_fails_is_said_in_one_line(in_processes, monkeypatch):
    monkeypatch.setattr(builder, "_send", lambda worker, *args: worker.stdin.close())  # no papers: it stops
    with pytest.raises(RuntimeError, match=r"an indexing process stopped \(EOFError"):
        builder.build(papers(50))


def test_a_scan_finds_the_papers_holding_every_word_typed_titles_first():
    listed = parse_text(
        "Graph search\nWe search for paths quickly in large networks of roads and cities.\n\n"
        "Paths\nOn paths in a graph, searched with care and some patience in all cases.\n\n"
        "Searching graphs\nA graph search method for paths, which is new and works in many settings.\n",
        "papers.txt",
    ).papers
    found = scan(listed, "GRAPH sear")  # case aside, the last word a word's start
    assert found.partial and list(found.positions) == [0, 2, 1] and found.full_matches == 3
    assert list(scan(listed, "path").positions) == [1, 0, 2]
    assert list(scan(listed, "raph").positions) == []  # inside a word: not found
    assert scan(listed, "-graph") is None and scan(listed, "title:graph") is None  # for the index
    assert scan(listed, '"unclosed').error


def test_a_scan_stops_when_cancelled():
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(BuildCancelled):
        scan(papers(10), "graph", cancelled)
