"""What a long command is doing, on standard error when it is a terminal: a line shown once the command has taken
more than DELAY seconds without a word (reading 100,000 papers, building their search index, deriving their
titles), a bar when the amount of work is known, else a spinner; cleared when done, nothing at all when standard
error is a file or a pipe.

`Progress.doing` names what is being done meanwhile; `advance` counts it; `stop` takes the line away for good
(the command's output is about to reach the same terminal, or the command ended). Lines for standard error while it
is shown go through `echo_err`, above it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

DELAY = 1.0  # seconds of silence before a line says what is going on


def is_terminal(stream: Any) -> bool:
    """Whether `stream` is a terminal (the tests stand in for one here)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Progress:
    """The progress line of one command (see the module docstring). Safe to call whether or not it is shown."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._doing: list[tuple[str, int | None]] = []  # what is being done, innermost last
        self._done = 0
        self._timer: threading.Timer | None = None
        self._bar: Any = None  # rich.progress.Progress while shown
        self._task: Any = None
        self._stopped = False

    @property
    def shown(self) -> bool:
        return self._bar is not None

    @contextmanager
    def doing(self, label: str, total: int | None = None) -> Iterator[None]:
        """Doing `label` meanwhile (`total` steps, counted by `advance`; None: a spinner). Once nothing is being
        done the line goes (the command is about to print), to come back if more work takes long again."""
        with self._lock:
            self._doing.append((label, total))
            self._show(label, total)
        try:
            yield
        finally:
            with self._lock:
                self._doing.pop()
                if self._doing:
                    self._show(*self._doing[-1])
                else:
                    self._hide()

    def _show(self, label: str, total: int | None) -> None:
        """The line says `label` now, or will once DELAY has passed (the lock held)."""
        self._done = 0
        if self._stopped:
            return
        if self._bar is not None:
            self._bar.update(self._task, description=label, total=total, completed=0, refresh=True)
        elif self._timer is None and is_terminal(sys.stderr):
            if DELAY <= 0:
                self._start()
                return
            self._timer = threading.Timer(DELAY, self._start_late)
            self._timer.daemon = True
            self._timer.start()

    def _hide(self) -> None:
        """The lock held."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def advance(self, steps: int = 1) -> None:
        self._done += steps
        bar = self._bar
        if bar is not None:
            bar.update(self._task, completed=self._done)

    def stop(self) -> None:
        """Take the line away for good (also before it was shown: then it never is)."""
        with self._lock:
            self._stopped = True
            self._hide()

    def echo_err(self, line: str) -> None:
        """A line on standard error: above the progress line while it is shown, not through it."""
        with self._lock:
            if self._bar is not None:
                self._bar.console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)
                return
        click.echo(line, err=True)

    def _start_late(self) -> None:
        with self._lock:
            if not self._stopped and self._bar is None and self._doing:
                self._start()

    def _start(self) -> None:
        """Show the line (the lock held)."""
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn

        class _Console(Console):
            def show_cursor(self, show: bool = True) -> bool:
                return False  # the cursor stays: `readlist list | head` ends the process without a word

        console = _Console(stderr=True, force_terminal=True)
        columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn())  # fmt: skip
        from rich.progress import Progress as Bar

        self._bar = Bar(*columns, console=console, transient=True, redirect_stdout=False, redirect_stderr=False)
        label, total = self._doing[-1]
        self._task = self._bar.add_task(label, total=total, completed=self._done)
        self._bar.start()


_current = Progress()


def current() -> Progress:
    """The progress line of the command running in this process."""
    return _current


def begin() -> Progress:
    """A new progress line for a command starting (a test runs many in one process)."""
    global _current
    _current.stop()
    _current = Progress()
    return _current
