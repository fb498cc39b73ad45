"""The list pane made wider or narrower, and going to related papers and back."""

from __future__ import annotations

from readlist.core.files.paths import ui_state_path
from readlist.tui.state import load_state

from .conftest import make_app, settle


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
