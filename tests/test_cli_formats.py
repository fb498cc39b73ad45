"""`readlist --papers FILE` on every format, `--format` to override, and annotations shared between formats."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from readlist.cli import cli

FIXTURES = Path(__file__).parent / "fixtures"
TITLES = [
    "Meta-Reinforcement Learning for Building Energy Management System",
    "Theoretical Guarantees of Learning Ensembling Strategies with Applications to Time Series Forecasting",
    "Agent-OM: Leveraging LLM Agents for Ontology Matching",
]


@pytest.fixture
def run(tmp_path):
    db = tmp_path / "db.json"

    def invoke(papers: Path | str, *args: str):
        return CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), *args])

    return invoke


@pytest.mark.parametrize("extension", [".txt", ".csv", ".tsv"])
def test_list_shows_the_titles_each_format_gives(run, extension):
    result = run(FIXTURES / f"arxiv-3{extension}", "list")
    assert result.exit_code == 0, result.output
    assert [line.split("  ", 3)[3].strip() for line in result.stdout.splitlines()] == [
        f"unread   {title}" for title in TITLES
    ]


def test_format_option_overrides_the_extension_and_names_the_choices(run, tmp_path):
    copy = tmp_path / "exported.txt"
    shutil.copyfile(FIXTURES / "arxiv-3.csv", copy)
    assert len(run(copy, "list").stdout.splitlines()) == 1  # a text file of one paragraph
    ok = CliRunner().invoke(cli, ["--format", "CSV", "--papers", str(copy), "--db", str(tmp_path / "db.json"), "list"])
    assert ok.exit_code == 0, ok.output
    assert [line.split("unread   ")[1] for line in ok.stdout.splitlines()] == TITLES
    bad = CliRunner().invoke(cli, ["--format", "ris", "--papers", str(copy), "list"])
    assert bad.exit_code == 2 and "'ris' is not one of 'text'" in bad.output and "'csv'" in bad.output


def test_what_a_sidecar_cannot_use_is_said_on_stderr(run, tmp_path):
    papers = tmp_path / "list.txt"
    shutil.copyfile(FIXTURES / "arxiv-3.txt", papers)
    (tmp_path / "list.titles.tsv").write_text("2\tSecond\nffffffffffff\tNobody's\n", encoding="utf-8")
    result = run(papers, "list")
    assert result.exit_code == 0 and "Second" in result.stdout.splitlines()[1]
    assert result.stderr == f"readlist: {tmp_path / 'list.titles.tsv'}: 1 line(s) name no paper of the list " \
                            "('ffffffffffff')\n"  # fmt: skip


def test_unknown_columns_are_named_once_on_stderr(run):
    result = run(FIXTURES / "arxiv-3.csv", "list")
    assert result.exit_code == 0
    assert result.stderr.count("columns left out: 'Notes'") == 1
