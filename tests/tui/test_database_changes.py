"""The TUI while another program changes its database: a newer readlist's file is never written over."""

from __future__ import annotations

import json

from .conftest import make_app, settle


async def test_a_newer_readlists_file_put_in_place_while_open_is_left_alone_by_polls_and_keys(tmp_path):
    app = make_app(tmp_path)
    db = tmp_path / "db.json"
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("s")  # the file now exists
        await settle(pilot)
        newer = json.dumps({"meta": {"1": {"schema_version": 99}}, "annotations": {}, "events": {}}).encode()
        swap = tmp_path / "swap"
        swap.write_bytes(newer)
        swap.replace(db)
        for _ in range(2):  # polls, with nothing pressed
            await app.poll_store()
        await pilot.press("j", "s")
        await settle(pilot)
        await app.poll_store()
        assert db.read_bytes() == newer and not list(tmp_path.glob("db.json.corrupt-*"))
        messages = [n.message for n in app._notifications]
        assert sum("written by a newer readlist" in m and "left as it is" in m for m in messages) == 1
        assert app.store.get(app.papers.papers[1].id).starred  # kept in memory
