"""The `autopatch-j` command: the typer application and its single error boundary."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated

import typer

from autopatch_j.cli import ask_cmds, eval_cmds, import_cmds, mcp_cmds, pipeline_cmds, search_cmds, signals
from autopatch_j.cli.cloud import cloud_app
from autopatch_j.cli.context import AppContext, app_context
from autopatch_j.cli.errors import exit_code_for, message_for
from autopatch_j.cli.hook_cmds import hook_app
from autopatch_j.cli.memory_cmds import memory_app, register_top_level

app = typer.Typer(
    name="autopatch-j",
    help="A coding-agent CLI whose ordinary conversation continues across restarts.",
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
    ctx.obj = AppContext.from_environment(root=project)
    ctx.call_on_close(ctx.obj.close)
    if ctx.invoked_subcommand is None:
        from autopatch_j.cli.repl_entry import run_repl

        run_repl(ctx.obj)


search_cmds.register(memory_app, app_context)
pipeline_cmds.register(memory_app, app_context)
import_cmds.register(memory_app, app_context)
app.add_typer(memory_app, name="memory")
register_top_level(app)
ask_cmds.register(app)
eval_cmds.register(app)
mcp_cmds.register(app)
app.add_typer(cloud_app, name="cloud")
app.add_typer(hook_app, name="hook")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every known failure becomes one sentence and a non-zero exit code.

    Usage errors are reported by typer itself (exit 2); our packages' exceptions are mapped here,
    in one place (cli/errors.py). An unknown exception is a bug and keeps its traceback. Ctrl-C
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
            code = exit_code_for(exc)
            if code is None:
                raise
            sys.stderr.write(f"error: {message_for(exc)}\n")
            sys.exit(code)
