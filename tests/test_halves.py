"""A large text file read in two halves at once (halves.py): the list and its layout are the ones reading it whole
gives, field by field, wherever the halves meet; a file that cannot be read so is read whole, and a process that
fails in any way has its half read by the one that forked it."""

from __future__ import annotations

import os
import signal
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_reader import A1, A2, A3, TITLED, TRICKY

from readlist.core.papers import halves, source, text_cache
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import ReadError, parse_laid_out

pytestmark = pytest.mark.skipif(not halves.FORKS, reason="a file is read in halves on Linux only")


@pytest.fixture(autouse=True)
def small_files(monkeypatch):
    monkeypatch.setattr(halves, "MIN_BYTES", 1)


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


def halved(path, share: float | None = None, monkeypatch=None):
    """What halves.read gives with the halves meeting after `share` of the file, or None when it does not."""
    if share is not None:
        monkeypatch.setattr(halves, "SHARE", share)
    got = everything(lambda: halves.read(path) or _none())
    return None if got == "none" else got


def _none():
    raise ReadError("none")


def many(n: int, start: int = 0) -> list[str]:
    return [f"{A1} Paper {i} ≤ α." if i % 3 else f"{A2} Paper {i}." for i in range(start, start + n)]


def shares(data: bytes):
    """A share of the file ending at each of its bytes."""
    return [(at + 0.5) / len(data) for at in range(len(data))]


HOSTILE = {
    "header": "Reading list\n\n" + "\n\n".join(many(20)),
    "duplicates within and across the halves": "\n\n".join([*many(6), A3, A3, *many(6), A3, *many(3), A3]),
    "title lines in the first half only": "\n\n".join([TITLED.replace("Graph", f"G{i}") for i in range(8)] + many(9)),
    "title lines in the second half only": "\n\n".join(many(9) + [TITLED.replace("Graph", f"G{i}") for i in range(8)]),
    "crlf": ("Reading list\n\n" + "\n\n".join(many(10)) + "\n").replace("\n", "\r\n"),
    "cr": "\r\r".join(many(10)) + "\r",
    "lines of spaces as breaks": "\n \t\n\u3000\n".join(many(5)) + "\n\u00a0 \n" + "\n  \n\n".join(many(5, 5)),
    "bom": "\ufeffReading list\n\n" + "\n\n".join(many(10)),
    "exported notes": "Notes\n\n" + "\n\n".join(many(6)) + "\n\n`fd5d0f582aa4` · #1 · unread\n\nAn abstract.",
    "exported marks as the header": "`fd5d0f582aa4` · #1 · unread\n\n" + "\n\n".join(many(10)),
    "wrapped chinese": "\n\n".join(
        ["我们研究大型语言模型如何\n理解表格。", "扩散模型采样很慢，\n我们提出快速采样器。"] * 5
    ),
    "blank only after the first paragraph": A1 + "\n\n \n\n\u3000\n\n" + "\n" * 30,
    **TRICKY,
}


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_halves_meeting_anywhere_give_what_reading_whole_gives(write_file, monkeypatch, text):
    path = write_file(text.encode())
    expected = whole(path)
    monkeypatch.setattr(halves, "_fork", lambda *args: None)  # each half read here: the same code, fast enough
    split = 0
    for share in shares(path.read_bytes()):
        got = halved(path, share, monkeypatch)
        if got is not None:
            assert got == expected, share
            split += 1
    if isinstance(expected, tuple) and len(expected[2][1]) >= 3:  # three paragraphs or more
        assert split  # read in halves somewhere


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_process_reading_the_second_half_gives_what_reading_whole_gives(write_file, monkeypatch, text):
    path = write_file(text.encode())
    for share in (0.3, 0.5, 0.7):
        got = halved(path, share, monkeypatch)
        assert got is None or got == whole(path)


def test_a_break_exactly_at_the_middle(write_file, monkeypatch):
    first, second = "\n\n".join(many(10)), "\n\n".join([A3, *many(10)])
    path = write_file(f"{first}\n\n{second}".encode())
    start = len(first.encode()) + 2  # where the second half's first paragraph starts
    size = path.stat().st_size
    cuts = []
    for at in (start - 2, start - 1, start, start + 1):  # the middle on the blank line, the paragraph's start, after
        monkeypatch.setattr(halves, "SHARE", (at + 0.5) / size)
        with open(path, "rb") as handle:
            cuts.append(halves._middle(handle.fileno()))
        assert halved(path) == whole(path)
    assert cuts[0] == start  # from the blank line's first line break: the paragraph after it
    assert cuts[1] == cuts[2] == cuts[3] > start  # from its last (a line break, not a blank line) on: the next one
    monkeypatch.setattr(halves, "SHARE", (start - 1.5) / size)
    assert halved(path)[2][0][10] == 11  # the paragraph there is the 11th


@pytest.mark.parametrize(
    "data",
    [
        ("One giant paragraph " * 5000).encode(),  # no break after the middle
        "\n\n".join(many(20)).encode("utf-16"),
        "\n\n".join(many(20)).encode("utf-32"),
        "\n\n".join(many(20)).encode("utf-16-le"),  # NUL bytes
    ],
    ids=["giant-paragraph", "utf-16", "utf-32", "utf-16-without-bom"],
)
def test_a_file_that_cannot_be_read_in_halves_is_read_whole(write_file, monkeypatch, data):
    path = write_file(data)
    assert halved(path, 0.5, monkeypatch) is None
    assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))


@pytest.mark.parametrize(
    "tail",
    [b"A broken \xff byte.\n", b"A cut \xe4\xb8", b"A NUL \x00 byte.", b"\n\n \n\n"],
    ids=["bad-byte", "cut-character", "nul", "white-space"],
)
def test_a_second_half_that_cannot_be_read_fails_as_the_file_read_whole(write_file, monkeypatch, tail):
    path = write_file("\n\n".join(many(40)).encode() + b"\n\n" + tail)
    for share in (0.3, 0.9):
        monkeypatch.setattr(halves, "SHARE", share)
        assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))
    if not tail.isspace():
        with pytest.raises(ReadError, match=r"papers\.txt: "):
            load_papers(path)


def _load(path, split: bool = True):
    """load_papers' list and the layout it found, read in halves where it can be (never, if not `split`)."""
    import readlist.core.papers.formats.text as text_format

    found = []
    parse = text_format.parse_laid_out

    def parse_and_keep(*args, **kwargs):
        found.append(parse(*args, **kwargs))
        return found[-1]

    read = halves_module.read

    def read_and_keep(path):
        result = read(path) if split else None
        if result is not None:
            found.append(result)
        return result

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(text_cache, "save", lambda *args: None)  # read afresh each time
        patch.setattr(text_format, "parse_laid_out", parse_and_keep)
        patch.setattr(halves_module, "read", read_and_keep)
        papers = load_papers(path)
    return papers, found[-1][1]


halves_module = halves


PIECES = [
    "Graph Models",
    "We study graphs.",
    "it works",
    "中文标题",
    "摘要。",
    "Reading list",
    "`0a0b0c0d0e0f` · #1 · read",
]
SPACES = [" ", "\t", "\u3000", "\u00a0", "\u2003", "\n", "\n\n", "\r\n", "\r", "\ufeff", "\r\n\r\n"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(PIECES + SPACES), max_size=40).map("".join), st.floats(0, 1))
def test_any_text_read_in_halves_gives_what_reading_whole_gives(tmp_path, text, share):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(text.encode())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(halves, "MIN_BYTES", 1)
        patch.setattr(halves, "SHARE", share)
        patch.setattr(halves, "_fork", lambda *args: None)
        got = halved(path)
    assert got is None or got == whole(path)


@pytest.fixture
def read_here(monkeypatch):
    """Which halves this process reads (True: the first), as it reads them."""
    parent, halves_read = os.getpid(), []
    part = halves.read_part

    def counted(*args, **kwargs):
        if os.getpid() == parent:
            halves_read.append(kwargs.get("first", True))
        return part(*args, **kwargs)

    monkeypatch.setattr(halves, "read_part", counted)
    return halves_read


def test_a_large_file_is_read_in_halves_by_two_processes(write_file, read_here):
    path = write_file(("Reading list\n\n" + "\n\n".join(many(3000)) + "\n\n" + A3).encode())
    assert everything(lambda: _load(path)) == everything(lambda: _load(path, split=False))
    assert read_here == [True]  # the second half was read by the other process


def _fails_by_raising(*args):
    raise RuntimeError("the child fails")


def _fails_by_dying(*args):
    os.kill(os.getpid(), signal.SIGKILL)


def _fails_by_hanging(*args):
    time.sleep(60)


def _writes_garbage(fd, found):
    os.write(fd, b"\x07\x00\x00\x00\x00\x00\x00\x00garbage")
    return 15


def _writes_something_else(fd, found):
    return halves_writes(fd, (*found[:5], [("id", "text")], [1], *found[7:]))


def _writes_half(fd, found):
    return halves_writes(fd, found) // 2


def _says_too_much(fd, found):
    return halves_writes(fd, found) + 1


halves_writes = halves._write


@pytest.mark.parametrize(
    "failing",
    [
        _fails_by_raising,
        _fails_by_dying,
        _fails_by_hanging,
        _writes_garbage,
        _writes_something_else,
        _writes_half,
        _says_too_much,
    ],
)
def test_a_process_that_fails_has_its_half_read_by_the_one_that_forked_it(write_file, monkeypatch, read_here, failing):
    path = write_file(("Reading list\n\n" + "\n\n".join([*many(300), A1, *many(300)])).encode())
    expected = everything(lambda: _load(path, split=False))
    monkeypatch.setattr(halves, "_write", failing)
    monkeypatch.setattr(halves, "WAIT_AT_LEAST", 0.5)
    began = time.monotonic()
    assert everything(lambda: _load(path)) == expected
    assert time.monotonic() - began < 10
    assert read_here == [True, False]  # both halves read here
    with pytest.raises(ChildProcessError):  # and the process that failed was waited for
        os.waitpid(-1, os.WNOHANG)
