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


def test_show_prints_the_record_its_named_links_and_where_the_title_comes_from(run):
    lines = run(FIXTURES / "arxiv-3.atom", "show", "#2").stdout.splitlines()
    assert lines[:6] == [
        TITLES[1],
        lines[1],
        "not starred · unread",
        "Ana Müller, Jane Doe, Jan van der Berg",
        "ICML 2023 · arXiv 2305.15786 · DOI 10.48550/arXiv.2305.15786",
        "title from the file",
    ]
    assert lines[-4:] == [
        "http://arxiv.org/pdf/2305.15786v2  PDF",
        "http://arxiv.org/abs/2305.15786v2  arXiv abstract page",
        "https://doi.org/10.48550/arXiv.2305.15786  DOI",
        "https://arxiv.org/abs/2305.15786  arXiv abstract page",
    ]
    plain = run(FIXTURES / "arxiv-3.txt", "show", "#1", "--json")  # given titles, ids from the sidecar
    assert run(FIXTURES / "arxiv-3.txt", "title", "#1", "Mine").exit_code == 0
    assert run(FIXTURES / "arxiv-3.txt", "show", "#1").stdout.splitlines()[3:5] == ["arXiv 2210.12590", "your title"]
    shown = json.loads(plain.stdout)
    assert shown["title_origin"] == "given"
    assert shown["links"] == [{"label": "arXiv abstract page", "url": "https://arxiv.org/abs/2210.12590"}]


def test_show_says_a_title_is_derived(run, tmp_path):
    papers = tmp_path / "abstracts.txt"
    papers.write_text("We study graphs and trees in depth. See https://example.org/code for code.\n", encoding="utf-8")
    result = run(papers, "show", "#1")
    assert result.stdout.splitlines()[3] == "title derived from the abstract"
    assert result.stdout.splitlines()[-1] == "https://example.org/code"  # a link in the abstract, as before
    assert json.loads(run(papers, "show", "#1", "--json").stdout)["title_origin"] == "derived"


def test_open_prints_or_opens_the_best_link(run, tmp_path, monkeypatch):
    assert run(FIXTURES / "arxiv-3.csv", "open", "#1", "--print").stdout == "https://arxiv.org/pdf/2210.12590\n"
    assert run(FIXTURES / "arxiv-3.jsonl", "open", "#1", "--print").stdout == "https://arxiv.org/abs/2210.12590\n"
    papers = tmp_path / "abstracts.txt"
    papers.write_text("Graph Rewiring\nWe study graphs and trees in depth.\n", encoding="utf-8")
    searched = run(papers, "open", "#1", "--print").stdout
    assert searched == "https://arxiv.org/search/?query=Graph+Rewiring&searchtype=all\n"
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    result = run(FIXTURES / "arxiv-3.csv", "open", "#2")
    assert result.exit_code == 0 and opened == ["https://arxiv.org/pdf/2305.15786"]
    monkeypatch.setattr("webbrowser.open", lambda url: False)
    result = run(FIXTURES / "arxiv-3.csv", "open", "#2")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == "readlist: found no browser to open https://arxiv.org/pdf/2305.15786 " \
                                             "(open --print prints the link)"  # fmt: skip


def test_open_refuses_a_web_search_setting_it_cannot_use_in_one_line(run, tmp_path, monkeypatch):
    papers = tmp_path / "abstracts.txt"
    papers.write_text("Graph Rewiring\nWe study graphs and trees in depth.\n", encoding="utf-8")
    monkeypatch.setenv("READLIST_WEB_SEARCH", "scholar")
    assert run(papers, "open", "#1", "--print").stdout == (
        "https://scholar.google.com/scholar?q=%22We+study+graphs+and+trees+in+depth%22\n"
    )
    monkeypatch.setenv("READLIST_WEB_SEARCH", "https://example.org/search")
    result = run(papers, "open", "#1", "--print")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("readlist: READLIST_WEB_SEARCH is ")
