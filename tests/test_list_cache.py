"""Paper lists read from other formats than text, cached: read back the same, ignored when stale or damaged."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from readlist.core.files.cache import cache_dir
from readlist.core.papers import list_cache
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import ReadError

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def cached(monkeypatch):
    monkeypatch.setattr(list_cache, "MIN_PAPERS", 1)
    return cache_dir("papers")


def fields(papers):
    return [(p.id, p.index, p.text, p.given_title, p.record) for p in papers.papers]


@pytest.mark.parametrize("name", ["arxiv-3.bib", "arxiv-3.csv", "arxiv-3.atom"])
def test_a_list_read_again_comes_from_the_cache_the_same_without_reading_the_file(tmp_path, cached, monkeypatch, name):
    path = tmp_path / name
    shutil.copyfile(FIXTURES / name, path)
    first = load_papers(path)
    assert len(list(cached.glob("*.json"))) == 1

    def parse_again(*args):
        raise AssertionError("parsed again")

    monkeypatch.setattr("readlist.core.papers.formats.parser", lambda fmt: parse_again)
    monkeypatch.setattr("readlist.core.papers.formats.read_pieces", parse_again)
    again = load_papers(path)
    assert fields(again) == fields(first)
    assert (again.name, again.format, again.notices, again.duplicates) == (
        first.name, first.format, first.notices, first.duplicates)  # fmt: skip


def test_a_changed_file_is_read_again(tmp_path, cached):
    path = tmp_path / "papers.csv"
    path.write_text("title,abstract\nOne,We study A.\n", encoding="utf-8")
    assert load_papers(path).papers[0].title == "One"
    path.write_text("title,abstract\nThree,We study A.\n", encoding="utf-8")  # its size and time change
    assert load_papers(path).papers[0].title == "Three"


@pytest.mark.parametrize("damage", [b"", b"{}\n[]", b"not json", None])
def test_a_damaged_cache_file_is_ignored(tmp_path, cached, damage):
    path = tmp_path / "refs.bib"
    shutil.copyfile(FIXTURES / "arxiv-3.bib", path)
    first = load_papers(path)
    [file] = cached.glob("*.json")
    data = file.read_bytes()
    file.write_bytes(data.replace(b"Jane Doe", b"Jane Dough") if damage is None else damage)  # None: a changed row
    assert fields(load_papers(path)) == fields(first)


def test_another_format_asked_for_is_another_cache_file(tmp_path, cached):
    path = tmp_path / "refs.txt"
    shutil.copyfile(FIXTURES / "arxiv-3.bib", path)
    assert load_papers(path).format == "bibtex"
    with pytest.raises(ReadError, match="not a JSON object"):
        load_papers(path, fmt="jsonl")
    assert load_papers(path, fmt="bibtex").format == "bibtex"
    assert len(list(cached.glob("*.json"))) == 2


def test_small_lists_are_not_cached(tmp_path):
    load_papers(FIXTURES / "arxiv-3.bib")
    assert not list(cache_dir("papers").glob("*.json"))


def test_a_text_file_is_neither_looked_up_nor_cached(monkeypatch, cached):
    def unexpected(*args):
        raise AssertionError("the cache was asked")

    monkeypatch.setattr(list_cache, "load", unexpected)
    monkeypatch.setattr(list_cache, "save", unexpected)
    assert len(load_papers(FIXTURES / "arxiv-3.txt")) == 3


def test_half_a_character_from_a_json_escape_is_cached_and_read_back(tmp_path, cached, monkeypatch):
    path = tmp_path / "papers.jsonl"
    path.write_text('{"id": "2101.00001", "title": "Odd \\ud800 title", "abstract": "We study A."}\n')
    first = load_papers(path)
    assert first.papers[0].given_title == "Odd \ufffd title"  # half a character is read as a replacement one
    assert len(list(cached.glob("*.json"))) == 1
    monkeypatch.setattr("readlist.core.papers.formats.read_pieces", lambda *args: pytest.fail("parsed again"))
    assert fields(load_papers(path)) == fields(first)
