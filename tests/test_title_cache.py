"""Derived titles cached on disk: derived once, read back after, rebuilt when stale or damaged."""

import threading

import pytest

from readlist.core.papers import held_titles, title_cache
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
    assert len(list(tmp_path.glob("*.titles"))) == 1

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
    path = tmp_path / f"{title_cache.content_key(papers)}.titles"
    path.write_bytes(content)
    assert not title_cache.prime(fresh(), tmp_path)
    assert title_cache.derive_all(fresh(), tmp_path)
    assert title_cache.prime(fresh(), tmp_path)


def test_a_cancelled_derivation_stops_and_caches_nothing(tmp_path):
    cancelled = threading.Event()
    cancelled.set()
    assert not title_cache.derive_all(fresh(), tmp_path, cancelled)
    assert not list(tmp_path.glob("*.titles"))


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


def test_cached_titles_are_held_as_one_block_and_made_when_asked_for(tmp_path, monkeypatch):
    derived = [p.title for p in fresh()]
    title_cache.derive_all(fresh(), tmp_path)

    def fail(plain):
        raise AssertionError("derived again")

    monkeypatch.setattr(titles, "derive_title", fail)
    again = fresh()
    assert title_cache.prime(again, tmp_path)
    assert not any("title" in paper.__dict__ for paper in again)  # no string per paper until one is asked for
    assert title_cache.complete(again) and title_cache.complete(list(again[1:]))
    assert [p.title for p in again] == derived


def test_held_titles_are_only_those_of_the_papers_primed(tmp_path):
    title_cache.derive_all(fresh(), tmp_path)
    primed = fresh()
    assert title_cache.prime(primed, tmp_path)
    other = fresh(TEXT.replace("four steps", "eight steps"))  # the same paper numbers, other papers
    assert not title_cache.complete(other)
    assert held_titles.title_of(other[0]) is None and held_titles.title_of(primed[0]) == primed[0].title
    assert [p.title for p in fresh()] == [p.title for p in primed]  # read again: derived, the same


def test_titles_from_the_cache_hold_any_character(tmp_path):
    text = "Ω-nets: we study 深度强化学习 over graphs, with \\emph{care} … and more.\n\n" + TEXT
    derived = [p.title for p in fresh(text)]
    title_cache.derive_all(fresh(text), tmp_path)
    again = fresh(text)
    assert title_cache.prime(again, tmp_path)
    assert [p.title for p in again] == derived


def _rewritten(path, ends, text):
    """The cache file at `path` with other ends and text, its checksum made to match them."""
    import json
    from array import array

    from readlist.core.papers.list_cache import checksum

    header = json.loads(path.read_bytes().split(b"\n", 1)[0])
    body = [array("Q", ends).tobytes(), text]
    header["sum"] = checksum(*body)
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(body))


@pytest.mark.parametrize(
    "ends, text",
    [
        ([1, 2, 9], b"abcdefgh"),  # past the text's end
        ([3, 2, 9], b"abcdefghi"),  # ends out of order
        ([1, 2, 3], b"\xff\xfe\xfd"),  # no UTF-8
        ([1, 2], b"ab"),  # one title too few
        ([1, 2, 3], "éa".encode()),  # UTF-8 cut inside a character
    ],
)
def test_a_cache_file_with_a_matching_checksum_but_impossible_titles_is_ignored(tmp_path, ends, text):
    title_cache.derive_all(fresh(), tmp_path)
    (path,) = tmp_path.glob("*.titles")
    _rewritten(path, ends, text)
    assert not title_cache.prime(fresh(), tmp_path)
    again = fresh()
    assert title_cache.derive_all(again, tmp_path)
    assert again[2].title.startswith("TableBench")


def test_the_first_formats_files_are_removed_when_titles_are_saved(tmp_path):
    old = tmp_path / "0123abcd.json"
    old.write_text('{"key": "0123abcd", "titles": []}')
    title_cache.derive_all(fresh(), tmp_path)
    assert not old.exists() and len(list(tmp_path.glob("*.titles"))) == 1
