"""Regenerate docs/screenshot.svg: the bundled list at 120x36 with a few papers triaged.

    python docs/make_screenshot.py

Uses a throwaway database, so the user's own annotations are never read or touched.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import read_papers
from readlist.core.store.store import Store
from readlist.tui.app import ReadlistApp

OUT = Path(__file__).resolve().parent / "screenshot.svg"


async def main() -> None:
    papers = read_papers(bundled_papers())
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = tmp  # the search index cache too stays out of the user's directories
        db = Path(tmp) / "readlist.json"
        store = Store(db)
        first, second = papers.papers[0], papers.papers[4]
        store.toggle_star(first)
        store.set_status(first, "reading")
        store.update(first, tags=["systems", "inference"])
        store.set_note(first, "Compare with sequence parallelism; try on the 8-GPU box.")
        store.set_status(second, "read")
        store.update(second, tags=["benchmark"])
        store.flush()
        app = ReadlistApp(papers, db, cursor_blink=False)
        async with app.run_test(size=(120, 36)) as pilot:
            for _ in range(100):  # until the related papers are listed
                await pilot.pause(0.05)
                if app.main_screen.query_one("RelatedList").option_count:
                    break
            app.save_screenshot(filename=OUT.name, path=str(OUT.parent))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    asyncio.run(main())
