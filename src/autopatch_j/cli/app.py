"""The `autopatch-j` command: the typer application and its single error boundary."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated, ClassVar

import typer

from autopatch_j.app import signals
from autopatch_j.app.errors import exit_for
from autopatch_j.cli.lazy import LazyGroup


class RootGroup(LazyGroup):
    """The top-level commands, each imported only when it runs (or `--help` lists it)."""

    lazy_commands: ClassVar[dict[str, str]] = {
        "memory": "autopatch_j.cli.memory_cmds:register_group",
        "new": "autopatch_j.cli.memory_cmds:register_top_level",
        "gitignore": "autopatch_j.cli.memory_cmds:register_top_level",
        "reset": "autopatch_j.cli.memory_cmds:register_top_level",
        "ask": "autopatch_j.cli.ask_cmds:register",
        "patch": "autopatch_j.cli.ask_cmds:register",
        "eval": "autopatch_j.cli.eval_cmds:register",
        "mcp": "autopatch_j.cli.mcp_cmds:register",
        "cloud": "autopatch_j.cli.cloud:register",
        "hook": "autopatch_j.cli.hook_cmds:register",
    }


app = typer.Typer(
    name="autopatch-j",
    help="A coding-agent CLI whose ordinary conversation continues across restarts.",
    cls=RootGroup,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("autopatch-j")
        except PackageNotFoundError:
            number = "unknown"
        typer.echo(f"autopatch-j {number}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    project: Annotated[
        Path | None, typer.Option("--project", "-C", help="Project root (default: the current directory).")
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """A coding-agent CLI whose ordinary conversation continues across restarts."""
    if ctx.invoked_subcommand == "cloud":
        return
    from autopatch_j.app.context import AppContext

    ctx.obj = AppContext.from_environment(root=project)
    ctx.call_on_close(ctx.obj.close)
    if ctx.invoked_subcommand is None:
        from autopatch_j.cli.repl_entry import run_repl

        run_repl(ctx.obj)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every known failure becomes one sentence and a non-zero exit code.

    Usage errors are reported by typer itself (exit 2); our packages' exceptions are mapped here,
    in one place (app/errors.py). An unknown exception is a bug and keeps its traceback. Ctrl-C
    exits with 130 and SIGTERM with 143, after `AppContext.close` released this process's job leases.
    """
    with signals.exit_signals():
        try:
            app(args=argv, prog_name="autopatch-j")
        except signals.Terminated:
            sys.exit(signals.EXIT_SIGTERM)
        except SystemExit as exc:
            if signals.received() == signal.SIGINT and exc.code == 1:  # click's "Aborted!" after Ctrl-C
                sys.exit(signals.EXIT_SIGINT)
            raise
        except Exception as exc:
            exit_for(exc)
