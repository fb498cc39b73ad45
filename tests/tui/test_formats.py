"""A paper list read from another format, seen from the UI: its titles, and what its reader left out."""

from __future__ import annotations

from pathlib import Path

from readlist.core.papers.formats import load_papers
from readlist.tui.app import ReadlistApp

from .conftest import screen_text, settle

FIXTURES = Path(__file__).parents[1] / "fixtures"


async def test_a_csv_list_shows_its_titles_and_names_the_columns_it_left_out(tmp_path):
    app = ReadlistApp(load_papers(FIXTURES / "arxiv-3.csv"), tmp_path / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
        assert "Agent-OM: Leveraging LLM Agents for Ontology Matching" in shown
        assert any(n.message.endswith("arxiv-3.csv: columns left out: 'Notes'") for n in app._notifications)


async def test_titles_found_online_show_in_the_list_and_the_detail_pane(tmp_path):
    from readlist.core.papers.reader import parse_text
    from readlist.core.resolve.records import Match, Resolution, Status
    from readlist.core.store.store import Store

    from .conftest import PAPERS

    papers = parse_text(PAPERS, str(tmp_path / "papers.txt"))
    match = Match("FastDiff: Four-Step Distilled Diffusion Sampling", "arxiv", authors=("Ada Lovelace",))
    Store(tmp_path / "db.json").keep_resolutions([Resolution(papers.papers[0].id, Status.FOUND, match=match)])
    app = ReadlistApp(papers, tmp_path / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        shown = screen_text(app)
        assert "│ ○      Lovelace  FastDiff: Four-Step" in shown  # its row, with its first author in the column
        assert "│ FastDiff: Four-Step Distilled Diffusion Sampling " in shown  # the detail pane
        assert app.papers.papers[0].authors == ("Ada Lovelace",)
