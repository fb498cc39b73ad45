"""Hostile paper files and arguments: each gives one line and an exit status, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from readlist.cli import cli

ONE_WORD = "We study " + "buffalo " * 70_000 + "in depth."


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, color=True)  # colour codes kept, as a terminal gets them


def test_a_word_said_65536_times_in_one_paper_is_searched_related_and_exported(tmp_path, write_file):
    papers = write_file("Header\n\n" + ONE_WORD + "\n\nA second paper about buffalo herds and grass.\n")
    common = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    found = run(*common, "search", "buffalo", "--json")
    assert found.exit_code == 0, found.output
    assert [row["index"] for row in json.loads(found.output)] == [1, 2]
    related = run(*common, "related", "#2")
    assert related.exit_code == 0, related.output
    exported = run(*common, "export", "-q", "buffalo", "--format", "json")
    assert exported.exit_code == 0, exported.output
    assert len(json.loads(exported.output)) == 2


def test_a_word_said_65536_times_leaves_the_other_papers_counts_as_they_are(tmp_path, write_file):
    # The big paper comes after another saying the word once: the counts of every word after it stay its own.
    papers = write_file(
        "Header\n\nA paper on buffalo and a zebra.\n\n" + ONE_WORD + "\n\n"
        "A zebra zebra zebra zebra zebra zebra zebra zebra and a yak yak yak yak yak yak yak yak yak yak yak yak.\n"
    )
    found = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "search", "zebra", "--json")
    assert found.exit_code == 0, found.output
    assert [row["index"] for row in json.loads(found.output)] == [3, 1]  # the paper saying it 8 times first


@pytest.mark.slow
async def test_the_tui_starts_on_a_paper_saying_one_word_65536_times(tmp_path):
    from readlist.core.papers.reader import parse_text
    from readlist.tui.app import ReadlistApp

    papers = parse_text("Header\n\n" + ONE_WORD + "\n", str(tmp_path / "papers.txt"))
    app = ReadlistApp(papers, tmp_path / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.press("slash", *"buffalo")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.view.matches == 1
    assert app.return_code in (None, 0)  # no error stopped it


def test_the_tui_exits_non_zero_when_it_stopped_on_an_error(tmp_path, write_file, monkeypatch):
    from readlist.tui.app import ReadlistApp

    def failed_run(self):
        self._return_code = 1  # what Textual sets after printing an unhandled error

    monkeypatch.setattr(ReadlistApp, "run", failed_run)
    papers = write_file("One paper about graphs.\n")
    result = run("--papers", str(papers), "--db", str(tmp_path / "db.json"))
    assert result.exit_code == 1


def test_an_encoding_that_decodes_nothing_or_half_characters_is_one_line(tmp_path, write_file):
    db = str(tmp_path / "db.json")
    plain = write_file("A paper about graphs.\n")
    undefined = run("--papers", str(plain), "--db", db, "--encoding", "undefined", "list")
    assert undefined.exit_code == 2
    assert undefined.output.strip() == f"readlist: {plain}: 'undefined' is not a text encoding"
    for content, encoding in (
        (b"A paper +2AA- about graphs.\n", "utf-7"),
        (b"A paper \\ud800 on graphs.\n", "unicode_escape"),
    ):
        papers = write_file(content, f"{encoding}.txt")
        result = run("--papers", str(papers), "--db", db, "--encoding", encoding, "list")
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1
        assert f"{papers}: read as {encoding}, character 9 is half of a character (U+D800)" in result.output


def test_utf16_and_utf32_with_a_byte_order_mark_are_read(tmp_path, write_file):
    text = "ICML 2025\n\nWe study graphs — and ε-greedy agents.\n\nA second paper.\n"
    for encoding in ("utf-16", "utf-16-be", "utf-32", "utf-32-le"):
        data = text.encode(encoding)
        if encoding.endswith(("-be", "-le")):
            data = ("\ufeff" + text).encode(encoding)
        papers = write_file(data, f"{encoding}.txt")
        result = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "list", "--json")
        assert result.exit_code == 0, (encoding, result.output)
        titles = [row["title"] for row in json.loads(result.output)]
        assert len(titles) == 2 and "ε-greedy" in titles[0], (encoding, titles)


def test_utf16_without_a_byte_order_mark_is_refused_naming_the_encoding_to_give(tmp_path, write_file):
    text = "ICML 2025\n\nWe study graphs and trees.\n"
    db = str(tmp_path / "db.json")
    for encoding in ("utf-16-le", "utf-16-be"):
        papers = write_file(text.encode(encoding), f"{encoding}.txt")
        refused = run("--papers", str(papers), "--db", db, "list")
        assert refused.exit_code == 2
        assert refused.output.strip() == (
            f"readlist: {papers}: contains NUL bytes, as UTF-16 text without a byte-order mark does; "
            f"try --encoding {encoding}"
        )  # before: "looks like a binary file"
        read = run("--papers", str(papers), "--db", db, "--encoding", encoding, "show", "#1", "--json")
        assert read.exit_code == 0 and json.loads(read.output)["text"] == "We study graphs and trees."


def feed_pipe(fifo, data: bytes, after: float = 0.0):
    """A thread writing `data` into the named pipe `fifo` once readlist opens it, `after` seconds later. It gives
    up after 10 s without a reader, so a test fails instead of hanging."""
    import errno
    import os
    import threading
    import time

    def write():
        deadline = time.monotonic() + 10
        while True:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as exc:  # ENXIO: nobody reads it yet
                if exc.errno != errno.ENXIO or time.monotonic() > deadline:
                    return
                time.sleep(0.01)
        os.set_blocking(fd, True)
        time.sleep(after)
        try:
            with open(fd, "wb") as out:
                out.write(data)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


def test_utf16_through_a_pipe_is_read_to_its_end(tmp_path):
    import os

    text = "Papers\n\n" + "\n\n".join(f"We study problem number {n} — in depth, ε-greedy." for n in range(20_000))
    db = str(tmp_path / "db.json")
    for encoding, data in (("utf-16", text.encode("utf-16")), ("utf-16-le", text.encode("utf-16-le"))):
        assert len(data) > 2 << 20  # chunks a pipe is read in, each holding NUL bytes
        fifo = tmp_path / f"{encoding}.fifo"
        os.mkfifo(fifo)
        writer = feed_pipe(fifo, data)
        given = ["--encoding", encoding] if encoding.endswith("-le") else []  # the BOM says it, or the user
        result = run("--papers", str(fifo), "--db", db, *given, "list", "--json")
        writer.join()
        assert result.exit_code == 0, result.output
        assert len(json.loads(result.output)) == 20_000  # before: the papers of the first MB alone


def test_a_pipe_whose_program_is_slow_to_write_is_waited_for(tmp_path, monkeypatch):
    import os

    from readlist.core.papers import source

    monkeypatch.setattr(source, "FIFO_WAIT", 0.5)
    fifo = tmp_path / "papers.fifo"
    os.mkfifo(fifo)
    writer = feed_pipe(fifo, b"A paper about graphs.\n", after=1.5)  # as <(sort big.txt) would, taking its time
    result = run("--papers", str(fifo), "--db", str(tmp_path / "db.json"), "list")
    writer.join()
    assert result.exit_code == 0, result.output  # before: refused, as if nobody wrote into it
    assert "A paper about graphs" in result.output


def test_a_named_pipe_nobody_writes_to_is_refused_instead_of_waited_on(tmp_path, monkeypatch):
    import contextlib
    import os
    import threading
    import time

    from readlist.core.papers import source

    monkeypatch.setattr(source, "FIFO_WAIT", 0.2)
    fifo = tmp_path / "papers.fifo"
    os.mkfifo(fifo)

    def rescue():  # a reader that waits for a writer is let go after 3 s, so the test fails instead of hanging
        time.sleep(3)
        with contextlib.suppress(OSError):  # no reader left: nothing to let go
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=rescue, daemon=True).start()
    started = time.monotonic()
    result = run("--papers", str(fifo), "--db", str(tmp_path / "db.json"), "list")
    assert time.monotonic() - started < 2
    assert result.exit_code == 2
    assert result.output.strip() == f"readlist: {fifo}: nothing was written into this pipe within 0.2 s; nothing read"


def test_an_endless_pipe_of_text_stops_at_the_limit_and_says_so(tmp_path, monkeypatch):
    import os
    import threading

    from readlist.core.papers import source

    monkeypatch.setattr(source, "STREAM_LIMIT", 4 << 20)
    fifo = tmp_path / "papers.fifo"
    os.mkfifo(fifo)
    sent = []

    def endless():  # as `yes 'a paper'` would, but stopping after 64 MB
        try:
            with open(fifo, "wb") as out:
                for _ in range(64):
                    out.write(b"A paper about graphs.\n\n" * (1 << 16))
                    sent.append(1)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=endless)
    writer.start()
    result = run("--papers", str(fifo), "--db", str(tmp_path / "db.json"), "list")
    writer.join()
    assert result.exit_code == 2
    assert "more than 4 MB arrived through the pipe; stopped reading" in result.output
    assert len(sent) < 64


def test_a_link_holding_braces_or_a_backslash_is_shown_and_exported_as_written(tmp_path, write_file):
    import bibtexparser

    url = "https://example.org/data{b}/x\\d/y"
    papers = write_file(f"We release a dataset of graphs at {url} for study.\n")
    common = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    shown = run(*common, "show", "#1", "--json")
    assert shown.exit_code == 0, shown.output
    paper = json.loads(shown.output)
    assert paper["urls"] == [url]
    assert url in paper["plain"]  # not `x ̣/y`: LaTeX is never converted inside a link
    exported = run(*common, "export", "--all", "--format", "bibtex")
    entry = bibtexparser.parse_string(exported.output).entries[0]
    assert entry["url"] == "https://example.org/data%7Bb%7D/x%5Cd/y"  # whole, and verbatim-safe


def test_a_link_that_starts_another_leaves_the_other_whole(tmp_path, write_file):
    code, data = "https://example.org/x", "https://example.org/x/y\\d{b}/z"
    papers = write_file(f"Code at {code} and data at {data} for all.\n")
    common = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    shown = run(*common, "show", "#1", "--json")
    assert shown.exit_code == 0, shown.output
    paper = json.loads(shown.output)
    assert paper["urls"] == [code, data]
    assert paper["plain"] == f"Code at {code} and data at {data} for all."  # before: .../x/yḅ/z
    exported = run(*common, "export", "--all", "--format", "md")
    assert f"> Code at {code} and data at {data} for all." in exported.output


HIDDEN = {
    "\u009b": "a C1 CSI",
    "\u009d": "a C1 OSC",
    "\u0085": "a C1 next line",
    "\u2066": "a bidi isolate",
    "\u200f": "a right-to-left mark",
    "\u00ad": "a soft hyphen",
    "\ufeff": "a byte-order mark",
    "\U000e0041": "a tag character",
    "\x1b[31m": "a colour code",
}


def test_controls_and_invisible_characters_never_reach_the_terminal_but_json_keeps_them(tmp_path, write_file):
    hidden = "".join(HIDDEN)
    papers = write_file(f"We study graphs{hidden}31m and trees in depth.\n\nA second paper.\n")
    common = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    assert run(*common, "note", "#1", "--text", f"my note{hidden} here").exit_code == 0
    assert run(*common, "tag", "#1", "+t").exit_code == 0
    outputs = {
        "show": run(*common, "show", "#1").output,
        "show --json": run(*common, "show", "#1", "--json").output,
        "list --json": run(*common, "list", "--json").output,
        "note": run(*common, "note", "#1").output,
        **{f"export {fmt}": run(*common, "export", "--format", fmt).output for fmt in ("md", "json", "csv", "bibtex")},
    }
    for name, output in outputs.items():
        for char, what in HIDDEN.items():
            assert char not in output, f"{what} reached the terminal through {name}"
    assert "We study graphs31m and trees" in outputs["show"]
    assert "my note here" in outputs["note"]
    shown = json.loads(outputs["show --json"])
    assert shown["text"] == f"We study graphs{hidden}31m and trees in depth."  # the data, exact, as escapes


OSC_TITLE = "\x1b]0;owned\x07"  # sets the terminal window's title


def test_a_databases_ids_and_tags_and_a_files_name_reach_the_terminal_without_their_controls(tmp_path, write_file):
    papers = write_file("A paper about graphs.\n\nA second paper about trees.\n")
    ours, theirs = tmp_path / "ours.json", tmp_path / "theirs.json"
    assert run("--papers", str(papers), "--db", str(ours), "tag", "#1", "+x").exit_code == 0
    assert run("--papers", str(papers), "--db", str(theirs), "tag", "#1", "+k").exit_code == 0
    assert run("--papers", str(papers), "--db", str(theirs), "star", "#2").exit_code == 0
    data = json.loads(theirs.read_text())  # a hand-made (or hostile) database: nothing cleaned these
    first, second = data["annotations"]["1"], data["annotations"]["2"]
    first["tags"] = [f"k{OSC_TITLE}"]
    second.update(id=f"ab12{OSC_TITLE}", snippet="A paper no longer in the list.")
    theirs.write_text(json.dumps(data))
    common = ["--papers", str(papers), "--db", str(theirs)]
    outputs = {
        "merge": run("--papers", str(papers), "--db", str(ours), "merge", str(theirs), "--dry-run").output,
        "list --missing": run(*common, "list", "--missing").output,
        "show MISSING": run(*common, "show", "ab12").output,
        "a missing paper's error": run(*common, "star", "ab12").output,
        "reattach": run(*common, "reattach", "ab12", "#2").output,
        "a file's name": run("--papers", str(tmp_path / f"gone{OSC_TITLE}.txt"), "list").output,
    }
    for name, output in outputs.items():
        assert "\x1b" not in output and "\x07" not in output, f"{name}: {output!r}"
    assert "tags: [x] → [k, x]" in outputs["merge"]
    assert "\nab12  A paper no longer in the list (not in this paper list)\n    new here: starred\n" in outputs["merge"]
    assert "\nab12  ★ unread   A paper no longer in the list\n" in outputs["list --missing"]
    assert "ab12 · not in this paper list" in outputs["show MISSING"]
    assert "moved the annotations of ab12 to:" in outputs["reattach"]
    assert "'ab12': ab12\\x1b]0;owned\\x07 is a missing paper" in outputs["a missing paper's error"]
    assert outputs["a file's name"] == f"readlist: {tmp_path}/gone\\x1b]0;owned\\x07.txt: no such file\n"


def test_a_nul_in_a_note_from_standard_input_or_the_editor_is_refused_and_the_note_kept(
    tmp_path, write_file, monkeypatch
):
    import shlex
    import sys

    papers = write_file("A paper about graphs.\n")
    common = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    assert run(*common, "note", "#1", "--text", "first").exit_code == 0
    piped = run(*common, "note", "#1", "--text", "-", input="ab\0cd")
    assert piped.exit_code == 2
    assert piped.output.strip() == (
        "readlist: standard input holds a NUL character (\\0), which a note cannot hold; the note is unchanged"
    )
    script = tmp_path / "editor.py"
    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[1]).write_bytes(b'typed\\x00here')\n")
    monkeypatch.setenv("VISUAL", f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")
    edited = run(*common, "note", "#1", "--edit")
    assert edited.exit_code == 2
    assert "holds a NUL character" in edited.output and "your text is kept in" in edited.output
    kept = edited.output.rsplit("your text is kept in ", 1)[1].strip()
    assert Path(kept).read_bytes() == b"typed\0here"
    assert run(*common, "note", "#1").output == "first\n"


def test_a_paper_number_is_written_in_ascii_digits(tmp_path, write_file):
    papers = write_file("A paper about graphs.\n\nA second paper.\n")
    result = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "show", "#١")
    assert result.exit_code == 2
    assert result.output.strip() == "readlist: '#١': expected #N with N a paper number"


async def test_the_note_dialog_does_not_save_a_nul_and_stays_open(tmp_path):
    from textual.widgets import TextArea

    from readlist.core.papers.reader import parse_text
    from readlist.tui.app import ReadlistApp
    from readlist.tui.screens.dialogs.note import NoteScreen
    from tests.tui.conftest import notifications

    app = ReadlistApp(parse_text("A paper about graphs.\n", str(tmp_path / "p.txt")), tmp_path / "db.json")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        app.screen.query_one(TextArea).insert("ab\0cd")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NoteScreen)  # still open, the text in it
        assert any("NUL character" in n.message for n in notifications(app))
        assert app.store.get(app.papers.papers[0].id).note == ""


def test_exports_and_new_folders_are_private_whatever_the_umask(tmp_path, write_file, monkeypatch):
    import os
    import stat

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache" / "deep"))
    papers = write_file("A paper about graphs.\n\nA second paper about trees.\n")
    db = tmp_path / "new" / "folders" / "db.json"
    old = os.umask(0)
    try:
        assert run("--papers", str(papers), "--db", str(db), "star", "#1").exit_code == 0
        assert run("--papers", str(papers), "--db", str(db), "search", "graphs").exit_code == 0
        out = tmp_path / "notes.md"
        assert run("--papers", str(papers), "--db", str(db), "export", "-o", str(out)).exit_code == 0
    finally:
        os.umask(old)

    def mode(path):
        return stat.S_IMODE(path.stat().st_mode)

    assert mode(out) == 0o600
    assert [mode(folder) for folder in (tmp_path / "new", tmp_path / "new" / "folders")] == [0o700, 0o700]
    made = [p for p in (tmp_path / "cache").rglob("*") if p.is_dir()]
    assert made and all(mode(folder) == 0o700 for folder in made), [(p, oct(mode(p))) for p in made]


def test_an_export_never_replaces_the_ui_state_file_or_a_note_draft(tmp_path, write_file):
    papers = write_file("A paper about graphs.\n")
    db = tmp_path / "db.json"
    common = ["--papers", str(papers), "--db", str(db)]
    assert run(*common, "star", "#1").exit_code == 0
    state = tmp_path / "db.ui.json"
    state.write_text('{"paper": "x"}')
    drafts = tmp_path / "db.drafts"
    drafts.mkdir()
    (drafts / "abc.json").write_text("{}")
    for target, what in ((state, "the UI-state file"), (drafts / "abc.json", "the note drafts")):
        result = run(*common, "export", "-o", str(target), "--force", "--format", "json")
        assert result.exit_code == 2, result.output
        assert what in result.output
    assert state.read_text() == '{"paper": "x"}'
    assert (drafts / "abc.json").read_text() == "{}"


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("papers.jsonl", '{"id": "2301.00001", "title": "Half \\udfff", "abstract": "We study \\ud83d things."}\n'),
        ("papers.json", '{"version": 1, "papers": [{"text": "We study \\udfff things.", "authors": ["A \\ud800"]}]}'),
    ],
)
def test_half_a_character_escaped_in_json_reads_as_a_replacement_character(tmp_path, write_file, name, content):
    papers = write_file(content, name)
    result = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "list", "--json")
    assert result.exit_code == 0, result.output  # before: UnicodeEncodeError hashing the abstract, a traceback
    (paper,) = json.loads(result.stdout)
    assert "We study \ufffd things." in paper["text"]


def test_a_csv_with_a_quoted_cell_never_closed_names_its_line_instead_of_reading_one_odd_title(tmp_path):
    papers = tmp_path / "list.csv"
    papers.write_text(
        'title,abstract\nFirst,We study graphs.\n"Second,We study trees.\nThird,We study rings.\n', encoding="utf-8"
    )
    shown = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "list")
    assert shown.exit_code == 2
    assert shown.output.strip().splitlines() == [
        f'readlist: {papers}: line 3: a quoted cell opened on this line is never closed (a " missing?), '
        "so every row after it would be read into it"
    ]
    papers.write_text('title,abstract\nA 5" screen,"We study ""quoted"" words."\n', encoding="utf-8")
    listed = run("--papers", str(papers), "--db", str(tmp_path / "db.json"), "list", "--json")
    assert listed.exit_code == 0, listed.output
    assert [row["title"] for row in json.loads(listed.output)] == ['A 5" screen']


def test_notes_exported_as_markdown_are_refused_as_a_paper_file_and_no_annotation_moves(tmp_path, write_file):
    """Opened as a paper file, the export's quoted abstracts took the star over (re-attached to them)."""
    papers = write_file("Header\n\nWe propose a sampler needing four steps.\n\nA benchmark of tables for QA.\n")
    db, exported = tmp_path / "db.json", tmp_path / "notes.md"
    common = ["--papers", str(papers), "--db", str(db)]
    assert run(*common, "star", "#1").exit_code == 0
    assert run(*common, "export", "--format", "md", "-o", str(exported)).exit_code == 0
    before = db.read_bytes()
    opened = run("--papers", str(exported), "--db", str(db), "list")
    assert opened.exit_code == 2
    assert opened.output.strip().splitlines() == [
        f"readlist: {exported}: is notes readlist exported (as Markdown, 1 paper(s)), not a paper file; "
        "open the paper file they were made from"
    ]
    assert db.read_bytes() == before
    assert "★" in run(*common, "list").output.splitlines()[0]
