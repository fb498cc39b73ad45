"""`list`, `search` and `export` over a new paper file: output starts before every title is derived, and a long
command says what it is doing on standard error when that is a terminal (and only then)."""

from __future__ import annotations

import gc
import json
import sys

import pytest
from click.testing import CliRunner

from readlist.cli import cli, progress
from readlist.cli.commands import export as export_command
from readlist.cli.commands import papers as papers_command
from readlist.core.papers import title_cache
from readlist.core.papers.reader import read_papers
from readlist.core.text.normalize import escape_controls_in_json
from readlist.core.titles import derive

SENTENCES = [
    "We propose a distilled diffusion sampler that needs four steps for image generation.",
    "Graph neural networks suffer from over-squashing; we rewire edges to improve message passing.",
    "We introduce a benchmark for reasoning over tables with large language models and tools.",
    "Curiosity bonuses help reinforcement learning agents explore environments with sparse rewards.",
]
COUNT = 40


@pytest.fixture
def papers_file(write_file):
    abstracts = [f"{SENTENCES[n % 4]} Variant {n} of the study, with its own results." for n in range(COUNT)]
    return write_file("A new list\n\n" + "\n\n".join(abstracts) + "\n")


@pytest.fixture
def derived(monkeypatch):
    """How many titles have been derived so far, and how many had been when each list line was made."""
    counts = {"derived": 0, "at_line": []}
    real_derive, real_line = derive.derive_title, papers_command.paper_line

    def counting_derive(plain):
        counts["derived"] += 1
        return real_derive(plain)

    def counting_line(*args):
        counts["at_line"].append(counts["derived"])
        return real_line(*args)

    monkeypatch.setattr(derive, "derive_title", counting_derive)
    monkeypatch.setattr(papers_command, "paper_line", counting_line)
    return counts


def run(papers_file, tmp_path, *args):
    return CliRunner().invoke(cli, ["--papers", str(papers_file), "--db", str(tmp_path / "db.json"), *args])


def test_list_of_a_new_file_prints_each_paper_as_its_title_is_derived_then_caches_them(papers_file, tmp_path, derived):
    result = run(papers_file, tmp_path, "list")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == COUNT
    assert derived["at_line"][:3] == [0, 1, 2]  # before: every title derived before the first line (40, 40, 40)
    fresh = read_papers(papers_file).papers
    assert title_cache.prime(fresh) and title_cache.complete(fresh)  # cached once all were printed
    again = run(papers_file, tmp_path, "list")
    assert again.stdout == result.stdout and derived["derived"] == COUNT  # read back, not derived again


@pytest.mark.parametrize("fmt", ["md", "json", "csv"])
def test_export_all_of_a_new_file_is_printed_as_it_is_made_and_reads_the_same(
    papers_file, tmp_path, fmt, derived, monkeypatch
):
    written = []  # titles derived when each piece of the export was written
    real_echo = export_command.click.echo

    def echo(message=None, **kwargs):
        written.append(derived["derived"])
        return real_echo(message, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(export_command.click, "echo", echo)
        result = run(papers_file, tmp_path, "export", "--all", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert written[0] <= 1 < written[-1]  # the heading and the first paper before every title was derived
    to_file = tmp_path / f"all.{fmt}"
    assert run(papers_file, tmp_path, "export", "--all", "--format", fmt, "-o", str(to_file)).exit_code == 0
    assert to_file.read_text(encoding="utf-8") == result.stdout  # the same text as written whole to a file
    if fmt == "json":
        assert len(json.loads(result.stdout)["papers"]) == COUNT


@pytest.mark.parametrize(
    ("args", "said"),
    [(["list"], "listing"), (["search", "graph"], "indexing"), (["export", "--all"], "exporting")],
)
def test_a_command_says_what_it_is_doing_on_a_terminal(papers_file, tmp_path, monkeypatch, args, said):
    quiet = run(papers_file, tmp_path, *args)
    monkeypatch.setattr(progress, "DELAY", 0)  # shown at once
    monkeypatch.setattr(progress, "is_terminal", lambda stream: stream is sys.stderr)  # stdout: a file or a pipe
    result = run(papers_file, tmp_path, *args)
    assert result.exit_code == 0, result.output
    assert f"reading {papers_file.name}" in result.stderr and said in result.stderr  # before: nothing
    assert result.stdout == quiet.stdout  # the output itself is the same


def test_no_progress_line_when_standard_error_is_not_a_terminal(papers_file, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0)
    for args in (["list"], ["search", "graph"], ["export", "--all"]):
        result = run(papers_file, tmp_path, *args)
        assert result.exit_code == 0 and result.stderr == ""


def test_no_progress_line_for_rows_printed_to_the_same_terminal(papers_file, tmp_path, monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0)
    monkeypatch.setattr(progress, "is_terminal", lambda stream: stream in (sys.stderr, sys.stdout))
    result = run(papers_file, tmp_path, "list")
    assert result.exit_code == 0
    assert "listing" not in result.stderr  # the rows themselves show how far it got


def test_list_json_is_the_text_the_whole_list_written_at_once_would_be(write_file, tmp_path):
    abstracts = [
        "Plain ASCII words on graph rewiring, wit- nessed at {G}raph scale.",
        "A DEL \x7f and a tab\tinside, all ASCII.",
        "Résumé of ε-greedy agents ★ with a bidi \u202e override and \x1b[31mcolour.",
        "- ab- cd and pre- and- post, naïve- ly \\frac{a}{b} x{y}z.",
    ]
    papers = write_file("A list\n\n" + "\n\n".join(abstracts) + "\n")
    result = run(papers, tmp_path, "list", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["text"] for row in rows][1:3] == abstracts[1:3]  # every character read back exactly
    whole = json.dumps(rows, ensure_ascii=False, indent=2)
    assert result.stdout == escape_controls_in_json(whole) + "\n"
    assert "\\u007f" in result.stdout and "\\u202e" in result.stdout and "\\u001b" in result.stdout


def test_list_leaves_the_collector_as_it_found_it(papers_file, tmp_path):
    gc.unfreeze()
    for args in (["list"], ["list", "--json"]):
        assert run(papers_file, tmp_path, *args).exit_code == 0
        assert gc.get_freeze_count() == 0  # what it froze while printing is collected again by a caller going on
