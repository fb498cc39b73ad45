"""`readlist --papers FILE` on every format, `--format` to override, and annotations shared between formats."""

from __future__ import annotations

import json
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


@pytest.mark.parametrize("extension", [".txt", ".bib", ".atom", ".jsonl", ".csv", ".tsv", ".json"])
def test_list_shows_the_titles_each_format_gives(run, extension):
    result = run(FIXTURES / f"arxiv-3{extension}", "list")
    assert result.exit_code == 0, result.output
    assert [line.split("  ", 3)[3].strip() for line in result.stdout.splitlines()] == [
        f"unread   {title}" for title in TITLES
    ]


def test_show_json_carries_the_record_fields(run):
    shown = json.loads(run(FIXTURES / "arxiv-3.bib", "show", "#2", "--json").stdout)
    assert shown["authors"] == ["Ana Müller", "Jane Doe", "Jan van der Berg"]
    assert (shown["year"], shown["venue"], shown["arxiv_id"]) == (2023, "International Conference on Machine Learning",
                                                                  "2305.15786")  # fmt: skip
    assert "pdf_url" not in shown  # absent stays absent


def test_a_star_given_in_the_text_file_shows_in_the_bibtex_file(run):
    assert run(FIXTURES / "arxiv-3.txt", "star", "#1").exit_code == 0
    assert run(FIXTURES / "arxiv-3.txt", "tag", "#2", "+ensembles").exit_code == 0
    starred = json.loads(run(FIXTURES / "arxiv-3.bib", "list", "--starred", "--json").stdout)
    assert [paper["title"] for paper in starred] == [TITLES[0]]
    tagged = json.loads(run(FIXTURES / "arxiv-3.csv", "list", "--tag", "ensembles", "--json").stdout)
    assert [paper["title"] for paper in tagged] == [TITLES[1]]


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


def test_a_bad_entry_is_one_line_and_exit_2(run, tmp_path):
    bad = tmp_path / "refs.bib"
    bad.write_text("@article{ok, title = {Fine}}\n\n@article{broken, title = {never closed\n", encoding="utf-8")
    result = run(bad, "list")
    assert result.exit_code == 2
    assert result.stderr == f"readlist: {bad}: line 3: not a BibTeX entry (Unexpectedly reached end of file.)\n"


def test_duplicate_records_are_counted_as_records(run, tmp_path):
    papers = tmp_path / "dups.jsonl"
    papers.write_text('{"abstract": "We study A."}\n{"abstract": "We study A."}\n', encoding="utf-8")
    result = run(papers, "list")
    assert result.exit_code == 0
    assert f"readlist: {papers}: dropped 1 duplicate record(s)" in result.stderr
