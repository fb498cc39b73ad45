"""A large text file read by two processes at once (split_read.py): the list and its layout are the ones reading it
whole gives, field by field, wherever its parts meet; a file that cannot be read so is read whole, and a process
that fails in any way has its parts read by the one that forked it."""

from __future__ import annotations

import os
import signal
import time
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reader import A1, A2, A3, TITLED, TRICKY

import readlist.core.papers.formats.text as text_format
from readlist.core.papers import source, split_read, text_cache
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import ReadError, parse_laid_out

pytestmark = pytest.mark.skipif(not split_read.FORKS, reason="a file is read by two processes on Linux only")


@pytest.fixture(autouse=True)
def small_files(monkeypatch):
    monkeypatch.setattr(split_read, "MIN_BYTES", 1)


def everything(read):
    """Every field of the list and of its layout that reading gives, or the error's message."""
    try:
        papers, layout = read()
    except ReadError as exc:
        return str(exc)
    fields = [(p.id, p.index, p.text, p.given_title, p.record, p.__dict__) for p in papers.papers]
    return (
        fields,
        (papers.path, papers.name, papers.duplicates, papers.has_titles, papers.stamp, papers.format, papers.notices),
        (layout.numbers, list(layout.starts), list(layout.sizes), layout.header, layout.end),
    )


def whole(path):
    return everything(lambda: parse_laid_out(source.read_pieces(path)[0], str(path)))


def in_parts(path, part_bytes: int | None = None):
    """What split_read.read gives with parts of `part_bytes`, or None when it does not read the file; the CRC-32 it
    gives is the file's."""
    with pytest.MonkeyPatch.context() as patch:
        if part_bytes is not None:
            patch.setattr(split_read, "PART_BYTES", part_bytes)
        got = everything(lambda: _with_crc(path, split_read.read(path)))
    return None if got == "none" else got


def _with_crc(path, read):
    if read is None:
        raise ReadError("none")
    assert read[1].crc == zlib.crc32(path.read_bytes())
    return read


def starts(path) -> list[int] | None:
    with open(path, "rb") as handle:
        return split_read._starts(handle.fileno())


def many(n: int, start: int = 0) -> list[str]:
    return [f"{A1} Paper {i} ≤ α." if i % 3 else f"{A2} Paper {i}." for i in range(start, start + n)]


HOSTILE = {
    "header": "Reading list\n\n" + "\n\n".join(many(20)),
    "duplicates within and across parts": "\n\n".join([*many(6), A3, A3, *many(6), A3, *many(3), A3]),
    "title lines in the first part only": "\n\n".join([TITLED.replace("Graph", f"G{i}") for i in range(8)] + many(9)),
    "title lines in the last part only": "\n\n".join(many(9) + [TITLED.replace("Graph", f"G{i}") for i in range(8)]),
    "crlf": ("Reading list\n\n" + "\n\n".join(many(10)) + "\n").replace("\n", "\r\n"),
    "cr": "\r\r".join(many(10)) + "\r",
    "lines of spaces as breaks": "\n \t\n\u3000\n".join(many(5)) + "\n\u00a0 \n" + "\n  \n\n".join(many(5, 5)),
    "bom": "\ufeffReading list\n\n" + "\n\n".join(many(10)),
    "exported notes": "Notes\n\n" + "\n\n".join(many(6)) + "\n\n`fd5d0f582aa4` · #1 · unread\n\nAn abstract.",
    "exported marks as the header": "`fd5d0f582aa4` · #1 · unread\n\n" + "\n\n".join(many(10)),
    "wrapped chinese": "\n\n".join(
        ["我们研究大型语言模型如何\n理解表格。", "扩散模型采样很慢，\n我们提出采样器。"] * 5
    ),
    "blank only after the first paragraph": A1 + "\n\n \n\n\u3000\n\n" + "\n" * 30,
    **TRICKY,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_parts_meeting_anywhere_give_what_reading_whole_gives(write_file, monkeypatch, text):
    path = write_file(text.encode())
    expected = whole(path)
    monkeypatch.setattr(split_read, "_fork", lambda *args: None)  # every part read here: the same code, fast enough
    split = 0
    for part_bytes in range(1, path.stat().st_size):  # 1: each paragraph a part; else a first part of each length
        got = in_parts(path, part_bytes)
        if got is not None:
            assert got == expected, part_bytes
            split += 1
    if isinstance(expected, tuple) and len(expected[2][1]) >= 3:  # three paragraphs or more
        assert split  # read in parts somewhere


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_process_reading_parts_gives_what_reading_whole_gives(write_file, text):
    path = write_file(text.encode())
    for part_bytes in (1, 100, 500):
        got = in_parts(path, part_bytes)
        assert got is None or got == whole(path)


def test_a_part_starts_at_the_first_paragraph_after_its_place(write_file, monkeypatch):
    first, second = "\n\n".join(many(10)), "\n\n".join([A3, *many(10)])
    path = write_file(f"{first}\n\n{second}".encode())
    start = len(first.encode()) + 2  # where the 11th paragraph starts
    found = []
    for at in (start - 2, start - 1, start, start + 1):  # on the blank line, on the paragraph's start, after it
        monkeypatch.setattr(split_read, "PART_BYTES", at)
        found.append(starts(path)[1])
        assert in_parts(path) == whole(path)
    assert found[0] == start  # from the blank line's first line break: the paragraph after it
    assert found[1] == found[2] == found[3] > start  # from its last (a line break, not a blank line) on: the next one


@pytest.mark.parametrize(
    "data",
    [
        ("One giant paragraph " * 5000).encode(),  # no break anywhere
        "\n\n".join(many(20)).encode("utf-16"),
        "\n\n".join(many(20)).encode("utf-32"),
        "\n\n".join(many(20)).encode("utf-16-le"),  # NUL bytes
    ],
    ids=["giant-paragraph", "utf-16", "utf-32", "utf-16-without-bom"],
)
def test_a_file_that_cannot_be_read_in_parts_is_read_whole(write_file, data):
    path = write_file(data)
    assert in_parts(path, 100) is None
    assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))


@pytest.mark.parametrize(
    "tail",
    [b"A broken \xff byte.\n", b"A cut \xe4\xb8", b"A NUL \x00 byte.", b"\n\n \n\n"],
    ids=["bad-byte", "cut-character", "nul", "white-space"],
)
def test_a_part_that_cannot_be_read_fails_as_the_file_read_whole(write_file, monkeypatch, tail):
    path = write_file("\n\n".join(many(40)).encode() + b"\n\n" + tail)
    for part_bytes in (100, 1000, 3000):
        monkeypatch.setattr(split_read, "PART_BYTES", part_bytes)
        assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))
    if not tail.isspace():
        with pytest.raises(ReadError, match=r"papers\.txt: "):
            load_papers(path)


def _load(path, split: bool = True):
    """load_papers' list and the layout it found, read in parts where it can be (never, if not `split`)."""
    found = []
    parse = text_format.parse_laid_out
    read = split_read.read

    def parse_and_keep(*args, **kwargs):
        found.append(parse(*args, **kwargs))
        return found[-1]

    def read_and_keep(path):
        result = read(path) if split else None
        if result is not None:
            found.append(result)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_cache, "save", lambda *args: None)  # read afresh each time
        patch.setattr(text_format, "parse_laid_out", parse_and_keep)
        patch.setattr(split_read, "read", read_and_keep)
        papers = load_papers(path)
    return papers, found[-1][1]


PIECES = ["Graph Models", "We study graphs.", "it works", "中文标题", "摘要。", "`0a0b0c0d0e0f` · #1 · read"]
SPACES = [" ", "\t", "\u3000", "\u00a0", "\u2003", "\n", "\n\n", "\r\n", "\r", "\ufeff", "\r\n\r\n"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PIECES + SPACES), max_size=40).map("".join), st.integers(1, 200))
def test_any_text_read_in_parts_gives_what_reading_whole_gives(tmp_path, text, part_bytes):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(text.encode())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(split_read, "MIN_BYTES", 1)
        patch.setattr(split_read, "_fork", lambda *args: None)
        got = in_parts(path, part_bytes)
    assert got is None or got == whole(path)


@pytest.fixture
def read_here(monkeypatch):
    """Which parts this process reads (True: the first), as it reads them."""
    parent, parts_read = os.getpid(), []
    part = split_read.read_part

    def counted(*args, **kwargs):
        if os.getpid() == parent:
            parts_read.append(kwargs.get("first", True))
        return part(*args, **kwargs)

    monkeypatch.setattr(split_read, "read_part", counted)
    return parts_read


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=6))
def test_the_crc_of_parts_is_the_crc_of_their_bytes(parts):
    crc = zlib.crc32(b"")
    for part in parts:
        crc = split_read.crc32_combine(crc, zlib.crc32(part), len(part))
    assert crc == zlib.crc32(b"".join(parts))


def test_a_large_file_is_read_by_two_processes(write_file, monkeypatch, read_here):
    path = write_file(("Reading list\n\n" + "\n\n".join(many(3000)) + "\n\n" + A3).encode())
    monkeypatch.setattr(split_read, "PART_BYTES", 1 << 16)
    parts = len(starts(path))
    assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))
    assert read_here[0] is True
    assert len(read_here) < parts  # the other process read some


def _fails_by_raising(*args):
    raise RuntimeError("the child fails")


def _fails_by_dying(*args):
    os.kill(os.getpid(), signal.SIGKILL)


def _fails_by_hanging(*args):
    time.sleep(60)


def _writes_garbage(fd, n, part):
    os.write(fd, b"\x07\x00\x00\x00\x00\x00\x00\x00garbage")
    return 15


def _writes_something_else(fd, n, part):
    found, crc, length = part
    return writes(fd, n, ((*found[:5], [("id", "text")], [1], *found[7:]), crc, length))


def _writes_another_crc(fd, n, part):
    found, crc, length = part
    return writes(fd, n, (found, str(crc), length))


def _writes_half(fd, n, part):
    return writes(fd, n, part) // 2


def _says_too_much(fd, n, part):
    return writes(fd, n, part) + 1


writes = split_read._write


@pytest.mark.parametrize(
    "failing",
    [
        _fails_by_raising,
        _fails_by_dying,
        _fails_by_hanging,
        _writes_garbage,
        _writes_something_else,
        _writes_another_crc,
        _writes_half,
        _says_too_much,
    ],
)
def test_a_process_that_fails_has_its_parts_read_by_the_one_that_forked_it(write_file, monkeypatch, read_here, failing):
    path = write_file(("Reading list\n\n" + "\n\n".join([*many(300), A1, *many(300)])).encode())
    monkeypatch.setattr(split_read, "PART_BYTES", 1 << 14)
    parts = len(starts(path))
    expected = everything(lambda: _load(path, split=False))
    monkeypatch.setattr(split_read, "_write", failing)
    monkeypatch.setattr(split_read, "WAIT_AT_LEAST", 0.5)
    began = time.monotonic()
    assert everything(lambda: _load(path)) == expected
    assert time.monotonic() - began < 10
    assert sorted(read_here) == [False] * (parts - 1) + [True]  # every part read here
    with pytest.raises(ChildProcessError):  # and the process that failed was waited for
        os.waitpid(-1, os.WNOHANG)


def test_a_process_that_fails_before_taking_a_part_is_waited_for(write_file, monkeypatch, read_here):
    path = write_file(("Reading list\n\n" + "\n\n".join(many(600))).encode())
    monkeypatch.setattr(split_read, "PART_BYTES", 1 << 14)
    expected = everything(lambda: _load(path, split=False))
    parent, take = os.getpid(), split_read._next
    monkeypatch.setattr(
        split_read, "_next", lambda queue: take(queue) if os.getpid() == parent else _fails_by_raising()
    )
    assert everything(lambda: _load(path)) == expected
    assert len(read_here) == len(starts(path))
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_elsewhere_than_on_linux_a_file_is_read_whole(write_file, monkeypatch, read_here):
    path = write_file(("Reading list\n\n" + "\n\n".join(many(600))).encode())
    monkeypatch.setattr(split_read, "PART_BYTES", 1 << 14)
    monkeypatch.setattr(split_read, "FORKS", False)
    assert split_read.read(path) is None
    assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))
    assert not read_here


def test_a_pipe_in_the_files_place_is_not_waited_on(tmp_path):
    path = tmp_path / "papers.txt"
    os.mkfifo(path)
    began = time.monotonic()
    assert split_read.read(path) is None
    assert time.monotonic() - began < 5
