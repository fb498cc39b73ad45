"""Layout snapshots (SVG). Regenerate deliberately with `pytest tests/tui/test_snapshots.py --snapshot-update`."""

from __future__ import annotations

from pathlib import Path

import pytest

from readlist.core.papers.formats import load_papers
from readlist.core.papers.reader import parse_text
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.dialogs.export import ExportScreen
from readlist.tui.screens.dialogs.help import HelpScreen
from readlist.tui.screens.dialogs.links import LinksScreen

from .conftest import related_shown, settle, wait_for_screen, wait_until

FIXTURES = Path(__file__).parents[1] / "fixtures"
# Title lines keep these snapshots independent of how titles are derived.
TITLED = """Snapshot list

FastDiff: Four-Step Diffusion Sampling
We propose FastDiff, a distilled diffusion sampler that needs four steps. Code: https://example.org/fastdiff

Curvature Rewiring Against Over-Squashing
Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy, with bounds.

Markup [/bold] Is Shown Literally
Large language models can be attacked with [/bold] markup [link=x]and escape sequences in abstracts.

TableBench: Reasoning over Tables
We introduce TableBench, a benchmark for reasoning over tables with language models of all sizes.

Curiosity for Sparse Rewards
Reinforcement learning agents explore poorly in sparse-reward settings; we add curiosity bonuses.
"""


@pytest.fixture
def snapshot_app(tmp_path):
    def make() -> ReadlistApp:
        papers = parse_text(TITLED, "snapshot.txt")
        return ReadlistApp(papers, tmp_path / "db.json", cursor_blink=False)

    return make


async def steady(pilot) -> None:
    """Index built, related papers found: nothing left that would change the screen."""
    await settle(pilot)
    main = pilot.app.main_screen
    await wait_until(
        pilot,
        lambda: main.searcher.index is not None and related_shown(pilot.app),
        "the search index and the papers related to the paper shown",
    )
    await settle(pilot)


def test_main_view(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=steady)


def test_narrow_list(snap_compare, snapshot_app):
    assert snap_compare(snapshot_app(), terminal_size=(80, 24), run_before=steady)


def test_narrow_detail(snap_compare, snapshot_app):
    async def open_detail(pilot):
        await steady(pilot)
        await pilot.press("j", "enter")
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(60, 20), run_before=open_detail)


def test_help_screen(snap_compare, snapshot_app):
    async def help_screen(pilot):
        await steady(pilot)
        await pilot.press("question_mark")
        await wait_for_screen(pilot, HelpScreen)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=help_screen)


def test_no_match(snap_compare, snapshot_app):
    async def no_match(pilot):
        await steady(pilot)
        await pilot.press("slash", *"xyzzy")
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=no_match)


def test_marked_papers(snap_compare, snapshot_app):
    async def marked(pilot):
        await steady(pilot)
        await pilot.press("v", "j", "v")  # the first and the third paper; the cursor on the fourth
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=marked)


def test_sort_orders(snap_compare, snapshot_app):
    async def sorted_by_status(pilot):
        await steady(pilot)
        await pilot.press("slash", *"language", "enter", "S")  # searching: relevance is offered too
        await steady(pilot)

    assert snap_compare(snapshot_app(), terminal_size=(120, 40), run_before=sorted_by_status)


def test_record_list(snap_compare, tmp_path):
    """A BibTeX list: the year-and-author column, and the detail pane's authors, venue, ids and named links."""
    app = ReadlistApp(load_papers(FIXTURES / "arxiv-3.bib"), tmp_path / "db.json", cursor_blink=False)

    async def second_paper(pilot):
        await steady(pilot)
        await pilot.press("j")
        await steady(pilot)

    assert snap_compare(app, terminal_size=(120, 40), run_before=second_paper)


def test_links_dialog(snap_compare, tmp_path):
    app = ReadlistApp(load_papers(FIXTURES / "arxiv-3.atom"), tmp_path / "db.json", cursor_blink=False)

    async def links(pilot):
        await steady(pilot)
        await pilot.press("O")
        await wait_for_screen(pilot, LinksScreen)

    assert snap_compare(app, terminal_size=(120, 40), run_before=links)


@pytest.mark.parametrize("size", [(120, 40), (60, 20)])
def test_export_dialog(snap_compare, snapshot_app, monkeypatch, size):
    """The formats named, the chosen one marked, the path in full; at 60 by 20 it fits."""
    import readlist.tui.screens.exporter as exporter

    monkeypatch.setattr(exporter, "export_directory", lambda: Path("/home/reader/Documents"))

    async def export_dialog(pilot):
        await steady(pilot)
        await pilot.press("s", "x")  # a paper to export
        await wait_for_screen(pilot, ExportScreen)
        await pilot.press("down")  # JSON
        await pilot.pause()

    assert snap_compare(snapshot_app(), terminal_size=size, run_before=export_dialog)
