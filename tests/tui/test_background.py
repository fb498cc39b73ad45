"""The background work of a start (the search index, related papers, titles): a search typed meanwhile answers, the
work stops when the app quits, and a cache that cannot be written is said once."""

from __future__ import annotations

import errno
import os
import sys
import threading

import pytest

from readlist.core.files import cache as files_cache
from readlist.core.search import cache as index_cache
from readlist.tui.widgets.status_line import StatusLine

from .conftest import app_on_a_paper_file, make_app, notifications, screen_text, settle, wait_until, widget_text


def slowed_index(monkeypatch) -> tuple[threading.Event, list[bool]]:
    """Make the index build wait until the returned event is set (or the build is cancelled, which the returned
    list then records)."""
    release, seen_cancelled = threading.Event(), []
    original = index_cache.builder.build

    def slow(papers, cancelled=None):
        while not release.wait(0.01):
            if cancelled is not None and cancelled.is_set():
                seen_cancelled.append(True)
                return original(papers, cancelled)
        return original(papers, cancelled)

    monkeypatch.setattr(index_cache.builder, "build", slow)
    return release, seen_cancelled


def slowed_opening(monkeypatch) -> threading.Event:
    """Make the opening of a cached index wait until the returned event is set."""
    release = threading.Event()

    def slowed(original):
        def slow_load(path, key):
            release.wait(10)
            return original(path, key)

        return slow_load

    for reading in ("load", "load_mapped"):  # (the app maps the file where it can)
        monkeypatch.setattr(index_cache, reading, slowed(getattr(index_cache, reading)))
    return release


async def test_a_large_lists_index_is_built_by_processes_forked_and_cached(tmp_path, monkeypatch):
    builder = index_cache.builder
    monkeypatch.setattr(builder, "IN_PROCESS_BELOW", 2)  # the five papers count as a large list
    monkeypatch.setattr(builder, "_cores", lambda: 2)
    forked, started = [], []
    fork = builder.fork_workers

    def recorded(papers):
        forked.append(len(papers))
        return fork(papers)

    def start():  # a process started with an interpreter of its own, sent the papers' rows: none is on Linux
        started.append(True)
        raise OSError("no process")

    monkeypatch.setattr(builder, "fork_workers", recorded)
    monkeypatch.setattr(builder, "_start", start)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvature")
        await wait_until(pilot, lambda: main.view.result is not None and not main.view.result.partial, "the index")
        assert main.view.matches == 1 and main.current_paper.text.startswith("Graph neural networks")
        cached = tmp_path / "home" / ".cache" / "readlist" / "search"
        await wait_until(pilot, lambda: list(cached.glob("*.idx")), "the index cached")
    if sys.platform == "linux":
        assert forked == [5] and started == []


@pytest.mark.skipif(os.name != "posix", reason="the index is mapped where a mapped file can be replaced")
async def test_the_cached_index_is_read_mapped_and_a_newer_one_may_replace_its_file_meanwhile(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)  # the index is in the cache now
    [cached] = (tmp_path / "home" / ".cache" / "readlist" / "search").glob("*.idx")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await wait_until(pilot, lambda: main.searcher.index is not None, "the cached index")
        assert isinstance(main.searcher.index.data.body.docs, memoryview)  # the file's pages, not a copy
        files_cache.write_atomic(cached, [b"another run's index"])  # replaced, as a newer index is cached
        await pilot.press("slash", *"curvature")
        await wait_until(pilot, lambda: main.view.result is not None, "the answer")
        assert not main.view.result.partial and main.view.matches == 1
        assert main.current_paper.text.startswith("Graph neural networks")


async def test_a_search_typed_at_once_answers_before_the_index_is_built(tmp_path, monkeypatch):
    release, _ = slowed_index(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvature")
        await wait_until(pilot, lambda: main.view.matches == 1, "the papers' texts to answer")
        assert main.searcher.index is None  # answered without the index
        assert main.current_paper.text.startswith("Graph neural networks")
        assert main.view.result.partial
        assert "indexing…" in widget_text(app, StatusLine)  # the answer is not the index's yet
        release.set()
        await wait_until(pilot, lambda: main.searcher.index is not None, "the search index")
        await wait_until(pilot, lambda: not main.view.result.partial, "the index's answer")
        assert main.view.matches == 1
        assert "indexing…" not in widget_text(app, StatusLine)


async def test_a_query_only_the_index_answers_waits_for_it(tmp_path, monkeypatch):
    release, _ = slowed_index(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"-curvature")
        await main.searcher.settled()
        await pilot.pause()
        assert main.view.result is None and "indexing…" in widget_text(app, StatusLine)
        release.set()
        await wait_until(pilot, lambda: main.view.result is not None, "the index's answer")
        assert not main.view.result.partial and main.view.matches == 4  # every paper but the one saying it


async def test_quitting_stops_the_index_build(tmp_path, monkeypatch):
    _, seen_cancelled = slowed_index(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("q")
    await app.workers.wait_for_complete()
    assert seen_cancelled == [True]
    assert not [n for n in notifications(app) if "stopped on an error" in n.message]


async def test_a_cache_that_cannot_be_written_is_said_once(tmp_path, monkeypatch):
    def full(path, chunks, **options):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files_cache, "atomic_write_bytes", full)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"curvature")  # the index, kept in memory, answers
        await settle(pilot)
        assert app.main_screen.view.matches == 1 and not app.main_screen.view.result.partial
        await wait_until(pilot, lambda: len(files_cache.refusals()) >= 2, "the index and titles refused")
        await app.poll_store()  # which tells refusals too
        app.tell_cache_refused()
        said = [n.message for n in notifications(app) if "cannot write the cache" in n.message]
        assert len(said) == 1
        assert "No space left on device" in said[0] and str(tmp_path / "home" / ".cache" / "readlist") in said[0]


async def test_a_damaged_index_cache_is_made_again(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
    [cached] = (tmp_path / "home" / ".cache" / "readlist" / "search").glob("*.idx")
    cached.write_bytes(cached.read_bytes()[:-7])  # cut short, as by a full disk
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"curvature")
        await settle(pilot)
        assert app.main_screen.view.matches == 1 and not app.main_screen.view.result.partial
    assert index_cache.load(cached, cached.stem) is not None  # written whole again


async def test_an_index_cache_damaged_in_its_middle_is_made_again_and_answers_the_words_typed(tmp_path):
    # The CRC-32 of the mapped file is made beside the reading of its terms, in a thread of its own: a byte changed
    # among the postings, the file still whole and its terms readable, is found before the index answers.
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
    [cached] = (tmp_path / "home" / ".cache" / "readlist" / "search").glob("*.idx")
    raw = bytearray(cached.read_bytes())
    middle = raw.index(b"\n") + (len(raw) - raw.index(b"\n")) // 2
    raw[middle] ^= 0x40
    cached.write_bytes(bytes(raw))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("slash", *"curvature")
        await settle(pilot)
        assert app.main_screen.view.matches == 1 and not app.main_screen.view.result.partial
        assert app.main_screen.current_paper.text.startswith("Graph neural networks")
        assert not [n for n in notifications(app) if n.severity == "error"]
    assert index_cache.load_mapped(cached, cached.stem) is not None  # written whole again


async def test_a_search_typed_while_the_cached_index_is_opened_waits_for_it_rather_than_read_every_text(
    tmp_path, monkeypatch
):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)  # the index is in the cache now
    release = slowed_opening(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvature")
        await main.searcher.settled()
        await pilot.pause()
        assert main.view.result is None  # no pass over the texts slowing the opening down
        assert "indexing…" in widget_text(app, StatusLine) and "curvature" in widget_text(app, StatusLine)
        release.set()
        await wait_until(pilot, lambda: main.view.result is not None, "the index's answer")
        assert not main.view.result.partial and main.view.matches == 1
        assert main.current_paper.text.startswith("Graph neural networks")


async def test_the_background_work_after_the_index_waits_for_its_answer_to_the_search_typed_while_it_opened(
    tmp_path, monkeypatch
):
    # At 100k papers the related papers' lengths, the annotations and the titles read after the index opened shared
    # the interpreter with the search typed meanwhile, which took twice its CPU time to answer.
    from readlist.core.search.index import SearchIndex
    from readlist.core.search.related import RelatedIndex

    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)  # the index is in the cache now
    release, went_on, answered_then = slowed_opening(monkeypatch), threading.Event(), []
    search, lengths = SearchIndex.search, RelatedIndex.lengths

    def slow_search(self, *args, **kwargs):
        went_on.wait(0.5)  # background work going on meanwhile is seen doing so
        return search(self, *args, **kwargs)

    def measured(self, cancelled=None):
        if threading.current_thread().name.startswith("readlist-related"):  # the shown paper's related, looked up
            return lengths(self, cancelled)
        result = app.main_screen.view.result
        answered_then.append(result is not None and not result.partial and result.query == "curvature")
        went_on.set()
        return lengths(self, cancelled)

    monkeypatch.setattr(SearchIndex, "search", slow_search)
    monkeypatch.setattr(RelatedIndex, "lengths", measured)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvature")
        await pilot.pause()
        header = widget_text(app, StatusLine)
        assert "curvature" in header and "indexing…" in header  # never an older query's count
        release.set()
        await wait_until(pilot, lambda: main.view.result is not None, "the index's answer")
        assert not main.view.result.partial and main.view.matches == 1
        assert "indexing…" not in widget_text(app, StatusLine) and "searching…" not in widget_text(app, StatusLine)
        await wait_until(pilot, lambda: answered_then, "the background work after the index")
        assert answered_then[0]  # the answer was listed first
        await settle(pilot)


async def test_a_typo_before_the_index_is_built_says_the_index_will_match_it_then_finds_the_paper(
    tmp_path, monkeypatch
):
    # The texts answer a search at once but know no typos: "no papers match" would be wrong for a few seconds.
    release, _ = slowed_index(monkeypatch)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvatrue")
        await wait_until(pilot, lambda: main.view.result is not None and main.view.result.partial, "the texts' answer")
        await wait_until(pilot, lambda: "once the index is ready" in screen_text(app), "the empty state")
        assert "No papers match" not in screen_text(app)
        release.set()
        await wait_until(pilot, lambda: main.view.matches == 1, "the index's answer")
        assert main.current_paper.text.startswith("Graph neural networks")


async def test_large_blocks_go_back_to_the_heap_once_the_background_work_is_over(tmp_path, monkeypatch):
    from readlist.tui import memory

    release, _ = slowed_index(monkeypatch)
    ended = []
    monkeypatch.setattr(memory, "loaded", lambda: ended.append(index_cache.builder.build))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not ended  # searches typed while the index is built still give their blocks back at once
        release.set()
        await app.workers.wait_for_complete()
        await wait_until(pilot, lambda: ended, "the background work to end")
        assert len(ended) == 1


async def test_the_paper_files_digest_waits_for_the_background_work_and_a_change_meanwhile_is_still_seen(
    tmp_path, monkeypatch
):
    # At 100k papers its reading took 0.17 s of CPU from the index build.
    import os

    release, _ = slowed_index(monkeypatch)
    papers_file, app = app_on_a_paper_file(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await app.poll_store()
        await app.poll_store()
        assert app._papers_digest is None  # not read while the index is built
        papers_file.write_text(papers_file.read_text() + "\n\nA paper added while the index was built.\n")
        later = papers_file.stat().st_mtime_ns + 5_000_000_000
        os.utime(papers_file, ns=(later, later))
        await app.poll_store()
        await pilot.pause()
        assert [n for n in notifications(app) if "changed on disk" in n.message]
        release.set()
        await settle(pilot)


@pytest.mark.parametrize("moved", [False, True])
async def test_the_index_answer_after_a_first_answer_from_the_texts_starts_at_its_best_match(
    tmp_path, monkeypatch, moved
):
    # The pass over the texts lists the papers holding the words in the file's order; the cursor left on its first
    # paper was kept when the index's ranking came, scrolled down the list (row 41 of 100k papers' answer).
    papers = (
        "Test list\n\nA long survey of many methods in which curvature is mentioned once among a great many other "
        "words about graphs, networks, optimisation, sampling and benchmarks.\n\nCurvature curvature: curvature "
        "rewiring.\n\nThe curvature of manifolds, measured.\n\nAnother paper about tables.\n"
    )
    release, _ = slowed_index(monkeypatch)
    app = make_app(tmp_path, papers)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await pilot.press("slash", *"curvature")
        await wait_until(pilot, lambda: main.view.result is not None, "the texts' answer")
        assert main.view.result.partial and main.current_paper.text.startswith("A long survey")
        if moved:
            await pilot.press("enter", "j", "j")  # into the list, to the third paper: kept where the index lists it
            assert main.current_paper.text.startswith("The curvature of manifolds")
        release.set()
        await wait_until(pilot, lambda: not main.view.result.partial, "the index's answer")
        await pilot.pause()
        assert main.current_paper.text.startswith("The curvature of manifolds" if moved else "Curvature curvature")
        listed = [main.papers.papers[position].text[:6] for position in main.view.positions]
        assert listed[main.query_one("#list").cursor] == main.current_paper.text[:6]
        assert moved or main.query_one("#list").cursor == 0


async def test_the_paper_files_digest_is_read_after_a_background_work_that_failed(tmp_path, monkeypatch):
    import os

    def failing(*args, **kwargs):
        raise RuntimeError("no index")

    monkeypatch.setattr(index_cache, "load_or_build", failing)
    papers_file, app = app_on_a_paper_file(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.background_over, "the background work to end")
        await app.poll_store()  # the digest read now
        later = papers_file.stat().st_mtime_ns + 5_000_000_000
        os.utime(papers_file, ns=(later, later))  # `touch`: no change
        await app.poll_store()
        await pilot.pause()
        assert not [n for n in notifications(app) if "changed on disk" in n.message]


async def test_a_build_starts_without_waiting_for_the_ui_to_answer_from_the_texts(tmp_path):
    # The index's thread tells the UI that a query waiting for the index is to be answered from the texts, then builds
    # at once: the UI, busy with the first paint's end and the keys typed, used to hold the build's start meanwhile.
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        searcher = app.main_screen.searcher
        searcher.opening = True
        told = threading.Event()
        thread = threading.Thread(target=lambda: (searcher.building(), told.set()))
        thread.start()
        assert told.wait(2)  # this test holds the UI's loop meanwhile
        thread.join()
        await pilot.press("slash", *"curvature")
        await settle(pilot)
        assert app.main_screen.view.matches == 1
