"""A click group that imports a command's module only when that command runs (start-up stays quick)."""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    def __init__(self, *args, lazy_commands: dict[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = lazy_commands or {}  # name -> "module:attribute" relative to readlist.cli

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy_commands:
            module_name, attribute = self.lazy_commands[name].split(":")
            module = importlib.import_module(f"readlist.cli.{module_name}")
            return getattr(module, attribute)
        return super().get_command(ctx, name)
