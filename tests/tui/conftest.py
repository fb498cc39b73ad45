"""Building the app as the CLI does, on temp files, reading what the screen shows, and waiting for what it does.

Textual's private state is read here only, so that a Textual upgrade that changes it is fixed in one place."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from time import monotonic

import pytest

from readlist.core.files.paths import bundled_papers
from readlist.core.papers.reader import parse_text, read_papers
from readlist.tui.app import ReadlistApp
from readlist.tui.widgets.detail import DetailPane

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


def widget_text(app, selector: str) -> str:
    """What one widget of the screen shows, as plain text, its wrapped lines joined by single spaces (a line
    breaks where the text meets the widget's width, which depends on the length of paths shown in it)."""
    region = app.screen.query_one(selector).content_region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return " ".join(" ".join(strip.crop(region.x, region.right).text.split()) for strip in strips).strip()


async def settle(pilot) -> None:
    """Wait for workers (search, index, related) and the refresh they cause."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot, predicate: Callable[[], object], what: str, timeout: float = 10) -> None:
    """Pause in short steps until `predicate()` holds; fail saying `what` never came after `timeout` seconds
    (generous: the machine running the tests may be busy with other work)."""
    deadline = monotonic() + timeout
    while not predicate():
        if monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        await pilot.pause(0.02)


async def wait_for_screen(pilot, screen_type: type) -> None:
    """Wait until a screen of this type is on top and mounted (a dialog opened by a key)."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, screen_type) and app.screen.is_mounted, screen_type.__name__)
    await pilot.pause()


def related_shown(app) -> bool:
    """The detail pane lists the papers related to the paper shown (none, when none is related to it); they are
    looked up once the search index is built and the cursor rests on the paper."""
    main = app.main_screen
    position = main.paper_list.current
    if position is None or len(app.papers.papers) < 2:
        return True  # nothing is looked up
    related = app.related_index()
    if related is None:
        return False  # not before the index is built
    expected = tuple(pos for pos, _ in related.related(position, k=5))
    return main.query_one(DetailPane).related_positions == expected


async def wait_for_related(pilot) -> None:
    """Wait until the detail pane lists the papers related to the paper shown."""
    await settle(pilot)
    await wait_until(pilot, lambda: related_shown(pilot.app), "the papers related to the paper shown")
    await settle(pilot)


async def run_from_palette(pilot, words: str) -> None:
    """Open the command palette, type `words` and run the command it offers first."""
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*words)
    await settle(pilot)
    await pilot.press("enter")


def count_layouts(monkeypatch) -> list[int]:
    """Count the screen-wide layout passes from now on (Textual's, private): one list, its length the count."""
    from textual.screen import Screen

    passes: list[int] = []
    refresh_layout = Screen._refresh_layout

    def counted(self, *args, **kwargs):
        passes.append(1)
        return refresh_layout(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return passes


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


def screen_cells(app, region) -> list[list[tuple[str, object]]]:
    """What a region of the screen shows, each line's text and styles as drawn now (a widget whose lines were not
    drawn again shows them as they were)."""
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return [[(segment.text, segment.style) for segment in strip.crop(region.x, region.right)] for strip in strips]


def redrawn(widget) -> None:
    """Have a widget draw itself afresh at the next refresh (Textual's refresh, not one a test counts)."""
    from textual.widget import Widget

    Widget.refresh(widget)


def as_textual_draws(widget, width: int | None = None) -> list[list[tuple[str, object]]]:
    """A widget's lines as Textual's own styles pass draws them for the screen, from scratch (their first `width`
    cells when given)."""
    from textual.widget import Widget

    widget._styles_cache.clear()
    strips = Widget.render_lines(widget, widget.size.region)
    if width is not None:
        strips = [strip.crop(0, width) for strip in strips]
    return [[(segment.text, segment.style) for segment in strip] for strip in strips]


def as_drawn(widget) -> list[list[tuple[str, object]]]:
    """A widget's lines as it gives them to the screen."""
    return [[(segment.text, segment.style) for segment in strip] for strip in widget.render_lines(widget.size.region)]


def count_styled_lines(monkeypatch) -> list:
    """The widgets whose lines pass through Textual's styles pass (private) from now on, one entry a line."""
    from textual._styles_cache import StylesCache

    widgets: list = []
    render_line = StylesCache.render_line

    def counted(self, styles, y, size, content_size, padding, base, background, render_content_line, *args):
        widgets.append(getattr(render_content_line, "__self__", None))
        return render_line(self, styles, y, size, content_size, padding, base, background, render_content_line, *args)

    monkeypatch.setattr(StylesCache, "render_line", counted)
    return widgets
