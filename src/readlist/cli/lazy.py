"""A click group that imports a command's module only when that command runs (start-up stays quick),
and shows mistakes on the command line in one line."""

from __future__ import annotations

import importlib

import click

from .usage_errors import one_line_usage_errors


class LazyGroup(click.Group):
    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands or {}  # name -> "module:attribute" in readlist.cli.commands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy_commands:
            module_name, attribute = self.lazy_commands[name].split(":")
            module = importlib.import_module(f"readlist.cli.commands.{module_name}")
            return getattr(module, attribute)
        return super().get_command(ctx, name)

    def make_context(self, *args, **kwargs) -> click.Context:
        with one_line_usage_errors():  # a bad global option
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        with one_line_usage_errors():  # an unknown command, or a command's bad argument or option
            return super().invoke(ctx)
