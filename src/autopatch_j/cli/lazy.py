"""Command groups whose subcommands are imported only when used (CLI cold start).

Typer turns every registered command into a click command (evaluating its annotations) before it
parses the arguments, and registering a command means importing its module. A `LazyGroup` instead
names its subcommands and the `register(app)` function that adds each one; only the subcommand that
runs is imported and converted. `--help` (and anything else that lists the group) still shows every
subcommand: listing loads them all.
"""

from __future__ import annotations

import functools
import importlib
from typing import ClassVar

import click
import typer
import typer.main
from typer.core import TyperGroup


@functools.cache
def _registered(target: str) -> click.Group:
    """Run `module:register` on an empty application and convert it to click, once per target."""
    module, _, function = target.partition(":")
    holder = typer.Typer(rich_markup_mode=None)  # plain click help, as the root application renders it
    getattr(importlib.import_module(module), function)(holder)
    group = typer.main.get_group(holder)
    _no_phantom_envvars(group)
    return group


def _no_phantom_envvars(command: click.Command) -> None:
    """Typer shows an option's environment variable in its error hint even when it has none, which
    reads "(env var: 'None')"; only options that really have one keep the hint."""
    for param in command.params:
        if isinstance(param, click.Option) and param.envvar is None:
            param.show_envvar = False
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _no_phantom_envvars(sub)


class LazyGroup(TyperGroup):
    """A typer group that also offers the subcommands of `lazy_commands`, loaded on first lookup."""

    #: subcommand name -> "module:function", a `register(app: typer.Typer) -> None` that adds it
    lazy_commands: ClassVar[dict[str, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        eager = super().list_commands(ctx)
        return [*eager, *(name for name in self.lazy_commands if name not in eager)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            command = _registered(self.lazy_commands[cmd_name]).commands.get(cmd_name)
            if command is None:
                raise RuntimeError(f"{self.lazy_commands[cmd_name]} does not register the command {cmd_name!r}")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)
