"""Reading paper files: encodings, line endings, headers, wrapping, title lines, duplicates, errors."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from readlist.core.files.paths import bundled_papers
from readlist.core.papers import source
from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import ReadError, parse_numbered, parse_text, read_papers
from readlist.core.papers.source import read_pieces, read_text

A1 = "We study how large language models reason about tables. Our method improves accuracy by 12%."
A2 = "Diffusion models are slow at sampling. We propose FastDiff, a distilled sampler that needs four steps."
A3 = "Graph neural networks struggle with long-range dependencies. We analyse over-squashing in theory."
SAMPLE = f"ICML 2025 论文列表\n\n{A1}\n\n{A2}\n\n{A3}\n"


def ids(path, **kw):
    return [p.id for p in read_papers(path, **kw).papers]


def test_reads_header_and_papers(write_file):
    papers = read_papers(write_file(SAMPLE))
    assert papers.name == "ICML 2025 论文列表"
    assert [p.text for p in papers.papers] == [A1, A2, A3]
    assert [p.index for p in papers.papers] == [1, 2, 3]
    assert all(len(p.id) == 12 and int(p.id, 16) >= 0 for p in papers.papers)


@pytest.mark.parametrize(
    "variant",
    [
        lambda s: s.encode("utf-8"),
        lambda s: b"\xef\xbb\xbf" + s.encode("utf-8"),
        lambda s: s.replace("\n", "\r\n").encode("utf-8"),
        lambda s: s.replace("\n", "\r").encode("utf-8"),
        lambda s: b"\xef\xbb\xbf" + s.replace("\n", "\r\n").encode("utf-8"),
    ],
    ids=["lf", "bom", "crlf", "cr", "bom-crlf"],
)
def test_line_endings_and_bom_give_same_papers(write_file, variant):
    expected = ids(write_file(SAMPLE, "base.txt"))
    papers = read_papers(write_file(variant(SAMPLE)))
    assert [p.id for p in papers.papers] == expected
    assert papers.name == "ICML 2025 论文列表"


def test_whitespace_only_lines_separate_paragraphs(write_file):
    papers = read_papers(write_file(f"{A1}\n   \t\n{A2}\n\n\n\n{A3}"))
    assert len(papers) == 3


def test_no_header_when_first_paragraph_is_a_sentence(write_file):
    papers = read_papers(write_file(f"We show that attention is enough.\n\n{A1}"))
    assert len(papers) == 2
    assert papers.name == "papers.txt"


def test_hard_wrapped_abstract_is_joined_and_keeps_its_id(write_file):
    wrapped = "\n".join(_wrap(A2, 40))
    papers = read_papers(write_file(f"{A1}\n\n{wrapped}\n\n{A3}"))
    assert papers.papers[1].text == A2
    assert papers.papers[1].given_title is None
    assert papers.papers[1].id == read_papers(write_file(f"{A2}", "one.txt")).papers[0].id


def _wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line]


def test_many_hard_wrapped_abstracts_are_not_mistaken_for_titled(write_file, tmp_path):
    sample = (bundled_papers()).read_text(encoding="utf-8").split("\n\n")[1:8]
    text = "\n\n".join("\n".join(_wrap(a.strip(), 72)) for a in sample)
    papers = read_papers(write_file(text))
    assert not papers.has_titles
    assert all(p.given_title is None for p in papers.papers)
    assert [p.text for p in papers.papers] == [" ".join(a.split()) for a in sample]


def test_title_lines_are_titles(write_file):
    text = (
        "FastDiff: Four-Step Diffusion Sampling\n"
        + "\n".join(_wrap(A2, 70))
        + "\n\nOver-Squashing in Graph Networks\n"
        + A3
        + "\n\nTables and Language Models\n"
        + A1
    )
    papers = read_papers(write_file(text))
    assert papers.has_titles
    assert [p.title for p in papers.papers] == [
        "FastDiff: Four-Step Diffusion Sampling",
        "Over-Squashing in Graph Networks",
        "Tables and Language Models",
    ]
    assert papers.papers[0].text == A2


def test_duplicates_are_dropped_and_counted(write_file):
    wrapped_a1 = "\n".join(_wrap(A1, 30))
    papers = read_papers(write_file(f"{A1}\n\n{A2}\n\n{wrapped_a1}\n\n{A1}"))
    assert len(papers) == 2
    assert papers.duplicates == 2
    assert [p.index for p in papers.papers] == [1, 2]


def test_ids_stable_across_reordering_and_edits_of_others(write_file):
    before = {p.text: p.id for p in read_papers(write_file(f"{A1}\n\n{A2}\n\n{A3}", "a.txt")).papers}
    after = {p.text: p.id for p in read_papers(write_file(f"{A3}\n\n{A1} Edited.\n\n{A2}", "b.txt")).papers}
    assert after[A2] == before[A2]
    assert after[A3] == before[A3]
    assert f"{A1} Edited." in after and after[f"{A1} Edited."] != before[A1]


def test_nfc_and_nfd_give_same_id(write_file):
    nfc = "Café models for naïve users are studied here."
    import unicodedata

    nfd = unicodedata.normalize("NFD", nfc)
    assert ids(write_file(nfc, "a.txt")) == ids(write_file(nfd, "b.txt"))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "empty"),
        (b"   \n\n \t\n", "empty"),
        ("ICML 2025 论文列表\n\n".encode(), "only a header"),
        (b"abc\x00def\n\nmore", "binary"),
        ("Résumé of our findings is here.".encode("latin-1"), "byte offset 1"),
    ],
    ids=["empty", "blank", "header-only", "binary", "not-utf8"],
)
def test_bad_files_raise_one_line_error_naming_the_file(write_file, content, problem):
    path = write_file(content)
    with pytest.raises(ReadError) as err:
        read_papers(path)
    message = str(err.value)
    assert str(path) in message and problem in message and "\n" not in message


def test_not_utf8_suggests_encoding_and_encoding_option_reads_it(write_file):
    path = write_file("Résumé of our findings is here.\n\nAnother café paper abstract.".encode("latin-1"))
    with pytest.raises(ReadError, match="--encoding"):
        read_papers(path)
    papers = read_papers(path, encoding="latin-1")
    assert papers.papers[0].text.startswith("Résumé")


def test_unknown_encoding_is_an_error(write_file):
    with pytest.raises(ReadError, match="unknown encoding"):
        read_papers(write_file(A1), encoding="no-such-codec")


@pytest.mark.parametrize("codec", ["base64", "hex", "zlib"])
def test_a_codec_that_is_not_a_text_encoding_is_an_error(write_file, codec):
    with pytest.raises(ReadError, match="not a text encoding"):
        read_papers(write_file(A1), encoding=codec)


def test_missing_and_directory(tmp_path):
    with pytest.raises(ReadError, match="no such file"):
        read_papers(tmp_path / "nope.txt")
    with pytest.raises(ReadError, match="directory"):
        read_papers(tmp_path)


def test_unreadable_file(write_file, monkeypatch):
    path = write_file(A1)

    def deny(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(ReadError, match="permission denied"):
        read_papers(path)


def test_huge_single_paragraph_loads(write_file):
    word = "transformers scale "
    text = word * (5_000_000 // len(word))
    papers = read_papers(write_file(text))
    assert len(papers) == 1
    assert len(papers.papers[0].title) <= 90


def test_hundred_thousand_papers_load(write_file):
    text = "\n\n".join(f"Paper number {i} studies topic {i % 97} with care." for i in range(100_000))
    papers = read_papers(write_file(text))
    assert len(papers) == 100_000
    assert papers.papers[-1].index == 100_000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_reader_only_raises_read_error_on_any_bytes(tmp_path, data):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(data)
    try:
        read_papers(path)
    except ReadError:
        pass


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=600))
def test_round_trip_of_papers_gives_same_ids(text):
    try:
        first = parse_text(text)
    except ReadError:
        return
    rewritten = "\n\n".join(
        ["Reading list", *[(p.given_title + "\n" + p.text) if p.given_title else p.text for p in first.papers]]
    )
    second = parse_text(rewritten)
    assert [p.id for p in second.papers] == [p.id for p in first.papers]


def test_chinese_title_lines_and_wrapped_chinese_abstracts(write_file):
    abstract = "本文提出了一种新的探索方法，用于深度强化学习中的稀疏奖励问题。我们在多个基准上验证了该方法的有效性。"
    wrapped = "\n".join(abstract[n : n + 20] for n in range(0, len(abstract), 20))
    other = "大型语言模型在数学推理任务上表现出色，但在长链推理中仍然容易出错。我们分析了错误的来源并提出改进。"
    titled = read_papers(write_file(f"深度强化学习中的探索方法\n{wrapped}\n\n语言模型的数学推理\n{other}"))
    assert titled.has_titles
    assert [p.title for p in titled.papers] == ["深度强化学习中的探索方法", "语言模型的数学推理"]
    assert titled.papers[0].text == abstract  # joined without spaces between Chinese characters
    plain = read_papers(write_file(f"{wrapped}\n\n{other}"))
    assert not plain.has_titles
    assert plain.papers[0].text == abstract
    assert plain.papers[0].id == read_papers(write_file(f"{abstract}\n\n{other}")).papers[0].id
    at_commas = abstract.replace("，", "，\n").replace("。", "。\n").strip()  # lines that end in punctuation
    assert read_papers(write_file(f"{at_commas}\n\n{other}")).papers[0].text == abstract  # before: "， 用于"
    japanese = "本手法を提案し、\nわずか四ステップで生成する。"
    assert read_papers(write_file(f"{japanese}\n\n{other}")).papers[0].text == japanese.replace("\n", "")


def test_an_endless_stream_of_nul_bytes_is_refused_as_binary_at_once(tmp_path):
    import os
    import threading

    fifo = tmp_path / "zero"
    os.mkfifo(fifo)
    written = []

    def write_zeros():  # as /dev/zero would, but ending after 256 MB
        try:
            with open(fifo, "wb") as out:
                for _ in range(256):
                    out.write(bytes(1 << 20))
                    written.append(1)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write_zeros)
    writer.start()
    with pytest.raises(ReadError, match="looks like a binary file"):
        read_papers(fifo)
    writer.join()
    assert len(written) < 256  # the reader stopped early (before: it read all, so /dev/zero never ended)


def test_a_pipe_is_read_to_its_end(tmp_path):
    import os
    import threading

    fifo = tmp_path / "papers"
    os.mkfifo(fifo)
    detail = " We bound its regret and its sample complexity under weaker assumptions than before." * 4
    text = "Papers\n\n" + "\n\n".join(f"We study problem number {n} in depth.{detail}" for n in range(3000))
    assert len(text.encode()) > 1 << 20  # more than the one chunk a pipe is read in at a time
    writer = threading.Thread(target=lambda: fifo.write_text(text, encoding="utf-8"))
    writer.start()
    papers = read_papers(fifo)
    writer.join()
    assert len(papers) == 3000 and papers.papers[-1].text.startswith("We study problem number 2999 ")


def test_title_lines_about_as_long_as_the_wrap_width_are_titles(write_file):
    titled = {
        "FastDiff: Distilling Diffusion Samplers into Four Steps": A2,  # a little shorter than the width
        "Over-Squashing and Long-Range Dependencies in Graph Neural Networks": A3,  # longer than any line
        "Reasoning About Tables with Large Language Models at Scale": A1,
    }
    text = "\n\n".join(title + "\n" + "\n".join(_wrap(abstract, 60)) for title, abstract in titled.items())
    papers = read_papers(write_file(text))
    assert papers.has_titles
    assert [p.title for p in papers.papers] == list(titled)
    assert [p.text for p in papers.papers] == list(titled.values())


def _read_in_pieces(text: str, size: int):
    """Everything parse_numbered gives for `text` split into pieces of `size` characters, or its error."""
    try:
        papers, numbers = parse_numbered(text, "papers.txt", piece_chars=size)
    except ReadError as exc:
        return str(exc)
    read = [(p.id, p.index, p.text, p.given_title) for p in papers.papers]
    return papers.name, papers.has_titles, papers.duplicates, numbers, read


TITLED = "Graph Models at Scale\nWe study graphs with care.\nOur method is fast."
TRICKY = {
    "crlf": f"Reading list\r\n\r\n{A1}\r\n\r\n{TITLED}\r\n\r\n{A2}\r\n".replace("\n", "\r\n"),
    "cr": f"Reading list\r\r{A1}\r\r{A2}\r",
    "bom": f"\ufeffReading list\n\n{A1}\n\n{A2}",
    "bom-crlf": f"\ufeff{A1}\r\n\r\n{A2}\r\n",
    "blank lines with spaces": f"{A1}\n \t\n\u3000\n\u00a0 \n{A2}\n  \n\n{A3}\n   ",
    "blank line of other spaces": f"{A1}\n\u2003\n{A2}",
    "titles": f"{TITLED}\n\n{TITLED.replace('Graph', 'Table')}\n\n{TITLED.replace('Graph', 'Tree')}",
    "wrapped chinese": "论文列表\n\n我们研究大型语言模型如何\n理解表格。\n\n扩散模型采样很慢，\n我们提出快速采样器。",
    "duplicates": f"{A1}\n\n{A2}\n\n{A1}\n\n{A3}",
    "header only": "Reading list\r\n\r\n",
    "exported": "Notes\n\n`fd5d0f582aa4` · #1 · unread\n\nAn abstract.",
}


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_a_text_read_in_pieces_gives_the_papers_read_whole(text):
    whole = _read_in_pieces(text, len(text) + 1)
    for size in range(1, len(text) + 1):  # every place a piece can end: inside "\r\n", a blank run, a line
        assert _read_in_pieces(text, size) == whole, size


PIECES = ["Graph Models", "We study graphs.", "it works", "中文标题", "摘要。", "Reading list"]
SPACES = [" ", "\t", "\u3000", "\u00a0", "\u2003", "\n", "\n\n", "\r\n", "\r", "\ufeff"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES + SPACES), max_size=40).map("".join), st.integers(1, 12))
def test_any_text_read_in_pieces_gives_the_papers_read_whole(text, size):
    assert _read_in_pieces(text, size) == _read_in_pieces(text, len(text) + 1)


def test_utf8_read_in_pieces_is_the_text_read_whole(write_file):
    path = write_file(f"Reading list\r\n\r\n{A1} ≤ 12%\n\n中文摘要。\n\n{A2}\n".encode())
    whole = read_text(path)[0]
    for size in range(1, len(whole) * 3):
        pieces = list(read_pieces(path, size=size)[0])
        assert "".join(pieces) == whole
        assert len(pieces) > 1 or size >= len(whole)


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_a_file_read_from_the_disk_in_pieces_gives_the_papers_read_whole(write_file, monkeypatch, text):
    path = write_file(text.encode())
    whole = _outcome(lambda: load_papers(path))
    monkeypatch.setattr(source, "PIECE_BYTES", 3)  # every piece ends after a line break: "\r\n" is never cut
    assert len(list(source.read_pieces(path)[0])) > 1
    assert _outcome(lambda: load_papers(path)) == whole


def _outcome(read):
    try:
        papers = read()
    except ReadError as exc:
        return str(exc)
    read = [(p.id, p.index, p.text, p.given_title) for p in papers.papers]
    return papers.name, papers.has_titles, papers.duplicates, read


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([b"ab", b" ", b"\n", b"\r", b"\xe4\xb8\xad", b"\xe4", b"\xff", b"\x00"]), max_size=30))
def test_any_bytes_read_in_pieces_give_what_they_give_read_whole(tmp_path, parts):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(b"".join(parts))
    outcomes = []
    for size in (1, 2, 3, 1 << 20):
        try:
            outcomes.append("".join(read_pieces(path, size=size)[0]))
        except ReadError as exc:
            outcomes.append(str(exc))
    try:
        assert outcomes == [read_text(path)[0]] * 4
    except ReadError as exc:
        assert outcomes == [str(exc)] * 4


@pytest.mark.parametrize(
    ("tail", "problem"),
    [
        (b"A broken \xff byte.\n", "not UTF-8 (invalid byte 0xff at byte offset 6288913)"),
        (b"A broken \xe4\n", "not UTF-8 (invalid byte 0xe4 at byte offset 6288913)"),
        (b"A cut \xe4\xb8", "not UTF-8 (invalid byte 0xe4 at byte offset 6288910)"),
        (b"A broken \xff byte.\n\n" + b"x" * 3_000_000 + b"\x00", "looks like a binary file (contains NUL bytes)"),
        (b"\x00", "looks like a binary file (contains NUL bytes)"),
    ],
    ids=["bad-byte", "bad-byte-before-line-break", "cut-at-end", "bad-byte-then-nul", "nul"],
)
def test_a_bad_byte_far_into_a_big_file_is_named_as_when_read_whole(write_file, tail, problem):
    data = ("Reading list\n\n" + "\n\n".join(f"Paper {i} about ≤ graphs." for i in range(200_000))).encode()
    data += b"\n\n" + tail
    path = write_file(data)
    with pytest.raises(ReadError) as whole:
        read_text(path)  # decoded whole
    with pytest.raises(ReadError) as read:
        read_papers(path)
    assert str(read.value) == str(whole.value)
    assert f"{path}: {problem}" in str(read.value)


def test_a_watched_paper_file_is_digested_a_block_at_a_time(tmp_path):
    # The app digests its paper file after the list shows, and again when its stamp changes: a 100k-paper file read
    # whole was 115 MB at the app's peak, while the user typed the first search.
    import os
    import tracemalloc

    from readlist.core.papers.source import file_digest, file_stamp, file_state

    path = tmp_path / "papers.txt"
    path.write_bytes(b"A study of graphs.\n\n" * 400_000)  # 8 MB
    stamp = file_stamp(path)
    tracemalloc.start()
    try:
        digest = file_digest(path, stamp)
        later = stamp[0] + 5_000_000_000
        os.utime(path, ns=(later, later))  # `touch`: the same bytes
        state, now = file_state(path, stamp, digest)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert digest and state == "same" and now == file_stamp(path)
    assert peak < 1_000_000
    with path.open("ab") as handle:
        handle.write(b"x")
    assert file_state(path, stamp, digest)[0] == "changed"
    assert file_digest(path, stamp) is None  # its stamp moved on
