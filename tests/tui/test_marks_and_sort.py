"""Marking papers and acting on them together (v, V, Esc; s r 1 2 3 t x y on the marks), and sorting the list (S)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from readlist.core.files.paths import ui_state_path
from readlist.core.store.store import Store
from readlist.tui.screens.dialogs.confirm import ConfirmScreen
from readlist.tui.screens.dialogs.export import ExportScreen
from readlist.tui.screens.dialogs.tags import TagsScreen
from readlist.tui.state import load_state

from .conftest import make_app, notifications, screen_text, settle, wait_for_screen, widget_text


def statuses(app) -> list[str]:
    return [app.store.get(paper.id).status for paper in app.papers.papers]


def starred(app) -> list[int]:
    return [paper.index for paper in app.papers.papers if app.store.get(paper.id).starred]


def listed(app) -> list[int]:
    """The paper numbers in the order the list shows them."""
    plist = app.main_screen.paper_list
    return [app.papers.papers[pos].index for pos in map(plist.position_at, range(plist.row_count)) if pos is not None]


async def test_v_marks_and_moves_on_and_star_and_status_act_on_the_marks_as_one_undo_step(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        main = app.main_screen
        await pilot.press("v", "j", "v")
        assert main.paper_list.cursor == 3  # each v moved on
        assert "2 marked" in widget_text(app, "#status")
        assert main.paper_list.render_line(0).text.startswith(" ○▸")
        assert main.paper_list.render_line(1).text.startswith(" ○ ")
        await pilot.press("s")
        await settle(pilot)
        assert starred(app) == [1, 3]  # not the paper under the cursor (#4)
        assert "The 2 marked papers: starred — u undoes" in [n.message for n in notifications(app)]
        await pilot.press("3")
        await settle(pilot)
        assert statuses(app) == ["read", "unread", "read", "unread", "unread"]
        await pilot.press("u")
        await settle(pilot)
        assert statuses(app) == ["unread"] * 5 and starred(app) == [1, 3]  # one step: both papers
        await pilot.press("s")  # all starred: unstarred together
        await settle(pilot)
        assert starred(app) == []
        await pilot.press("u")
        await settle(pilot)
        assert starred(app) == [1, 3]
        await pilot.press("escape")  # in the list: the marks go first, then the search
        await settle(pilot)
        assert "marked" not in widget_text(app, "#status")
        await pilot.press("s")
        await settle(pilot)
        assert starred(app) == [1, 3, 4]  # the paper under the cursor again


async def test_r_moves_marked_papers_on_together_from_the_least_advanced(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3", "j", "2", "g", "v", "v", "v")  # #1 read, #2 reading, #3 unread: all marked
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert statuses(app)[:3] == ["reading"] * 3
        await pilot.press("r")
        await settle(pilot)
        assert statuses(app)[:3] == ["read"] * 3


async def test_marks_are_kept_across_searches_and_V_marks_the_whole_view(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("v")  # #1
        await pilot.press("slash", *"language models", "enter")
        await settle(pilot)
        main = app.main_screen
        in_view = [app.papers.papers[pos].index for pos in main.view.matching()]
        assert 1 not in in_view and len(in_view) >= 2
        await pilot.press("V")
        await settle(pilot)
        assert f"{len(in_view) + 1} marked" in widget_text(app, "#status")
        await pilot.press("2")
        await settle(pilot)
        reading = [paper.index for paper in app.papers.papers if app.store.get(paper.id).status == "reading"]
        assert reading == sorted([1, *in_view])


async def test_esc_asks_before_clearing_many_marks(tmp_path):
    many = "A list of many\n\n" + "\n\n".join(f"Paper number {n} studies topic {n} in depth." for n in range(30))
    app = make_app(tmp_path, many)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("V", "escape")
        await wait_for_screen(pilot, ConfirmScreen)
        assert "Clear the marks of 30 papers?" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)
        assert len(app.main_screen.view.marked) == 30
        await pilot.press("escape")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot)
        assert not app.main_screen.view.marked and "marked" not in widget_text(app, "#status")


async def test_t_edits_the_tags_the_marked_papers_share(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.store.change_tags(app.papers.papers[0], ["shared", "own"])
        app.store.change_tags(app.papers.papers[1], ["shared"])
        await pilot.press("v", "v", "t")
        await wait_for_screen(pilot, TagsScreen)
        assert "The 2 marked papers (the tags they all have)" in screen_text(app)
        assert app.screen.query_one("#tags-input").value == "shared "
        app.screen.query_one("#tags-input").value = "new"  # shared taken off, new put on
        await pilot.press("enter")
        await settle(pilot)
        assert [app.store.get(p.id).tags for p in app.papers.papers[:2]] == [("own", "new"), ("new",)]
        await pilot.press("u")
        await settle(pilot)
        assert [app.store.get(p.id).tags for p in app.papers.papers[:2]] == [("shared", "own"), ("shared",)]


async def test_x_exports_and_y_copies_the_marked_papers(app, tmp_path):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("j", "v", "j", "v")  # #2 and #4 (v moves on)
        await pilot.press("y")
        copied = app.clipboard
        assert "over-squashing" in copied and "TableBench" in copied and "FastDiff" not in copied
        await pilot.press("x")
        await wait_for_screen(pilot, ExportScreen)
        assert "Export the 2 marked papers" in screen_text(app)
        target = tmp_path / "marked.md"
        app.screen.query_one("#export-path").value = str(target)
        await pilot.click("#export-path")
        await pilot.press("enter")
        await settle(pilot)
    exported = target.read_text()
    assert [paper.id for paper in app.papers.papers if f"`{paper.id}`" in exported] == [
        app.papers.papers[1].id,
        app.papers.papers[3].id,
    ]


async def test_S_cycles_the_order_shows_it_and_remembers_it_for_this_list(tmp_path):
    papers = make_app(tmp_path).papers.papers
    now = [datetime(2025, 7, 1, 9, tzinfo=UTC)]
    store = Store(tmp_path / "db.json", now=lambda: now[0])
    store.set_status(papers[1], "read")
    now[0] += timedelta(hours=1)
    store.set_status(papers[2], "reading")
    now[0] += timedelta(hours=1)
    store.toggle_star(papers[3])  # changed last
    store.flush()
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert listed(app) == [1, 2, 3, 4, 5] and "sort:" not in widget_text(app, "#status")
        await pilot.press("S")
        await settle(pilot)
        assert listed(app) == [3, 1, 4, 5, 2]  # status: reading, unread, read
        assert "sort: status" in widget_text(app, "#status")
        await pilot.press("S")
        await settle(pilot)
        assert listed(app) == [4, 1, 2, 3, 5] and "sort: starred first" in widget_text(app, "#status")
        await pilot.press("S")
        await settle(pilot)
        assert listed(app) == [4, 3, 2, 1, 5]  # recently changed
        await pilot.press("S", "S")  # the list has no years: back to the file's order, then status
        await settle(pilot)
        assert "sort: status" in widget_text(app, "#status")
        await pilot.press("q")
    assert load_state(ui_state_path(tmp_path / "db.json")).sorts == {str(tmp_path / "papers.txt"): "status"}
    again = make_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert listed(again) == [3, 1, 4, 5, 2] and "sort: status" in widget_text(again, "#status")
    other = tmp_path / "other"
    other.mkdir()
    (tmp_path / "other.ui.json").write_text((tmp_path / "db.ui.json").read_text())  # same state, another list
    elsewhere = make_app(other)
    elsewhere.state_path = tmp_path / "other.ui.json"
    elsewhere.state = load_state(elsewhere.state_path)
    async with elsewhere.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "sort:" not in widget_text(elsewhere, "#status")  # each list its own order


async def test_a_search_sorted_by_status_keeps_the_cursors_row_as_a_paper_moves(app):
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"language", "enter")
        await settle(pilot)
        assert "relevance" in app.main_screen.view.sorts()
        await pilot.press("S")  # relevance is the default while searching: the next is status
        await settle(pilot)
        assert "sort: status" in widget_text(app, "#status")
        before = listed(app)
        await pilot.press("3")  # read: the paper goes to the end, the next one comes up on the row
        await settle(pilot)
        assert listed(app) == [*before[1:], before[0]]
        assert app.main_screen.paper_list.cursor == 0
        await pilot.press("escape")  # the search cleared: status order still
        await settle(pilot)
        assert listed(app)[-1] == before[0] and "sort: status" in widget_text(app, "#status")
