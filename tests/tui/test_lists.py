"""The lists screen (`L`): every list opened with the database and its progress, Enter opening one in the app; and
the list opened last coming back on start."""

from __future__ import annotations

from readlist.cli.commands.tui import build_app
from readlist.cli.context import Context
from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store
from readlist.tui.app import ReadlistApp
from readlist.tui.screens.dialogs.lists import ListsScreen

from .conftest import run_from_palette, screen_text, settle, wait_for_screen, wait_until, widget_text


def make_lists(tmp_path):
    texts = [paper.text for paper in read_papers(bundled_papers()).papers[:10]]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("ICML list\n\n" + "\n\n".join(texts[:5]), encoding="utf-8")
    b.write_text("NeurIPS list\n\n" + "\n\n".join(texts[5:]), encoding="utf-8")
    return a, b


def annotate(db, path, n, **changes):
    """What a `readlist --papers PATH` command changing paper #n does: open the list, then change the paper."""
    store = Store(db)
    papers = read_papers(path)
    store.reconcile(papers)
    store.update(papers.papers[n - 1], **changes)


async def test_lists_screen_shows_each_lists_figures_and_enter_opens_one_nothing_missing(tmp_path):
    a, b = make_lists(tmp_path)
    db = tmp_path / "db.json"
    annotate(db, a, 1, starred=True)
    annotate(db, b, 2, status="read", note="B's")
    app = ReadlistApp(read_papers(a), db, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.store.orphans() == []  # B's annotations are not missing from A
        await pilot.press("L")
        await wait_for_screen(pilot, ListsScreen)
        shown = screen_text(app)
        assert "ICML list  (shown)" in shown and "5 papers · 0 read · 0 reading · 1 starred · 0 noted" in shown
        assert "NeurIPS list" in shown and "5 papers · 1 read · 0 reading · 0 starred · 1 noted" in shown
        await pilot.press("enter")  # the list opened before this one is highlighted
        await wait_until(pilot, lambda: app.papers.path == str(b) and app.main_screen.is_mounted, "list B shown")
        await settle(pilot)
        assert "NeurIPS list" in widget_text(app, "#status")
        assert app.main_screen.current_paper.index == 1  # the view starts again
        await pilot.press("s")  # B's first paper starred here
        await settle(pilot)
        await pilot.press("slash", *"is:missing", "enter")
        await settle(pilot)
        assert app.store.orphans() == [] and "No missing papers" in screen_text(app)
        await pilot.press("escape", "escape")
        await run_from_palette(pilot, "lists opened")
        await wait_for_screen(pilot, ListsScreen)
        assert screen_text(app).index("NeurIPS list") < screen_text(app).index("ICML list")  # opened last first
        await pilot.press("enter")  # the list opened before this one is highlighted
        await wait_until(pilot, lambda: app.papers.path == str(a) and app.main_screen.is_mounted, "list A shown")
        await settle(pilot)
        assert app.store.orphans() == []
        assert app.store.get(read_papers(b).papers[0].id).starred
        assert app.store.get(app.papers.papers[0].id).starred


async def test_start_up_opens_the_list_opened_last_else_the_bundled_one(tmp_path):
    a, b = make_lists(tmp_path)
    db = tmp_path / "db.json"
    first = build_app(Context(db_path=str(db)))
    assert first.papers.path == str(bundled_papers())  # the first time
    annotate(db, a, 1, starred=True)
    annotate(db, b, 1, starred=True)
    app = build_app(Context(db_path=str(db)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.papers.path == str(b) and "NeurIPS list" in widget_text(app, "#status")
    given = build_app(Context(db_path=str(db), papers_path=str(a)))
    assert given.papers.path == str(a)  # --papers wins
    b.unlink()
    app = build_app(Context(db_path=str(db)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.papers.path == str(bundled_papers())
        assert any("is gone" in str(note.message) for note in app._notifications)


async def test_in_all_searches_every_list_naming_each_hits_list_and_annotates_it(tmp_path):
    a, b = make_lists(tmp_path)
    db = tmp_path / "db.json"
    annotate(db, b, 2, tags=["b-list"])
    annotate(db, a, 1, starred=True)
    persistence = read_papers(b).papers[1]  # "PiPE: Persistence-informed Positional Encoding …", in B only
    app = ReadlistApp(read_papers(a), db, cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"persistence")
        await settle(pilot)
        assert app.main_screen.view.matches == 0  # not in this list
        await pilot.press(*" in:all")
        await wait_until(
            pilot, lambda: getattr(app.main_screen.current_paper, "id", None) == persistence.id, "the hit from list B"
        )
        await settle(pilot)
        assert "NeurIPS list" in widget_text(app, "#list") and "PiPE" in widget_text(app, "#list")
        await pilot.press("enter", "s")  # to the results; star the hit of the other list
        await settle(pilot)
        assert app.store.get(persistence.id).starred and app.store.get(persistence.id).tags == ("b-list",)
        await pilot.press("escape")  # the search cleared: this list's papers again
        await wait_until(pilot, lambda: len(app.main_screen.papers) == 5, "list A's papers again")
        await settle(pilot)
        assert "NeurIPS list" not in widget_text(app, "#list") and app.store.orphans() == []
