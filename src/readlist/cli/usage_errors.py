"""Mistakes on the command line as one line, as readlist's own errors are (click prints four), and a path
parameter that refuses an empty path."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import click


class OneLineUsageError(click.ClickException):
    """A click usage error shown as `readlist: search: missing argument 'QUERY' (see readlist search --help)`."""

    exit_code = 2

    def __init__(self, error: click.UsageError) -> None:
        super().__init__(error.format_message())
        path = error.ctx.command_path.split(" ") if error.ctx is not None else []
        self.command_path = " ".join(["readlist", *path[1:]])  # the program's name, however it was started

    def show(self, file: IO[str] | None = None) -> None:
        message = self.message.strip().rstrip(".")
        message = message[:1].lower() + message[1:]
        where = self.command_path.partition(" ")[2]
        prefix = f"readlist: {where}: " if where else "readlist: "
        click.echo(f"{prefix}{message} (see {self.command_path} --help)", file=file, err=file is None)


@contextmanager
def one_line_usage_errors() -> Iterator[None]:
    try:
        yield
    except OneLineUsageError:
        raise
    except click.UsageError as error:
        raise OneLineUsageError(error) from error


class GivenPath(click.Path):
    """A path that must not be empty: `--db "$DB"` with DB unset must not fall back to the user's own database,
    and `-o ""` is no file name."""

    def convert(self, value, param, ctx):
        if value == "":
            self.fail("an empty path", param, ctx)
        return super().convert(value, param, ctx)
