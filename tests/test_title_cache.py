"""Derived titles cached on disk: derived once, read back after, rebuilt when stale or damaged."""

import threading

import pytest

from readlist.core.papers import title_cache
from readlist.core.papers.reader import parse_text
from readlist.core.titles import derive as titles

TEXT = (
    "We propose FastDiff, a distilled diffusion sampler that needs four steps.\n\n"
    "Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy.\n\n"
    "We introduce TableBench, a benchmark for reasoning over tables with language models.\n"
)


def fresh(text=TEXT):
    return parse_text(text, "papers.txt").papers


def test_titles_are_derived_once_then_read_back(tmp_path, monkeypatch):
    papers = fresh()
    assert title_cache.derive_all(papers, tmp_path)
    assert len(list(tmp_path.glob("*.json"))) == 1

    def fail(plain):
        raise AssertionError("derived again")

    monkeypatch.setattr(titles, "derive_title", fail)
    again = fresh()
    assert title_cache.prime(again, tmp_path)
    assert title_cache.complete(again)
    assert [p.title for p in again] == [p.title for p in papers]
    assert again[2].title.startswith("TableBench")


def test_other_papers_do_not_use_the_cached_titles(tmp_path):
    title_cache.derive_all(fresh(), tmp_path)
    other = fresh(TEXT.replace("four steps", "eight steps"))
    assert not title_cache.prime(other, tmp_path)
    assert not title_cache.complete(other)


@pytest.mark.parametrize(
    "content", [b"", b"\x00\xff garbage", b'{"key": "x", "titles": []}', b"[1, 2]", b"[" * 100_000]
)
def test_a_damaged_cache_file_is_ignored_and_replaced(tmp_path, content):
    papers = fresh()
    path = tmp_path / f"{title_cache.content_key(papers)}.json"
    path.write_bytes(content)
    assert not title_cache.prime(fresh(), tmp_path)
    assert title_cache.derive_all(fresh(), tmp_path)
    assert title_cache.prime(fresh(), tmp_path)


def test_a_cancelled_derivation_stops_and_caches_nothing(tmp_path):
    cancelled = threading.Event()
    cancelled.set()
    assert not title_cache.derive_all(fresh(), tmp_path, cancelled)
    assert not list(tmp_path.glob("*.json"))


def test_an_unwritable_cache_directory_only_costs_time(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    papers = fresh()
    assert title_cache.derive_all(papers, blocker / "titles")
    assert papers[0].title.startswith("FastDiff")


def test_titles_from_the_file_need_no_cache(tmp_path):
    papers = parse_text("A Title\nThe abstract of the first paper is here.\n\nB Title\nAnother abstract.\n", "p").papers
    assert papers[0].given_title
    assert title_cache.derive_all(papers, tmp_path / "c")
    assert not (tmp_path / "c").exists()


def test_a_change_to_the_title_rules_derives_the_titles_again(tmp_path, monkeypatch):
    title_cache.derive_all(fresh(), tmp_path)
    assert title_cache.prime(fresh(), tmp_path)
    monkeypatch.setattr(title_cache, "rules_digest", lambda: "other rules")
    assert not title_cache.prime(fresh(), tmp_path)


def test_partial_files_left_by_a_crash_are_pruned_when_old(tmp_path):
    import os
    import time

    old, new = tmp_path / ".abc.json.x1.tmp", tmp_path / ".abc.json.x2.tmp"
    old.write_text("half")
    new.write_text("being written")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    title_cache.derive_all(fresh(), tmp_path)
    assert not old.exists() and new.exists()
