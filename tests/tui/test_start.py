"""The first screen of a start: drawn before the work it need not wait for, with the marks the papers have."""

from __future__ import annotations

import os
import threading

from textual.css.query import NoMatches

from readlist.core.papers.paper import Paper
from readlist.core.papers.reader import parse_text
from readlist.core.store.annotation import Annotation
from readlist.core.store.store import Store
from readlist.tui.widgets.status_line import StatusLine

from .conftest import PAPERS, make_app, notifications, settle, wait_until, widget_text

EDITED = PAPERS.replace("as a remedy.", "as a remedy for it.")  # the second paper's text changed since its star


async def test_the_list_is_drawn_before_the_store_is_reconciled_with_its_marks_then_those_of_re_attached_papers(
    tmp_path, monkeypatch
):
    before = parse_text(PAPERS, str(tmp_path / "papers.txt")).papers
    store = Store(tmp_path / "db.json")
    store.toggle_star(before[0])
    store.toggle_star(before[1])
    drawn_before: list[list[str]] = []
    reconcile = Store.reconcile

    def reconcile_seen(self, papers, quiet_repeats=False):
        try:
            drawn = dict(app.main_screen.paper_list._drawn)  # the rows drawn so far, by position (copied at once)
        except NoMatches:  # no list yet
            drawn = {}
        rows = [strip.text for _, strip in sorted(drawn.items())]
        drawn_before.append(rows)
        return reconcile(self, papers, quiet_repeats)

    monkeypatch.setattr(Store, "reconcile", reconcile_seen)
    app = make_app(tmp_path, EDITED)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: any("re-attached" in n.message for n in notifications(app)), "the reconcile")
        [rows] = drawn_before
        assert len(rows) == 5  # every row was drawn before the reconcile began
        assert rows[0].startswith("★") and not rows[1].startswith("★")  # the second's star is re-attached by it
        await wait_until(pilot, lambda: widget_text(app, "#list").count("★") == 2, "the re-attached star drawn")
        assert app.store.get(app.papers.papers[1].id).starred


async def test_the_first_screen_of_a_list_without_years_looks_at_no_paper_s_year(tmp_path, monkeypatch):
    looked: list[Paper] = []
    year = Paper.__dict__["year"]

    class Counted:  # the papers' `year`, counting the reads the UI's thread makes
        def __get__(self, paper, owner=None):
            if paper is not None and threading.current_thread() is threading.main_thread():
                looked.append(paper)
            return year.__get__(paper, owner)

    monkeypatch.setattr(Paper, "year", Counted())
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Test list" in widget_text(app, StatusLine) and looked == []
        await pilot.press("S", "S", "S", "S")  # status, starred, changed, then back round: no year order offered
        assert app.main_screen.view.order == "file"


async def test_a_search_typed_once_the_start_is_over_reads_no_annotation(tmp_path, monkeypatch):
    papers = parse_text(PAPERS, str(tmp_path / "papers.txt")).papers
    store = Store(tmp_path / "db.json")
    store.update_many(papers, status="read")
    read: list[dict] = []
    from_doc = Annotation.from_doc.__func__

    def counted(cls, doc):  # the annotations read by the searches' thread
        if threading.current_thread().name.startswith("readlist-search"):
            read.append(doc)
        return from_doc(cls, doc)

    monkeypatch.setattr(Annotation, "from_doc", classmethod(counted))
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"curvature")
        await wait_until(pilot, lambda: app.main_screen.view.matches == 1, "the search's answer")
        assert read == []  # read once at the start, after the index: not by the first search


IMPORTS_AT_START = r"""
import asyncio, sys, threading
from pathlib import Path

importer = []  # the thread that imported the index's cache module
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "readlist.core.search.cache":
            importer.append(threading.current_thread().name)
        return None
sys.meta_path.insert(0, Watch())

from readlist.core.papers.reader import parse_text
from readlist.tui.app import ReadlistApp

async def main(tmp):
    papers = parse_text("Graph neural networks.\n\nDiffusion models.\n", str(tmp / "papers.txt"))
    app = ReadlistApp(papers, tmp / "db.json", cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.main_screen.searcher.index is None:
            await asyncio.sleep(0.01)
    print(importer)

asyncio.run(main(Path(sys.argv[1])))
"""


def test_what_the_index_worker_runs_is_imported_with_the_app_before_it_starts(tmp_path):
    # Imported in the worker while the UI handled the keys typed at start, its 35 ms of imports took 140-180 ms: each
    # file read gave the interpreter away and waited to get it back. In a fresh interpreter, as a start is.
    import subprocess
    import sys

    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", IMPORTS_AT_START, str(tmp_path)], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip().splitlines()[-1] == "['MainThread']"
