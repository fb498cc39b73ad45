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
