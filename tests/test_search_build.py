"""Building the search index in worker processes (search/build.py) and answering before it is built (scan.py)."""

from __future__ import annotations

import io
import json
import os
import pickle
import sys
import threading
import types
from pathlib import Path

import pytest

from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import parse_text
from readlist.core.search import build as builder
from readlist.core.search import postings
from readlist.core.search.index import SearchIndex
from readlist.core.search.postings import BuildCancelled, build_data, rows
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
def in_processes(monkeypatch, spawns):
    """Any list is built by two worker processes started apart, as where none is forked (not only one of 5,000 papers
    or more, not only elsewhere than on Linux)."""
    monkeypatch.setattr(builder, "IN_PROCESS_BELOW", 2)
    monkeypatch.setattr(builder, "_cores", lambda: 2)
    monkeypatch.setattr(builder, "FORKS", False)
    return spawns


@pytest.fixture
def spawns(monkeypatch):
    """The worker processes started apart (each an interpreter of its own, sent its papers' rows)."""
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


@pytest.mark.parametrize("size", [1, 7, 4096, 1 << 20])
def test_a_workers_part_is_read_from_the_chunks_it_wrote_each_let_go_once_read(size):
    whole = build_data(papers(60))
    pickled = pickle.dumps(whole, protocol=pickle.HIGHEST_PROTOCOL)
    chunks = [pickled[at : at + size] for at in range(0, len(pickled), size)]
    part = builder._loaded(chunks)
    assert not chunks  # no copy of the pickle held beside the part it became
    assert part.terms == whole.terms and part.lengths == whole.lengths
    for kind in ("body", "title", "authors"):
        one, other = getattr(part, kind), getattr(whole, kind)
        assert (one.starts, one.docs, one.tfs) == (other.starts, other.docs, other.tfs)
    reader = builder._Chunks([b"ab\ncd", b"e\n", b"f"])
    assert (reader.readline(), reader.readline(), reader.read(), reader.read(3)) == (b"ab\n", b"cde\n", b"f", b"")


def test_a_part_cut_short_is_read_as_none_and_said(in_processes, monkeypatch):
    pickled = pickle.dumps(build_data(papers(10)), protocol=pickle.HIGHEST_PROTOCOL)
    assert builder._loaded([pickled[: len(pickled) // 2]]) is None
    monkeypatch.setattr(builder, "_loaded", lambda chunks: None)
    with pytest.raises(RuntimeError, match="part of the index could not be read"):
        builder.build(papers(20))


def test_every_worker_is_sent_its_first_rows_before_any_is_sent_all_of_its_own(in_processes, monkeypatch):
    """All the workers start indexing at once: none waits while another is sent its whole part."""
    monkeypatch.setattr(builder, "BATCH", 5)
    taken = []
    batches = builder._batches

    def recorded(first, part):
        for n, piece in enumerate(batches(first, part)):
            taken.append((first, n))
            yield piece

    monkeypatch.setattr(builder, "_batches", recorded)
    listed = papers(60)
    assert builder.build(listed).terms == build_data(listed).terms
    assert taken.index((30, 1)) < taken.index((0, 7))  # the second's first rows before the first's closing None


def test_a_pipe_without_room_after_all_is_written_to_on_the_next_round(in_processes, monkeypatch):
    refused = []

    class Os(types.ModuleType):
        def __getattr__(self, name):
            return getattr(os, name)

        @staticmethod
        def write(fd, data):
            if not refused:
                refused.append(fd)
                raise BlockingIOError
            return os.write(fd, data)

    monkeypatch.setattr(builder, "os", Os("os"))
    listed = papers(30)
    assert builder.build(listed).terms == build_data(listed).terms and refused


def test_a_worker_indexes_its_rows_as_they_arrive(monkeypatch):
    listed = papers(40)
    sent = io.BytesIO()
    for value in (0, rows(listed[:20]), rows(listed[20:]), None):
        pickle.dump(value, sent)
    indexed, seen = [], []  # papers indexed, and how many of them when each read of the pipe was made
    index_form = postings.index_form
    monkeypatch.setattr(postings, "index_form", lambda text: indexed.append(text) or index_form(text))

    class Pipe(io.BytesIO):
        def read(self, *args):
            seen.append(len(indexed))
            return super().read(*args)

        def readinto(self, buffer):
            seen.append(len(indexed))
            return super().readinto(buffer)

    answer = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=Pipe(sent.getvalue())))
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=answer))
    builder.serve()
    assert pickle.loads(answer.getvalue()).terms == build_data(listed).terms
    assert max(seen) > 0  # the second batch was read after the first was being indexed


def test_a_worker_process_never_pauses_its_build_for_other_threads(monkeypatch):
    """A worker has no UI thread to let run: each pause only gave its core away on a busy machine."""
    listed = papers(40)
    sent = io.BytesIO()
    for value in (0, rows(listed), None):
        pickle.dump(value, sent)
    answer = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(sent.getvalue())))
    monkeypatch.setattr(sys, "stdout", types.SimpleNamespace(buffer=answer))
    pauses = []
    monkeypatch.setattr(postings, "time", types.SimpleNamespace(sleep=pauses.append))
    builder.serve()
    assert pauses == []
    assert pickle.loads(answer.getvalue()).terms == build_data(listed).terms
    assert pauses  # a build in the calling thread still lets the UI's thread run


FIXTURES = Path(__file__).parent / "fixtures"


def test_the_index_of_tricky_texts_is_the_one_recorded():
    """Terms, postings, lengths and results, as recorded before the tokenising was made faster: LaTeX, Greek,
    CJK, accents, hyphens, Markdown, full-width letters, a paper without a title, names in several scripts."""
    recorded = json.loads((FIXTURES / "tokens-tricky.index.json").read_text(encoding="utf-8"))
    listed = load_papers(FIXTURES / "tokens-tricky.jsonl").papers
    index = SearchIndex.build(listed)
    data = index.data
    assert list(data.terms) == recorded["terms"] and list(data.lengths) == recorded["lengths"]
    for kind in ("body", "title", "authors"):
        postings_of = getattr(data, kind)
        assert list(postings_of.starts) == recorded[kind]["starts"], kind
        assert list(postings_of.docs) == recorded[kind]["docs"], kind
        if postings_of.tfs is not None:
            assert list(postings_of.tfs) == recorded[kind]["tfs"], kind
    assert {query: list(index.search(query).positions) for query in recorded["searches"]} == recorded["searches"]


def test_words_first_seen_in_a_paper_are_counted_in_every_form_they_take_there():
    data = build_data(parse_text("Zorbs zorb the ZORB, a quux of the zorbs.\n\nA zorb.", "papers.txt").papers)
    zorb, quux = data.terms.index("zorb"), data.terms.index("quux")
    assert list(data.body.docs_of(zorb)) == [0, 1] and list(data.body.tfs_of(zorb)) == [4, 1]
    assert list(data.body.tfs_of(quux)) == [1] and list(data.lengths) == [5, 1]  # "the", "of", "a" not counted


def test_stopwords_count_in_no_papers_length_and_a_word_once_in_one_paper_is_one_posting():
    text = "The of and a to in.\n\nA zorb and the quux of zorbs.\n\nOnly blarg here, with the zorb."
    data = build_data(parse_text(text, "papers.txt").papers)
    assert list(data.lengths) == [0, 3, 4]  # "only", "blarg", "here", "zorb"
    blarg, zorb = data.terms.index("blarg"), data.terms.index("zorb")
    assert (list(data.body.docs_of(blarg)), list(data.body.tfs_of(blarg))) == ([2], [1])
    assert (list(data.body.docs_of(zorb)), list(data.body.tfs_of(zorb))) == ([1, 2], [2, 1])
    assert "the" not in data.terms and "and" not in data.terms


def test_a_cancelled_build_stops_its_processes(in_processes):
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(BuildCancelled):
        builder.build(papers(50), cancelled)
    assert in_processes and all(worker.returncode is not None for worker in in_processes)


def test_a_process_that_fails_is_said_in_one_line(in_processes, monkeypatch):
    monkeypatch.setattr(builder, "_batches", lambda first, part: iter(()))  # no papers: it stops
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


def test_a_worker_imports_none_of_the_paper_file_readers():
    """A worker pays for its imports before it indexes: the readers behind `load_papers` (a third of them) are of
    no use to it. `readlist.core`'s names are still there when asked for."""
    import subprocess

    code = (
        "import sys, readlist.core.search.build\n"
        "print(sorted(m for m in sys.modules if m.startswith('readlist.core.papers.formats')))\n"
        "from readlist.core import load_papers, Paper, ReadError\n"
        "print(load_papers.__module__, Paper.__name__, ReadError.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "readlist.core.papers.formats Paper ReadError"]


def test_parts_are_merged_into_the_index_of_one_build_without_sorting_all_their_terms_in_one_call(monkeypatch):
    # Sorting every term of 100,000 papers in one call held the interpreter 70 ms, the UI's thread waiting on it.
    listed = papers(60)
    table = rows(listed)
    parts = [postings.build_rows(table[a:b], a) for a, b in ((0, 7), (7, 31), (31, 60))]
    whole = build_data(listed)
    monkeypatch.setattr(postings, "sorted", lambda *a, **k: pytest.fail("merge sorted the terms"), raising=False)
    merged = postings.merge(parts)
    assert merged.terms == whole.terms and merged.lengths == whole.lengths
    for kind in ("body", "title", "authors"):
        one, other = getattr(merged, kind), getattr(whole, kind)
        assert (one.starts, one.docs, one.tfs) == (other.starts, other.docs, other.tfs)


def same_index(one, other) -> bool:
    return (
        one.terms == other.terms
        and one.lengths == other.lengths
        and all(
            (getattr(one, kind).starts, getattr(one, kind).docs, getattr(one, kind).tfs)
            == (getattr(other, kind).starts, getattr(other, kind).docs, getattr(other, kind).tfs)
            for kind in ("body", "title", "authors")
        )
    )


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


linux = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")


@pytest.fixture
def forking(monkeypatch):
    """Any list of 2 papers or more is built by two processes forked; the ids of each call's processes."""
    monkeypatch.setattr(builder, "IN_PROCESS_BELOW", 2)
    monkeypatch.setattr(builder, "_cores", lambda: 2)
    monkeypatch.setattr(builder, "FORKS", True)
    forked: list[list[int]] = []
    fork = builder.fork_workers

    def recorded(papers):
        workers = fork(papers)
        forked.append([pid for pid, _ in workers.workers])
        return workers

    monkeypatch.setattr(builder, "fork_workers", recorded)
    return forked


@linux
def test_an_index_built_by_forked_processes_is_the_index_built_in_one_thread(forking, spawns):
    listed = papers(101)
    assert same_index(builder.build(listed), build_data(listed))
    [pids] = forking
    assert len(pids) == 2 and all(gone(pid) for pid in pids)  # ended and reaped: no process left behind
    assert spawns == []  # no interpreter started, no row sent


@linux
def test_an_index_is_built_by_forked_processes_from_a_thread_while_another_holds_a_lock(forking):
    # The app builds in a worker thread, its UI thread running beside it: a worker forked takes no lock of theirs.
    listed, held, built = papers(60), threading.Lock(), []
    with held:
        thread = threading.Thread(target=lambda: built.append(builder.build(listed)))
        thread.start()
        thread.join(30)
    assert same_index(built[0], build_data(listed)) and len(forking) == 1


@linux
def test_an_index_whose_forked_process_failed_is_built_by_processes_started_apart(forking, monkeypatch, spawns):
    def failing(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(builder, "build_rows", failing)  # as the forked processes run it (the others import theirs)
    listed = papers(40)
    assert same_index(builder.build(listed), build_data(listed))
    assert len(forking) == 1 and all(gone(pid) for pid in forking[0])
    assert len(spawns) == 2  # built anew, by processes started for it


@linux
def test_cancelling_a_build_kills_its_forked_processes(monkeypatch):
    monkeypatch.setattr(builder, "_cores", lambda: 2)
    monkeypatch.setattr(builder, "build_rows", lambda *args, **kwargs: threading.Event().wait(60))
    forked = builder.fork_workers(papers(10))
    pids = [pid for pid, _ in forked.workers]
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(BuildCancelled):
        forked.collect(cancelled)
    assert len(pids) == 2 and all(gone(pid) for pid in pids)
    assert forked.cancel() == []  # again: nothing
