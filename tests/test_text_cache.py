"""Text paper files read again from what reading them found: the same papers, ids and numbers; read afresh when
the file changed, the cache is damaged or cannot be written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_reader import TRICKY

from readlist.cli import cli
from readlist.core.files.cache import cache_dir
from readlist.core.papers import formats, split_read, text_cache
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import parse_numbered

FIXTURES = Path(__file__).parent / "fixtures"
A1 = "We study how large language models reason about tables. Our method improves accuracy by 12%."
A2 = "Diffusion models are slow at sampling. We propose FastDiff, a distilled sampler that needs four steps."


@pytest.fixture
def cached(monkeypatch):
    monkeypatch.setattr(text_cache, "MIN_PAPERS", 1)
    return cache_dir("papers")


def fields(papers):
    return [(p.id, p.index, p.text, p.given_title, p.record) for p in papers.papers], (
        papers.name, papers.has_titles, papers.duplicates, papers.notices, papers.format, papers.stamp)  # fmt: skip


def not_read_again(monkeypatch):
    """Reading the file's text or hashing a paper from here on fails the test."""

    def unexpected(*args, **kwargs):
        raise AssertionError("the file was read whole again")

    monkeypatch.setattr("readlist.core.papers.formats.read_pieces", unexpected)
    monkeypatch.setattr("readlist.core.papers.reader.paper_id", unexpected)


READ_AGAIN = {name: text for name, text in TRICKY.items() if name not in ("header only", "exported")}
READ_AGAIN["wide characters"] = f"Liste: ça va\n\n{A1} α→β 😀\n\n  {A2}\u00a0\n\n\u3000\n\n我们研究\n大型语言模型。"
READ_AGAIN["titles wrapped"] = "\n\n".join(
    f"Graph Models at Scale {n}\nWe study graphs with care,\nand our method is fast." for n in range(3)
)
READ_AGAIN["titles, lines ended by CR"] = READ_AGAIN["titles wrapped"].replace("\n", "\r")


@pytest.mark.parametrize("chunk", [4, 50, 1 << 20])
def test_blocks_longer_than_what_is_read_at_a_time_are_read_again_whole(write_file, cached, monkeypatch, chunk):
    text = READ_AGAIN["wide characters"] + "\n\n" + " ".join([A1] * 40) + "\n\n" + A2
    path = write_file(text.encode("utf-8"))
    first = load_papers(path)
    monkeypatch.setattr(text_cache, "_CHUNK", chunk)  # the buffer holds twice this: most blocks are longer
    not_read_again(monkeypatch)
    assert fields(load_papers(path)) == fields(first)


@pytest.mark.parametrize("text", READ_AGAIN.values(), ids=READ_AGAIN.keys())
def test_a_text_file_read_again_gives_the_same_papers_without_reading_it_whole(write_file, cached, monkeypatch, text):
    path = write_file(text.encode("utf-8"))
    first = load_papers(path)
    assert fields(first)[0] == [
        (p.id, p.index, p.text, p.given_title, p.record) for p in parse_numbered(text)[0].papers
    ]
    if "\r\n" in text:  # its places in the text are not its bytes': read whole each time
        assert not list(cached.glob("*.text"))
        return
    assert len(list(cached.glob("*.text"))) == 1
    not_read_again(monkeypatch)
    assert fields(load_papers(path)) == fields(first)


@pytest.mark.parametrize("name", ["data/icml2025.txt", "tests/fixtures/arxiv-3.txt"])
def test_a_list_read_again_keeps_every_id_and_its_sidecars(tmp_path, monkeypatch, name):
    name = Path(__file__).parents[1] / name
    for found in name.parent.glob(f"{name.stem}.*"):
        shutil.copyfile(found, tmp_path / found.name)
    name = name.name
    monkeypatch.setattr(text_cache, "MIN_PAPERS", 1)
    first = load_papers(tmp_path / name)
    not_read_again(monkeypatch)
    again = load_papers(tmp_path / name)
    assert fields(again) == fields(first)
    assert [p.title for p in again.papers] == [p.title for p in first.papers]


def test_small_files_are_not_cached(write_file):
    load_papers(write_file(f"{A1}\n\n{A2}\n"))
    assert not list(cache_dir("papers").glob("*.text"))


@pytest.mark.parametrize("change", ["same size, new time", "same time, new size", "same size and time"])
def test_a_file_changed_is_read_afresh_never_with_the_ids_it_had(write_file, cached, change):
    path = write_file(f"{A1}\n\n{A2}\n")
    first = load_papers(path)
    stamp = os.stat(path)
    if change.startswith("same size"):
        path.write_text(f"{A2}\n\n{A1}\n", encoding="utf-8")  # edited in place: the same bytes, reordered
        later = 0 if change == "same size and time" else 1_000_000_000  # times restored, as `cp -p` leaves them
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + later))
    else:
        path.write_text(f"{A2}\n\n{A1}.\n", encoding="utf-8")
        os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    again = load_papers(path)
    assert [(p.id, p.text) for p in again.papers] == [
        (p.id, p.text) for p in parse_numbered(path.read_text())[0].papers
    ]
    assert again.papers[0].text == A2 and again.papers[0].id != first.papers[0].id
    assert len(list(cached.glob("*.text"))) == (1 if change == "same size and time" else 2)  # the changed file's own
    assert [p.id for p in load_papers(path).papers] == [p.id for p in again.papers]  # and read again from it


@pytest.mark.parametrize("damage", ["body", "header", "short", "empty"])
def test_a_damaged_cache_file_is_ignored_and_replaced(write_file, cached, monkeypatch, damage):
    path = write_file(f"Reading list\n\n{A1}\n\n{A2}\n")
    first = load_papers(path)
    [file] = cached.glob("*.text")
    data = file.read_bytes()
    head, body = data.split(b"\n", 1)
    damaged = {"body": head + b"\n" + bytes([body[0] ^ 1]) + body[1:], "header": b"{" + data, "short": data[:-3],
               "empty": b""}[damage]  # fmt: skip
    file.write_bytes(damaged)
    assert fields(load_papers(path)) == fields(first)
    assert file.read_bytes() == data  # replaced
    not_read_again(monkeypatch)
    assert fields(load_papers(path)) == fields(first)


def test_a_cache_that_cannot_be_written_changes_nothing_for_the_user(write_file, tmp_path, monkeypatch):
    monkeypatch.setattr(text_cache, "MIN_PAPERS", 1)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = write_file(f"{A1}\n\n{A2}\n")
    first = load_papers(path)
    assert fields(load_papers(path)) == fields(first)
    result = CliRunner().invoke(cli, ["--papers", str(path), "--db", str(tmp_path / "db.json"), "show", "#2"])
    assert result.exit_code == 0 and "FastDiff" in result.output


def test_a_file_read_as_text_on_request_is_still_read_by_its_content_otherwise(tmp_path, cached):
    path = tmp_path / "refs"
    shutil.copyfile(FIXTURES / "arxiv-3.bib", path)
    assert load_papers(path, fmt="text").format == "text"
    assert load_papers(path, fmt="text").format == "text"
    assert load_papers(path).format == "bibtex"


def test_a_file_in_another_encoding_is_not_cached(write_file, cached):
    path = write_file(f"{A1} café\n\n{A2}\n".encode("latin-1"))
    assert len(load_papers(path, encoding="latin-1")) == 2
    path = write_file(f"{A1} café\n\n{A2}\n".encode("utf-16"), "wide.txt")
    assert len(load_papers(path)) == 2
    assert not list(cached.glob("*.text"))


def test_a_file_changed_while_it_is_read_again_is_read_whole(write_file, cached, monkeypatch):
    path = write_file(f"{A1}\n\n{A2}\n")
    first = load_papers(path)
    read_pieces, read = formats.read_pieces, []
    monkeypatch.setattr(text_cache, "file_stamp", lambda found: (0, 0))  # another stamp once the blocks are read
    monkeypatch.setattr(formats, "read_pieces", lambda *args: read.append(args) or read_pieces(*args))
    assert fields(load_papers(path)) == fields(first)
    assert read  # read whole, not taken from the cache


def test_a_file_read_in_parts_saves_the_crc_its_parts_summed_without_reading_it_again(write_file, cached, monkeypatch):
    path = write_file("\n\n".join([A1, A2, f"{A1} Again.", f"{A2} Again."] * 30))
    monkeypatch.setattr(split_read, "MIN_BYTES", 1)
    monkeypatch.setattr(split_read, "PART_BYTES", 1000)
    crc = text_cache.file_crc

    def unexpected(path):
        raise AssertionError("the file was read again for its CRC-32")

    monkeypatch.setattr(text_cache, "file_crc", unexpected)
    first = load_papers(path)
    assert len(list(cached.glob("*.text"))) == 1
    monkeypatch.setattr(text_cache, "file_crc", crc)  # reading it again checks the file's bytes
    not_read_again(monkeypatch)
    assert fields(load_papers(path)) == fields(first)
