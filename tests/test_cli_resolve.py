"""`readlist resolve` end to end, through the command's entry point, against local stand-ins of the services."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner
from resolve_fakes import Answer, ArxivEntry, ArxivService, Services, atom_feed, dblp_json, sample_papers

from readlist.cli import cli
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store

PAPERS = {p["number"]: p for p in sample_papers()}
CHOSEN = [PAPERS[1], PAPERS[2], PAPERS[3]]
DISTILL, REFLECTIVE = PAPERS[3923], PAPERS[3910]  # two abstracts by the same authors, sharing whole sentences


def entry(paper: dict) -> ArxivEntry:
    return ArxivEntry(paper["arxiv_id"], paper["title"], paper["abstract"], category=paper["category"])


@pytest.fixture
def services(monkeypatch):
    # No pacing between requests: these tests ask a local server, and pacing has tests of its own.
    monkeypatch.setattr("readlist.core.resolve.settings.MIN_INTERVAL", {"arxiv": 0, "dblp": 0, "s2": 0, "openalex": 0})
    with Services() as running:
        yield running


def papers_file(tmp_path, papers: list[dict]):
    path = tmp_path / "papers.txt"
    path.write_text("\n\n".join(p["abstract"] for p in papers) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def run(tmp_path, services):
    papers = papers_file(tmp_path, CHOSEN)
    db = tmp_path / "data" / "readlist.json"

    def invoke(*args: str, env: dict | None = None):
        args = ("--papers", str(papers), "--db", str(db), *args)
        return CliRunner().invoke(cli, args, env={**services.env(), **(env or {})})

    invoke.db = db
    invoke.ids = [paper.id for paper in read_papers(papers).papers]
    return invoke


def listed(run) -> list[dict]:
    result = run("list", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def saved(run) -> dict:
    return Store(run.db).resolutions() if run.db.exists() else {}


def test_found_papers_show_their_real_titles_authors_and_links_in_list_show_and_export(run, services):
    first = CHOSEN[0]
    hit = {"title": first["title"], "authors": ["Ada Lovelace"], "venue": "ICML", "year": 2025, "key": "conf/icml/L25"}
    services.dblp.app = lambda request: Answer(body=dblp_json([hit] if request.params["q"] == first["title"] else []))
    before = [paper["title"] for paper in listed(run)]
    result = run("resolve", "--all")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "3 found · 0 possible · 0 not found"
    assert f"#1  {run.ids[0]}  found      {first['title']} (arxiv+dblp)" in result.stdout
    assert [paper["title"] for paper in listed(run)] == [p["title"] for p in CHOSEN] != before
    shown = json.loads(run("show", "#1", "--json").stdout)
    assert (shown["found_title"], shown["found_by"], shown["venue"], shown["year"]) == (
        first["title"], "arxiv+dblp", "ICML", 2025
    )  # fmt: skip
    assert shown["authors"] == ["Ada Lovelace", "Alan Turing"] and shown["arxiv_id"] == first["arxiv_id"]
    assert shown["pdf_url"] == f"http://arxiv.org/pdf/{first['arxiv_id']}v2"
    assert first["title"] in run("show", "#1").stdout
    exported = json.loads(run("export", "--format", "json", "--all").stdout)
    papers = exported["papers"] if isinstance(exported, dict) else exported
    assert [(p["title"], p["found_title"], p["authors"][0]) for p in papers] == [
        (p["title"], p["title"], "Ada Lovelace") for p in CHOSEN
    ]
    search = run("search", "--json", "title:" + CHOSEN[1]["title"].split()[0])
    assert CHOSEN[1]["title"] in [row["title"] for row in json.loads(search.stdout)]


def test_the_users_own_title_stays_over_the_found_one(run):
    assert run("title", "#2", "My", "own", "name").exit_code == 0
    assert run("resolve", "#2").exit_code == 0
    assert listed(run)[1]["title"] == "My own name"
    assert run("title", "#2", "--clear").exit_code == 0
    assert listed(run)[1]["title"] == CHOSEN[1]["title"]


def test_a_paper_not_found_is_kept_as_such_and_asked_again_only_with_retry(run, services):
    services.arxiv.app = ArxivService([])
    result = run("resolve", "#1", "#2")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "0 found · 0 possible · 2 not found"
    assert {r.status.value for r in saved(run).values()} == {"not found"}
    asked = len(services.arxiv.requests)
    again = run("resolve", "#1", "#2")
    assert len(services.arxiv.requests) == asked  # cached: nothing sent
    assert again.stdout.splitlines()[-1] == (
        "0 found · 0 possible · 0 not found · 2 looked up before (--retry asks again for those not found)"
    )
    services.arxiv.app = ArxivService([entry(p) for p in CHOSEN])
    retried = run("resolve", "#1", "#2", "--retry")
    assert retried.stdout.splitlines()[-1] == "2 found · 0 possible · 0 not found"
    assert [paper["title"] for paper in listed(run)][:2] == [CHOSEN[0]["title"], CHOSEN[1]["title"]]


def test_a_near_miss_is_only_a_candidate_until_accepted(tmp_path, services):
    papers = papers_file(tmp_path, [DISTILL])
    db = tmp_path / "readlist.json"
    feed = atom_feed([entry(REFLECTIVE)])  # every search answered with the other paper
    services.arxiv.app = lambda request: Answer(body=feed, content_type="application/atom+xml")

    def run(*args):
        return CliRunner().invoke(cli, ["--papers", str(papers), "--db", str(db), *args], env=services.env())

    derived = json.loads(run("list", "--json").stdout)[0]["title"]
    result = run("resolve", "#1")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "0 found · 1 possible · 0 not found"
    assert "1 candidate, best 0." in result.stdout and REFLECTIVE["title"] in result.stdout
    assert json.loads(run("list", "--json").stdout)[0]["title"] == derived  # a guess is never applied
    shown = run("resolve", "--show", "#1")
    assert shown.exit_code == 0, shown.output
    assert "possible" in shown.stdout and "1. 0." in shown.stdout and REFLECTIVE["title"] in shown.stdout
    assert f"arXiv {REFLECTIVE['arxiv_id']}" in shown.stdout
    refused = run("resolve", "--accept", "#1", "2")
    assert refused.exit_code == 2 and "no candidate 2: there are 1" in refused.stderr
    accepted = run("resolve", "--accept", "#1", "1")
    assert accepted.exit_code == 0, accepted.output
    assert json.loads(run("list", "--json").stdout)[0]["title"] == REFLECTIVE["title"]
    as_json = json.loads(run("resolve", "--show", "#1", "--json").stdout)
    assert as_json["status"] == "found" and as_json["match"]["verified"] is True


def test_forget_drops_what_was_found(run):
    assert run("resolve", "#1").exit_code == 0
    assert listed(run)[0]["title"] == CHOSEN[0]["title"]
    result = run("resolve", "--forget", "#1")
    assert result.exit_code == 0, result.output
    assert "forgotten (found: " in result.stdout
    paper = listed(run)[0]
    assert paper["title"] != CHOSEN[0]["title"] and "found_title" not in paper and "authors" not in paper
    assert saved(run) == {}
    again = run("resolve", "--forget", "#1")
    assert again.exit_code == 1 and "nothing was found for it" in again.stderr
    assert run("resolve", "--show", "#1").exit_code == 1


def test_a_dry_run_sends_and_prints_but_saves_nothing(run, services):
    assert run("star", "#3").exit_code == 0
    before = run.db.read_bytes()
    result = run("resolve", "--all", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "3 found · 0 possible · 0 not found (dry run: nothing saved)"
    assert CHOSEN[0]["title"] in result.stdout and services.arxiv.requests
    assert run.db.read_bytes() == before
    assert CHOSEN[0]["title"] not in [paper["title"] for paper in listed(run)]


def test_a_dry_run_without_a_database_makes_none(run):
    assert run("resolve", "#1", "--dry-run").exit_code == 0
    assert not run.db.exists()


def test_nothing_is_sent_unless_papers_are_named(run, services):
    result = run("resolve")
    assert result.exit_code == 2
    assert result.stderr.startswith("readlist: resolve: name the papers to look up (REF..., --all or -q QUERY)")
    assert len(result.stderr.splitlines()) == 1
    for args in (("#1", "--all"), ("--all", "-q", "x"), ("--show", "#1", "--all"), ("--forget", "#1", "#2")):
        refused = run("resolve", *args)
        assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1, args
    assert not services.arxiv.requests and not run.db.exists()


def test_a_query_chooses_the_papers_looked_up(run, services):
    result = run("resolve", "-q", f'"{" ".join(CHOSEN[1]["abstract"].split()[:6])}"')
    assert result.exit_code == 0, result.output
    assert list(saved(run)) == [run.ids[1]]
    bad = run("resolve", "-q", 'title:"')
    assert bad.exit_code == 2 and bad.stderr.startswith("readlist: -q: ")


def test_a_query_with_no_words_sends_nothing_rather_than_every_paper(run, services):
    for query in ("title:", '""', "is:missing"):
        result = run("resolve", "-q", query)
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, query
    assert not services.arxiv.requests and not run.db.exists()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_source_that_cannot_be_reached_is_one_line_and_changes_nothing(run, services):
    services.arxiv.app = ArxivService([])
    assert run("resolve", "#1").exit_code == 0  # not found, kept
    before = saved(run)
    port = closed_port()
    down = {"READLIST_ARXIV_URL": f"http://127.0.0.1:{port}/api/query"}
    result = run("resolve", "--all", "--retry", "--source", "arxiv", env=down)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"readlist: 127.0.0.1:{port}: given up after 3 failed requests in a row (last: connection refused); "
        "3 papers not looked up there"
    ]
    assert "Traceback" not in result.output
    assert result.stdout.splitlines()[-1] == "0 found · 0 possible · 0 not found · 3 failed"
    assert saved(run) == before


def test_two_sources_on_one_host_count_each_paper_once_in_its_line(run, services):
    port = closed_port()  # a mirror answering for arXiv and Semantic Scholar, down
    down = {
        "READLIST_ARXIV_URL": f"http://127.0.0.1:{port}/api/query",
        "READLIST_S2_URL": f"http://127.0.0.1:{port}/s2",
    }
    result = run("resolve", "--all", "--source", "arxiv", "--source", "s2", env=down)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.endswith("; 3 papers not looked up there"), line


def test_an_html_page_instead_of_an_answer_is_one_line_per_host(run, services):
    services.arxiv.app = lambda request: Answer(body="<html>Log in to the Wi-Fi</html>", content_type="text/html")
    result = run("resolve", "#1", "#2", "--source", "arxiv")
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"readlist: {services.arxiv.host}: an HTML page")
    assert line.endswith("; 2 papers not looked up there")
    assert saved(run) == {}


def test_a_source_missing_a_venue_is_said_but_the_paper_is_found(run, services):
    services.dblp.app = lambda request: Answer(status=404, body="no")
    result = run("resolve", "#1")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"readlist: {services.dblp.host}: HTTP 404")
    assert [r.status.value for r in saved(run).values()] == ["found"]


def test_sources_that_search_for_nothing_are_refused_rather_than_called_not_found(run, services):
    for sources in (["dblp"], ["openalex"], ["dblp", "openalex"]):
        result = run("resolve", "#1", *(f"--source={name}" for name in sources))
        assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, sources
        assert "none of arxiv, s2, openalex would be asked" in result.stderr
    assert "READLIST_OPENALEX_KEY" in result.stderr
    assert saved(run) == {} and not services.dblp.requests
    keyed = run("resolve", "#1", "--source", "openalex", env={"READLIST_OPENALEX_KEY": "k"})
    assert keyed.exit_code == 0 and services.openalex.requests


def test_a_bad_setting_is_one_line(run, services):
    result = run("resolve", "#1", env={"READLIST_ARXIV_URL": "ftp://example.org"})
    assert result.exit_code == 2
    assert result.stderr == "readlist: READLIST_ARXIV_URL is not an http(s) URL: 'ftp://example.org'\n"


def test_latex_and_unicode_titles_arrive_as_text(tmp_path, services):
    paper = dict(PAPERS[119])
    feed = atom_feed([ArxivEntry(paper["arxiv_id"], "Über $\\textit{New News}$ — a test", paper["abstract"],
                                 authors=("Jürgen Schmidhuber", "Zoë Ö"))])  # fmt: skip
    services.arxiv.app = lambda request: Answer(body=feed, content_type="application/atom+xml")
    papers = papers_file(tmp_path, [paper])
    db = tmp_path / "readlist.json"
    args = ["--papers", str(papers), "--db", str(db)]
    assert CliRunner().invoke(cli, [*args, "resolve", "#1"], env=services.env()).exit_code == 0
    shown = json.loads(CliRunner().invoke(cli, [*args, "show", "#1", "--json"]).stdout)
    assert shown["authors"] == ["Jürgen Schmidhuber", "Zoë Ö"]
    assert "Über" in shown["title"] and "\\textit" not in shown["title"]


# ----- stopping a run: Ctrl+C, and a kill -------------------------------------------------------------------


def start_run(tmp_path, services, papers: list[dict]) -> tuple[subprocess.Popen, object]:
    """`readlist resolve --all` in a process of its own, paced as it is for real (3 s between arXiv requests),
    so that it is still running once its first paper is saved."""
    path, db = papers_file(tmp_path, papers), tmp_path / "readlist.json"
    args = [sys.executable, "-m", "readlist", "--papers", str(path), "--db", str(db), "resolve", "--all"]
    process = subprocess.Popen(args, env={**os.environ, **services.env()}, stdout=subprocess.PIPE, text=True)
    return process, db


def wait_for_saved(db, process, at_least: int = 1) -> int:
    """How many resolutions the database holds, once it holds `at_least` (read as another program would)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it was stopped"
        try:
            held = len(json.loads(db.read_bytes()).get("resolutions", {}))
        except (OSError, ValueError):
            held = 0
        if held >= at_least:
            return held
        time.sleep(0.02)
    raise AssertionError("nothing was saved")


@pytest.mark.slow
def test_the_database_survives_a_kill_in_the_middle_of_a_run_and_the_next_run_goes_on(tmp_path, services):
    chosen = [PAPERS[1], PAPERS[2], PAPERS[3], PAPERS[119]]
    process, db = start_run(tmp_path, services, chosen)
    try:
        held = wait_for_saved(db, process)
    finally:
        process.kill()
        process.communicate()
    store = Store(db)
    assert store.notices == [] and not store.blocked
    assert len(store.resolutions()) == held and {r.status.value for r in store.resolutions().values()} == {"found"}
    asked = len(services.arxiv.requests)
    args = ["--papers", str(tmp_path / "papers.txt"), "--db", str(db), "resolve", "--all"]
    rerun = CliRunner().invoke(cli, args, env=services.env())
    assert rerun.exit_code == 0, rerun.output
    assert rerun.stdout.splitlines()[-1] == (
        f"{len(chosen) - held} found · 0 possible · 0 not found · {held} looked up before "
        "(--retry asks again for those not found)"
    )
    assert len(services.arxiv.requests) >= asked + len(chosen) - held
    assert len(Store(db).resolutions()) == len(chosen)


@pytest.mark.slow
def test_ctrl_c_stops_a_run_keeping_what_was_found(tmp_path, services):
    process, db = start_run(tmp_path, services, [PAPERS[1], PAPERS[2], PAPERS[3]])
    try:
        held = wait_for_saved(db, process)
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=20)
    finally:
        process.kill()
    assert process.returncode == 130
    assert out.splitlines()[-1] == (
        f"stopped: {held} found · 0 possible · 0 not found · {3 - held} left (run it again to go on)"
    )
    assert len(Store(db).resolutions()) == held


def test_a_word_only_the_found_title_holds_finds_the_paper(run):
    def title_only(paper: dict) -> str:
        abstract = paper["abstract"].lower()
        return next(word for word in paper["title"].lower().split() if word.isalpha() and word not in abstract)

    word = title_only(CHOSEN[1])
    assert run("search", "--json", word).exit_code == 1  # not in any abstract: nothing yet
    assert run("resolve", "--all").exit_code == 0
    search = run("search", "--json", word)
    assert search.exit_code == 0, search.output
    assert next(row["title"] for row in json.loads(search.stdout)) == CHOSEN[1]["title"]
