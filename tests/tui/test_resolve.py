"""Finding papers online from the terminal UI (`F`, the palette, `A`), against local stand-ins of the services."""

from __future__ import annotations

import threading

import pytest
from resolve_fakes import Answer, Services, sample_papers

from readlist.core.papers.reader import read_papers
from readlist.core.resolve.records import Match, Resolution, Status
from readlist.core.store.store import Store
from readlist.tui.app import ReadlistApp
from readlist.tui.display import STICKY
from readlist.tui.screens.dialogs.candidates import CandidatesScreen
from readlist.tui.screens.dialogs.confirm import ConfirmScreen

from .conftest import (
    notifications,
    run_from_palette,
    screen_text,
    settle,
    wait_for_screen,
    wait_until,
    widget_text,
)

PAPERS = {p["number"]: p for p in sample_papers()}
CHOSEN = [PAPERS[1], PAPERS[2], PAPERS[3]]


@pytest.fixture
def services(monkeypatch):
    # No pacing between requests: the services are local, and pacing has tests of its own.
    monkeypatch.setattr("readlist.core.resolve.settings.MIN_INTERVAL", {"arxiv": 0, "dblp": 0, "s2": 0, "openalex": 0})
    with Services() as running:
        for name, value in running.env().items():
            monkeypatch.setenv(name, value)
        yield running


def make_app(tmp_path, possible: tuple[str, ...] = ()) -> ReadlistApp:
    """The app on the three papers; the first one `possible` when candidate titles are given."""
    path = tmp_path / "papers.txt"
    path.write_text("\n\n".join(p["abstract"] for p in CHOSEN) + "\n", encoding="utf-8")
    papers = read_papers(path)
    if possible:
        candidates = tuple(
            Match(title, "arxiv", authors=("Grace Hopper",), arxiv_id=f"2501.0000{n}", score=0.64 - n / 100)
            for n, title in enumerate(possible)
        )
        resolution = Resolution(papers.papers[0].id, Status.POSSIBLE, candidates=candidates)
        Store(tmp_path / "db.json").keep_resolutions([resolution])
    return ReadlistApp(papers, tmp_path / "db.json", cursor_blink=False)


def messages(app) -> list[str]:
    return [n.message for n in notifications(app)]


def header(app) -> str:
    return widget_text(app, "#status")


def asked(services) -> int:
    return sum(len(server.requests) for server in (services.arxiv, services.dblp, services.s2, services.openalex))


async def find_view_from_the_palette(pilot) -> None:
    await run_from_palette(pilot, "view online")


@pytest.fixture
def hold_arxiv(services):
    """`hold_arxiv(n)`: arXiv answers its first n requests; the next ones wait until the event returned is set (at
    the latest when the test ends)."""
    gates: list[threading.Event] = []

    def hold(answered: int) -> threading.Event:
        service, gate = services.arxiv.app, threading.Event()
        gates.append(gate)

        def held(request):
            if len(services.arxiv.requests) > answered:
                gate.wait(20)
            return service(request)

        services.arxiv.app = held
        return gate

    yield hold
    for gate in gates:
        gate.set()


async def test_F_finds_the_paper_online_and_the_list_and_detail_show_it_nothing_sent_before(tmp_path, services):
    app = make_app(tmp_path)
    paper = CHOSEN[1]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert asked(services) == 0  # opening the list sends nothing
        await pilot.press("j", "F")
        await wait_until(pilot, lambda: "1 found · 0 possible · 0 not found" in messages(app), "the summary")
        shown = screen_text(app)
        assert f"│ ○ 2025 Lovelace  {paper['title'][:24]}" in shown  # its row, its year and first author in the column
        detail = widget_text(app, "#detail-body")
        assert detail.startswith(f"{paper['title']} title found on arXiv")
        assert "Ada Lovelace, Alan Turing 2025 · arXiv 2305.15786" in detail
        assert app.papers.papers[1].pdf_url == f"http://arxiv.org/pdf/{paper['arxiv_id']}v2"  # what `o` opens
        assert app.main_screen.current_paper.id == app.papers.papers[1].id  # the cursor stayed on its paper
        assert "resolving" not in header(app)
        resolutions = Store(tmp_path / "db.json").resolutions()
        assert [r.status for r in resolutions.values()] == [Status.FOUND]  # this paper only
        assert services.arxiv.requests and all(
            "readlist/" in request.headers["user-agent"] for request in services.arxiv.requests
        )


async def test_the_view_is_found_paper_by_paper_and_esc_stops_keeping_what_was_found(tmp_path, hold_arxiv):
    gate = hold_arxiv(1)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await find_view_from_the_palette(pilot)
        await wait_until(pilot, lambda: "resolving 1/3" in header(app), "the header counting the papers")
        assert CHOSEN[0]["title"][:40] in screen_text(app)  # the first paper's title, while the second waits
        assert app.main_screen.current_paper.id == app.papers.papers[0].id
        await pilot.press("escape")
        assert "stopping 1/3" in header(app)
        gate.set()  # the answer waited for arrives; the paper it was for is not taken
        stopped = "Stopped: 1 found · 0 possible · 0 not found · 2 left (F or the palette goes on)"
        await wait_until(pilot, lambda: stopped in messages(app), "the summary of the stopped run")
        assert "resolving" not in header(app) and "stopping" not in header(app)
        assert [r.match.title for r in Store(tmp_path / "db.json").resolutions().values()] == [CHOSEN[0]["title"]]
        await find_view_from_the_palette(pilot)  # going on: the paper found is not asked again
        await wait_until(
            pilot, lambda: "2 found · 0 possible · 0 not found · 1 looked up before" in messages(app), "the rest"
        )


async def test_F_again_stops_the_lookup(tmp_path, hold_arxiv):
    gate = hold_arxiv(0)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await wait_until(pilot, lambda: "resolving 0/1" in header(app), "the lookup")
        await pilot.press("F")
        assert "stopping 0/1" in header(app)
        gate.set()
        await wait_until(pilot, lambda: any(m.startswith("Stopped: 0 found") for m in messages(app)), "the end")
        assert Store(tmp_path / "db.json").resolutions() == {}


async def test_after_a_lookup_searching_the_found_title_or_an_author_finds_the_paper(tmp_path, services):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await settle(pilot)
        await pilot.press("j", "F")
        await wait_until(pilot, lambda: "1 found · 0 possible · 0 not found" in messages(app), "the summary")
        await settle(pilot)
        # "guarantees" is in the second paper's found title, not in its abstract nor in the title derived from it;
        # Lovelace is its first author, found with it
        for query in ("title:guarantees", "lovelace"):
            await pilot.press("slash", "ctrl+u", *query)
            await wait_until(pilot, lambda: main.view.result is not None and main.view.matches == 1, query)
            assert main.current_paper.id == app.papers.papers[1].id


async def test_a_failing_service_is_one_notification_naming_its_host_until_dismissed(tmp_path, services):
    services.arxiv.app = lambda request: Answer(body="<html><body>Bad gateway</body></html>", content_type="text/html")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await find_view_from_the_palette(pilot)
        await wait_until(pilot, lambda: any("3 failed" in m for m in messages(app)), "the summary")
        errors = [n for n in notifications(app) if n.severity == "error"]
        assert len(errors) == 1, [n.message for n in errors]  # one for the host, not one per paper
        assert errors[0].message.startswith(f"{services.arxiv.host}: ") and errors[0].timeout == STICKY
        assert "Traceback" not in errors[0].message
        assert Store(tmp_path / "db.json").resolutions() == {}  # nothing known: nothing saved
        assert app.is_running


async def test_many_papers_are_asked_about_first_saying_what_is_sent_where(tmp_path, services, monkeypatch):
    monkeypatch.setattr("readlist.tui.screens.finder.ASK_BEFORE", 2)
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await find_view_from_the_palette(pilot)
        await wait_for_screen(pilot, ConfirmScreen)
        question = widget_text(app, "#confirm-question")
        assert "Find 3 papers online?" in question
        assert f"Phrases of each abstract are sent to {services.arxiv.host}" in question
        assert f"each title found to {services.dblp.host}" in question
        await pilot.press("n")
        await settle(pilot)
        assert asked(services) == 0  # no: nothing sent
        await find_view_from_the_palette(pilot)
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await wait_until(pilot, lambda: "3 found · 0 possible · 0 not found" in messages(app), "the summary")


async def test_a_possible_match_shows_under_the_title_and_A_accepts_it(tmp_path):
    app = make_app(tmp_path, possible=("Quokkas Considered Helpful",))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = widget_text(app, "#detail-body")
        assert "possible match: Quokkas Considered Helpful (score 0.64) — A accepts it" in detail
        await pilot.press("A")
        await wait_until(pilot, lambda: "title found on arXiv" in widget_text(app, "#detail-body"), "the match taken")
        assert widget_text(app, "#detail-body").startswith("Quokkas Considered Helpful")
        assert "possible match" not in widget_text(app, "#detail-body")
        await pilot.pause()
        assert "│ ○      Hopper    Quokkas Considered Helpful" in screen_text(app)  # the list's row
        resolution = Store(tmp_path / "db.json").resolutions()[app.papers.papers[0].id]
        assert (resolution.status, resolution.match.title) == (Status.FOUND, "Quokkas Considered Helpful")


async def test_A_with_several_candidates_picks_one_in_a_dialog(tmp_path):
    app = make_app(tmp_path, possible=("Quokkas Considered Helpful", "Wombats at Scale"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "(score 0.64) and 1 more — A accepts it" in widget_text(app, "#detail-body")
        await pilot.press("A")
        await wait_for_screen(pilot, CandidatesScreen)
        assert "0.63  Wombats at Scale" in screen_text(app)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: widget_text(app, "#detail-body").startswith("Wombats"), "the match taken")
        resolution = Store(tmp_path / "db.json").resolutions()[app.papers.papers[0].id]
        assert resolution.match.title == "Wombats at Scale" and resolution.match.verified


async def test_quitting_while_a_request_waits_for_its_answer_quits_at_once(tmp_path, services):
    services.arxiv.app = lambda request: Answer(hang=True)  # until the server stops
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await wait_until(pilot, lambda: services.arxiv.requests, "the request")
        lookup = app.main_screen.finder._run
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running, "readlist to quit", timeout=5)
    assert lookup.resolver.cancel.is_set()  # the answer, once it comes, is followed by no other request
    assert lookup.thread.daemon  # and the program ends without waiting for it


async def test_a_service_url_that_is_no_url_is_said_in_one_line_and_nothing_is_sent(tmp_path, services, monkeypatch):
    monkeypatch.setenv("READLIST_ARXIV_URL", "ftp://mirror.example.org/api")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        assert messages(app) == [
            "Cannot find papers online: READLIST_ARXIV_URL is not an http(s) URL: 'ftp://mirror.example.org/api'"
        ]
        assert asked(services) == 0 and not app.main_screen.finder.running


async def test_papers_another_readlist_finds_online_meanwhile_show_here_too(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        match = Match("Quokkas Considered Helpful", "arxiv", authors=("Grace Hopper",))
        Store(tmp_path / "db.json").keep_resolutions([Resolution(app.papers.papers[0].id, Status.FOUND, match=match)])
        await app.poll_store()
        await pilot.pause()
        assert widget_text(app, "#detail-body").startswith("Quokkas Considered Helpful title found on arXiv")
        assert "│ ○      Hopper    Quokkas Considered Helpful" in screen_text(app)


async def test_a_paper_found_remakes_only_its_own_entry_of_the_list(tmp_path, services):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await wait_until(pilot, lambda: "1 found · 0 possible · 0 not found" in messages(app), "the first")
        first = app.papers.papers[0]
        await pilot.press("j", "F")
        await wait_until(pilot, lambda: app.papers.papers[1].found_title, "the second")
        # the papers found before are kept as they are (at 100k papers and 10,000 found, made again: 0.25 s)
        assert app.papers.papers[0] is first and app.papers.papers[1].found_title == CHOSEN[1]["title"]


@pytest.mark.parametrize(
    "error, said",
    [
        (OSError("No space left on device"), "Finding papers online stopped: No space left on device; what was"),
        (RuntimeError("unforeseen"), "Finding papers online stopped on an error (RuntimeError: unforeseen)"),
    ],
)
async def test_a_lookup_that_cannot_save_or_breaks_is_one_line_and_the_app_goes_on(
    tmp_path, services, monkeypatch, error, said
):
    app = make_app(tmp_path)

    def refuse(resolutions):
        raise error

    monkeypatch.setattr(app.store, "keep_resolutions", refuse)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await wait_until(pilot, lambda: any(m.startswith("0 found") for m in messages(app)), "the summary")
        [line] = [n for n in notifications(app) if n.severity == "error"]
        assert line.message.startswith(said) and line.timeout == STICKY
        assert not app.main_screen.finder.running and "resolving" not in header(app)
        await pilot.press("j")
        assert app.is_running
