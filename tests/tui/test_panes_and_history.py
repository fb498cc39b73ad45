"""The list pane made wider or narrower, and going to related papers and back."""

from __future__ import annotations

from readlist.core.files.paths import ui_state_path
from readlist.tui.state import load_state
from readlist.tui.widgets.detail import DetailPane, RelatedList
from readlist.tui.widgets.search_bar import SearchBar

from .conftest import make_app, notifications, settle, wait_for_related


def pane_widths(app) -> tuple[int, int]:
    main = app.main_screen
    return main.query_one("#list-pane").outer_size.width, main.query_one("#detail").outer_size.width


async def test_the_list_pane_widens_and_narrows_and_the_width_is_remembered(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pane_widths(app) == (48, 72)  # 40% of the width
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        assert pane_widths(app) == (72, 48)  # before: no key changed it
        await pilot.press("less_than_sign")
        await settle(pilot)
        assert pane_widths(app) == (60, 60)
        await pilot.press(*["less_than_sign"] * 9)  # no narrower than a fifth
        await settle(pilot)
        assert pane_widths(app) == (24, 96)
        await pilot.press("greater_than_sign", "q")
    assert load_state(ui_state_path(tmp_path / "db.json")).list_width == 30
    again = make_app(tmp_path)
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pane_widths(again) == (36, 84)
        await pilot.resize_terminal(80, 24)  # narrow: the list takes the width whatever was chosen
        await settle(pilot)
        assert again.main_screen.query_one("#list-pane").outer_size.width == 80
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert pane_widths(again) == (36, 84)


async def test_a_hand_edited_list_width_is_kept_within_reach(tmp_path):
    ui_state_path(tmp_path / "db.json").write_text('{"list_width": 500}')
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert pane_widths(app) == (96, 24)


async def test_related_papers_are_reached_by_a_key_and_backspace_goes_back_through_the_jumps(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        await wait_for_related(pilot)
        await pilot.press("slash", *"language models", "enter", "j", "f")  # a search, a filter, the second paper
        await wait_for_related(pilot)
        left = main.current_paper
        await pilot.press("right_square_bracket")  # before: no key reached the related papers
        await settle(pilot)
        assert isinstance(app.focused, RelatedList) and app.focused.highlighted == 0
        first = main.query_one(DetailPane).related_positions[0]
        await pilot.press("enter")
        await wait_for_related(pilot)
        assert main.current_paper is app.papers.papers[first]
        second = main.query_one(DetailPane).related_positions[1]
        await pilot.press("right_square_bracket", "down", "enter")  # on from there: a second jump
        await wait_for_related(pilot)
        assert main.current_paper is app.papers.papers[second]
        await pilot.press("backspace")
        await settle(pilot)
        assert main.current_paper is app.papers.papers[first]
        await pilot.press("left_square_bracket")  # the search, filter and paper the first jump left
        await settle(pilot)
        assert (main.view.search_text, main.view.quick_filter) == ("language models", "unread")
        assert main.query_one(SearchBar).value == "language models"
        assert main.current_paper is left and app.focused is main.paper_list
        await pilot.press("backspace")
        await settle(pilot)
        assert main.current_paper is left
        assert any("Nothing to go back to" in n.message for n in notifications(app))


def test_the_footer_and_the_help_name_the_related_and_back_keys():
    from readlist.tui.actions import ACTIONS
    from readlist.tui.screens.dialogs.help import keys_table

    shown = {action.action: action for action in ACTIONS}
    assert shown["focus_related"].show  # in the footer
    assert shown["go_back"].display_keys == "Backspace ["
    rows = keys_table().columns[1]._cells
    assert "]" in rows and "Backspace [" in rows


async def test_the_related_key_shows_a_narrow_screens_detail_with_the_related_papers(tmp_path):
    app = make_app(tmp_path, bundled=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_related(pilot)
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert app.main_screen.has_class("show-detail") and isinstance(app.focused, RelatedList)


async def test_in_the_search_bar_backspace_and_brackets_edit_the_words(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "a", "b", "left_square_bracket", "right_square_bracket", "backspace", "backspace")
        await settle(pilot)
        assert app.main_screen.query_one(SearchBar).value == "ab" and isinstance(app.focused, SearchBar)
