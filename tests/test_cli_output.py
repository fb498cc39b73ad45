"""What `list` and `list --json` print of many papers, written a few hundred at a time: the same text as each paper
printed alone (control characters, bidi marks, LaTeX, a lone surrogate, a terminal's encoding lacking a character);
and an abstract made plain with its spaces normalised once."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from readlist.cli import cli, output
from readlist.cli.commands import papers as papers_command
from readlist.core.text import normalize
from readlist.core.text.normalize import escape_controls_in_json

TRICKY = [
    "Plain ASCII words on graph rewiring, wit- nessed at {G}raph scale.",
    "A DEL \x7f and a tab\tinside, all ASCII, and a bell \x07 rung.",
    "Résumé of ε-greedy agents ★ with a bidi \u202e override and \x1b[31mcolour\x1b[0m.",
    "- ab- cd and pre- and- post, naïve- ly \\frac{a}{b} x{y}z, $\\alpha$-stable and $\\epsilon$ at $5 and $6.",
    "Soft\xadhyphen, a byte-order mark \ufeff, a line separator \u2028 and a C1 \x85 \x9b control.",
    "中文 and café, Ελληνικά, and a tag character \U000e0041 hidden.",
    "Naïve café crème, in Latin-1 whole.",
    "Links kept whole: https://x.org/a_b~c and \\url{https://y.org/d} with **bold** and `code`.",
]
COUNT = 600  # past two of the batches the rows are written in


@pytest.fixture
def many(tmp_path):
    """COUNT papers, the tricky abstracts among plain ones, and a database with a star, tags and notes."""
    papers = tmp_path / "many.txt"
    abstracts = [f"{TRICKY[n % len(TRICKY)]} Study {n} of the list." for n in range(COUNT)]
    papers.write_text("\n\n".join(abstracts) + "\n", encoding="utf-8")
    db = tmp_path / "db.json"

    def invoke(*args: str):
        return CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), *args])

    for args in (
        ["star", "#3"],
        ["tag", "#3", "+ε", "+x\x1b[31my"],
        ["note", "#300", "--text", "a \x1b[31mred\x1b[0m note ★ with a tab\t and \u202e"],
        ["status", "#2", "read"],
    ):
        assert invoke(*args).exit_code == 0, args
    invoke.papers, invoke.db = papers, db
    return invoke


def one_at_a_time(rows: list, fits) -> str:
    """The text of `echo_json` of each row alone, indented as an item of a list: what `list --json` writes."""
    texts = []
    for row in rows:
        text = json.dumps(row, ensure_ascii=False, indent=2)
        text = escape_controls_in_json(text) if fits(text) else json.dumps(row, indent=2)
        texts.append("\n  " + text.replace("\n", "\n  "))
    return "[" + ",".join(texts) + "\n]\n"


def fits(encoding: str):
    """Whether a text's every character is in `encoding`, as `fits_stdout` tells of standard output's."""

    def encodes(text: str) -> bool:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            return False
        return True

    return encodes


def test_list_json_of_many_tricky_papers_is_each_paper_as_echo_json_writes_it(many):
    result = many("list", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert len(rows) == COUNT and rows[2]["tags"] == ["ε", "xy"] and rows[299]["note"].startswith("a \x1b")
    assert [row["text"] for row in rows[: len(TRICKY)]] == [f"{text} Study {n} of the list." for n, text in
                                                            enumerate(TRICKY)]  # fmt: skip
    assert result.stdout == one_at_a_time(rows, fits("utf-8"))
    for escaped in ("\\u007f", "\\u202e", "\\u001b", "\\u00ad", "\\ufeff", "\\u2028", "\\u0085", "\\udb40\\udc41"):
        assert escaped in result.stdout


def test_json_list_items_orjson_refuses_are_each_as_echo_json_writes_it():
    items = [{"n": n, "text": TRICKY[n % len(TRICKY)]} for n in range(600)]
    items[300]["text"] = "caf" + b"\xe9".decode("utf-8", "surrogateescape")  # a lone surrogate: orjson refuses it
    with CliRunner().isolation() as (out, _, _):
        output.echo_json_list(iter(items))
        sys.stdout.flush()
        written = out.getvalue().decode()
    assert written == one_at_a_time(items, fits("utf-8")) and "\\udce9" in written
    with CliRunner().isolation() as (out, _, _):
        output.echo_json_list(iter([]))
        sys.stdout.flush()
        assert out.getvalue() == b"[]\n"


def test_list_json_where_the_terminal_lacks_characters_is_each_paper_as_echo_json_writes_it(many):
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    command = [sys.executable, "-m", "readlist", "--papers", str(many.papers), "--db", str(many.db), "list", "--json"]
    done = subprocess.run(command, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    text = done.stdout.decode("latin-1")
    rows = json.loads(text)
    assert len(rows) == COUNT and rows[2]["text"].startswith("Résumé of ε-greedy agents ★")
    assert "\\u2605" in text and "Naïve café crème" in text  # what the encoding lacks as escapes, else as it is
    assert text == one_at_a_time(rows, fits("latin-1"))


def test_list_json_looks_for_control_characters_once_a_batch_not_once_a_paper(many, monkeypatch):
    calls = []
    real = output.escape_controls_in_json
    monkeypatch.setattr(output, "escape_controls_in_json", lambda text: calls.append(len(text)) or real(text))
    result = many("list", "--json")
    assert result.exit_code == 0 and len(json.loads(result.stdout)) == COUNT
    assert len(calls) <= 6  # three batches, each looked at once and escaped once (before: once a paper, 600)


def test_list_is_each_paper_on_its_line_written_a_few_hundred_at_a_time(many, monkeypatch):
    made, echoed = [], []
    real_line, real_echo = papers_command.paper_line, click.echo
    monkeypatch.setattr(papers_command, "paper_line", lambda *args: made.append(real_line(*args)) or made[-1])
    monkeypatch.setattr(
        click, "echo", lambda message=None, **kwargs: echoed.append(message) or real_echo(message, **kwargs)
    )
    result = many("list")
    assert result.exit_code == 0
    assert result.stdout == "".join(line + "\n" for line in made) and len(made) == COUNT
    assert len(echoed) <= 3  # before: one a line, 600
    lines = result.stdout.splitlines()
    assert lines[1].split()[2] == "read" and "★ unread" in lines[2] and lines[2].endswith("  #ε #xy")
    assert all("\x1b" not in line and "\u202e" not in line and "\x7f" not in line for line in lines)


def test_a_plain_abstract_is_made_plain_normalising_its_spaces_once(monkeypatch):
    calls = []
    real = normalize.normalize_ws
    monkeypatch.setattr(normalize, "normalize_ws", lambda text: calls.append(text) or real(text))
    assert normalize.to_plain("We  study\ngraph rewiring at scale.") == "We study graph rewiring at scale."
    assert len(calls) == 1  # before: twice, the second time over the text the first gave back
    calls.clear()
    assert normalize.to_plain("A bound $\\alpha$ and\n**bold**  words") == "A bound α and bold words"
    assert len(calls) == 2  # a step changed the text: normalised again


@pytest.mark.parametrize(
    "text, plain",
    [
        ("wit- nessed  at {G}raph\tscale", "witnessed at Graph scale"),
        ("$\\alpha$ ~\\cite{x} and Models~(LLMs)", "α ~<cit.> and Models (LLMs)"),
        ("see https://x.org/a_b~c and *emph*", "see https://x.org/a_b~c and emph"),
        ("a \x1b[31mred\x1b[0m \u202e word\u2003 here ", "a red word here"),
        ("e\u0301t\xe9  caf\u0065\u0301", "été café"),
        ("$5 and $6 per item, \\emph{x}", "$5 and $6 per item, x"),
    ],
)
def test_to_plain_gives_the_text_it_gave(text, plain):
    assert normalize.to_plain(text) == plain


def test_list_without_a_filter_asks_nothing_of_the_annotations(many, monkeypatch):
    everything = many("list").stdout
    monkeypatch.setattr(papers_command, "_keep", lambda *args: pytest.fail("a filter asked of an annotation"))
    result = many("list")  # before: each of the 600 annotations asked whether to keep it
    assert result.exit_code == 0 and result.stdout == everything
    monkeypatch.undo()
    assert len(many("list", "--tag", "ε").stdout.splitlines()) == 1


class NotLookedUp(str):
    """A text whose characters must not be looked up one at a time (`str.isprintable`)."""

    def isprintable(self) -> bool:
        raise AssertionError("each character looked up")


def test_ascii_text_is_checked_for_control_characters_as_bytes_with_the_same_answers():
    text = NotLookedUp("A plain ASCII abstract on graph rewiring, with (brackets) and ~ tildes.")
    assert normalize.strip_control(text) == text  # before: each character looked up by isprintable
    assert normalize.escape_controls_in_json(NotLookedUp('[\n  "a"\n]')) == '[\n  "a"\n]'
    for code in [*range(0x3000), *range(0xE0000, 0xE0080), 0xFEFF, 0xFFFD, 0x1F600]:
        for text in (chr(code), f"a{chr(code)}b\n", f"\n{chr(code)}"):
            slow = normalize._CONTROL.sub("", normalize._ESCAPE_SEQUENCE.sub("", text).replace("\t", " "))
            assert normalize.strip_control(text) == slow, hex(code)
            escaped = normalize.escape_controls_in_json(text)
            assert escaped == normalize._CONTROL.sub(normalize._json_escape, text), hex(code)
            if not 0xD800 <= code < 0xE000:  # a lone surrogate is no UTF-8
                assert normalize.controls_in_utf8_json(text.encode()) == (escaped != text), hex(code)


LEAVE = """
import atexit, sys
class Loud:
    def __del__(self):
        print("freed", file=sys.stderr)
kept = Loud()  # freed at a normal exit, as the papers and annotations a command read were, one at a time
atexit.register(print, "exit functions ran", file=sys.stderr)
from readlist.cli import main
sys.argv = ["readlist", "--db", sys.argv[1], *sys.argv[2:]]
main()
"""


def test_a_command_ends_without_freeing_what_it_read_one_object_at_a_time(tmp_path):
    """Freeing 100,000 papers and annotations at exit took 0.1-0.25 s of each command: the process now ends once its
    output is written and the exit functions ran, with the status it had."""
    db = str(tmp_path / "db.json")
    listed = CliRunner().invoke(cli, ["--db", db, "list"]).output
    done = subprocess.run([sys.executable, "-c", LEAVE, db, "list"], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, listed)
    assert "exit functions ran" in done.stderr and "freed" not in done.stderr
    done = subprocess.run([sys.executable, "-c", LEAVE, db, "show", "#0"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.startswith("readlist: '#0': no paper #0")
    assert "exit functions ran" in done.stderr and "freed" not in done.stderr


def test_a_command_runs_without_the_cyclic_collector_and_enables_it_again(tmp_path, monkeypatch):
    """Each of the collector's passes walked every paper and annotation a command read (0.2-0.5 s of a command over
    100,000 annotated papers); a caller going on afterwards (a test invoking commands in turn) collects again."""
    from readlist.cli import context

    papers = tmp_path / "papers.txt"
    papers.write_text("\n\n".join(f"Paper {n} on graphs and their neural networks, number {n}." for n in range(3000)))
    env = ["--papers", str(papers), "--db", str(tmp_path / "db.json")]
    collecting = []  # whether the collector was on as each command read its papers
    read = context.load_papers
    monkeypatch.setattr(context, "load_papers", lambda *args: collecting.append(gc.isenabled()) or read(*args))
    for args in (["star", "#1"], ["list"], ["search", "graph"], ["unstar", "#1"]):
        result = CliRunner().invoke(cli, [*env, *args])
        assert result.exit_code == 0, result.output
        assert collecting[-1] is False and gc.isenabled(), args
