"""A paper's record in the UI: the detail pane's authors, venue, ids and links, where its title comes from, the
list's year-and-author column, and `o`/`O` reaching the paper."""

from __future__ import annotations

from pathlib import Path

from readlist.core.papers.formats import load_papers
from readlist.core.papers.paper import Paper, PaperList, Record
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.dialogs.links import LinksScreen
from readlist.tui.screens.dialogs.title import TitleScreen
from readlist.tui.widgets.detail_body import DetailBody

from .conftest import notifications, screen_text, settle, wait_for_screen, wait_until, widget_text

FIXTURES = Path(__file__).parents[1] / "fixtures"


def fixture_app(tmp_path, name: str) -> ReadlistApp:
    return ReadlistApp(load_papers(FIXTURES / name), tmp_path / "db.json", cursor_blink=False)


async def test_o_opens_the_pdf_of_a_paper_from_an_arxiv_feed(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = fixture_app(tmp_path, "arxiv-3.atom")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await wait_until(pilot, lambda: opened, "the link opened")
        assert opened == ["http://arxiv.org/pdf/2210.12590v2"]


async def test_capital_o_lists_every_link_and_opens_the_one_chosen(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    app = fixture_app(tmp_path, "arxiv-3.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        shown = widget_text(app, "#links-list")
        for label_and_url in (
            "arXiv abstract page https://arxiv.org/abs/2210.12590",
            "DOI https://doi.org/10.48550/arXiv.2210.12590",
            "Search arXiv for the title https://arxiv.org/search/?query=Meta-Reinforcement+Learning+for+Building",
        ):
            assert label_and_url in shown
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: opened, "the chosen link opened")
        assert opened == ["https://doi.org/10.48550/arXiv.2210.12590"]
        assert app.screen is app.main_screen

        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen, "the dialog closed")
        await settle(pilot)
        assert len(opened) == 1


async def test_the_web_search_setting_chooses_the_search_and_a_bad_one_is_said(tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url) or True)
    monkeypatch.setenv("READLIST_WEB_SEARCH", "scholar")
    app = fixture_app(tmp_path, "arxiv-3.jsonl")  # ids but no links: the first paper has no DOI
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        assert "Search Google Scholar for the first sentence" in widget_text(app, "#links-list")
        await pilot.press("escape")
        monkeypatch.setenv("READLIST_WEB_SEARCH", "altavista")
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)
        assert "Search arXiv for the title" in widget_text(app, "#links-list")
        told = [n.message for n in notifications(app)]
        assert any(m.startswith("READLIST_WEB_SEARCH is 'altavista': expected 'arxiv' or 'scholar'") for m in told)


def detail_text(app) -> str:
    return app.main_screen.query_one(DetailBody).plain


async def test_the_detail_pane_shows_authors_venue_year_ids_and_labelled_links(tmp_path):
    app = fixture_app(tmp_path, "arxiv-3.atom")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lines = detail_text(app).splitlines()
        assert lines[:4] == [
            "Meta-Reinforcement Learning for Building Energy Management System",  # a given title: no origin line
            f"#1 · {app.papers.papers[0].id}  ☆ not starred  ○ unread",
            "Jane Doe, Richard Roe",
            "2022 · arXiv 2210.12590 · DOI 10.48550/arXiv.2210.12590",
        ]
        links = lines.index("Links")
        assert lines[links : links + 5] == [
            "Links",
            "  http://arxiv.org/pdf/2210.12590v2  PDF",
            "  http://arxiv.org/abs/2210.12590v2  arXiv abstract page",
            "  https://doi.org/10.48550/arXiv.2210.12590  DOI",
            "  https://arxiv.org/abs/2210.12590  arXiv abstract page",
        ]
        await pilot.press("j")
        await settle(pilot)
        assert "ICML 2023 · arXiv 2305.15786" in detail_text(app)  # a venue naming its year is not given it twice


async def test_many_authors_are_shortened_and_record_text_is_never_markup(tmp_path):
    authors = "; ".join(f"Author{n} Family{n}" for n in range(1, 10)) + "; [bold]Mallory[/bold] \x1b[2JEvil"
    rows = f'title,abstract,authors,venue,year\nA Title,"We study graphs.","{authors}",[red]Venue[/red],2024\n'
    papers_file = tmp_path / "list.csv"
    papers_file.write_text(rows, encoding="utf-8")
    app = ReadlistApp(load_papers(papers_file), tmp_path / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        lines = detail_text(app).splitlines()
        assert (
            lines[2]
            == "Author1 Family1, Author2 Family2, Author3 Family3, Author4 Family4, … [bold]Mallory[/bold] Evil"
        )
        assert lines[3] == "[red]Venue[/red] 2024"
        assert "\x1b" not in detail_text(app) and "[2J" not in screen_text(app)


async def test_the_detail_pane_says_where_a_title_comes_from(tmp_path):
    found = Record(found_title="Found Online", found_by="arxiv+dblp")
    papers = [
        Paper(id="a" * 12, index=1, text="We derive a title from this abstract about graphs."),
        Paper(id="b" * 12, index=2, text="Another abstract, about tables.", record=found),
    ]
    app = ReadlistApp(PaperList("list.txt", "list", tuple(papers)), tmp_path / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert detail_text(app).splitlines()[1] == "title derived from the abstract"
        await pilot.press("j")
        await settle(pilot)
        assert detail_text(app).splitlines()[:2] == ["Found Online", "title found on arXiv (with DBLP)"]
        await pilot.press("T")
        await wait_for_screen(pilot, TitleScreen)
        await pilot.press("ctrl+u", *"Mine", "enter")
        await settle(pilot)
        assert detail_text(app).splitlines()[:2] == ["Mine", "your title"]


async def test_rows_show_year_and_first_author_only_when_the_list_has_them(tmp_path):
    app = fixture_app(tmp_path, "arxiv-3.bib")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        rows = [app.main_screen.paper_list.render_line(y).text for y in range(3)]
        assert [row[:28] for row in rows] == [
            " ○ 2022 Doe       Meta-Reinf",
            " ○ 2023 Müller    Theoretica",
            " ○ 2023 Roe       Agent-OM: ",
        ]
        assert all(row.rstrip().endswith("…") for row in rows[:2])  # the title is cut to the room left
    plain = fixture_app(tmp_path, "arxiv-3.txt")  # arXiv ids from its sidecar, but no year or author
    async with plain.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert plain.main_screen.paper_list.render_line(0).text.startswith(" ○ Meta-Reinforcement Learning for")


async def test_a_narrow_list_leaves_the_column_out(tmp_path):
    app = fixture_app(tmp_path, "arxiv-3.bib")
    async with app.run_test(size=(38, 24)) as pilot:
        await settle(pilot)
        assert app.main_screen.paper_list.render_line(0).text.startswith(" ○ Meta-Reinforcement")
