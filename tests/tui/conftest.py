"""Building the app as the CLI does, on temp files, and reading what the screen shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import parse_text, read_papers
from readlist.tui.app import ReadlistApp

PAPERS = """Test list

We propose FastDiff, a distilled diffusion sampler that needs four steps. Code: https://example.org/fastdiff

Graph neural networks suffer from over-squashing. We study curvature rewiring as a remedy.

Large language models can be attacked with [/bold] markup [link=x]and \x1b[31mescape\x07 sequences in abstracts.

We introduce TableBench, a benchmark for reasoning over tables with language models.

Reinforcement learning agents explore poorly in sparse-reward settings; we add curiosity bonuses.
"""


def make_app(tmp_path: Path, text: str | None = PAPERS, *, bundled: bool = False) -> ReadlistApp:
    papers = read_papers(bundled_papers()) if bundled else parse_text(text, str(tmp_path / "papers.txt"))
    app = ReadlistApp(papers, tmp_path / "db.json", cursor_blink=False)
    return app


def app_on_a_paper_file(tmp_path) -> tuple[Path, ReadlistApp]:
    """An app on a paper file of its own (not text), which it watches for changes."""
    papers_file = tmp_path / "papers.txt"
    papers_file.write_text(PAPERS)
    return papers_file, ReadlistApp(read_papers(papers_file), tmp_path / "db.json", cursor_blink=False)


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


def notifications(app) -> list:
    """The notifications the app holds now (shown, or waiting to be shown): Textual keeps them privately."""
    return list(app._notifications)


def screen_text(app) -> str:
    """Everything the terminal shows now, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def settle(pilot) -> None:
    """Wait for workers (search, index, related) and the refresh they cause."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot, predicate, timeout: float = 5.0, what: str = "the condition") -> None:
    """Let the app run until `predicate()` holds (a dialog pushed by a worker, a file written), failing
    after `timeout` seconds: never a fixed pause that a loaded machine outlasts."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:g} s waiting for {what}; the screen:\n{screen_text(pilot.app)}"
            )
        await pilot.pause(0.02)


async def press_together(pilot, *keys: str) -> None:
    """Keys arriving in one read from the terminal: all queued before the first is handled. A character
    arrives under its key name, as from the terminal (`/` is "slash")."""
    from textual import events
    from textual.keys import _character_to_key

    app = pilot.app
    for key in keys:
        event = events.Key(_character_to_key(key), key) if len(key) == 1 else events.Key(key, None)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)
