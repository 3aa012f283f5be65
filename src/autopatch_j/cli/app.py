"""The `autopatch-j` command: the typer application and its single error boundary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from autopatch_j.cli import ask_cmds, eval_cmds, mcp_cmds, pipeline_cmds, search_cmds
from autopatch_j.cli.cloud import cloud_app
from autopatch_j.cli.context import AppContext, app_context
from autopatch_j.cli.errors import exit_code_for, message_for
from autopatch_j.cli.memory_cmds import memory_app, register_top_level

app = typer.Typer(
    name="autopatch-j",
    help="A coding-agent CLI whose ordinary conversation continues across restarts.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback(invoke_without_command=True)
def root(
    ctx: typer.Context,
    project: Annotated[
        Path | None, typer.Option("--project", "-C", help="Project root (default: the current directory).")
    ] = None,
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
app.add_typer(memory_app, name="memory")
register_top_level(app)
ask_cmds.register(app)
eval_cmds.register(app)
mcp_cmds.register(app)
app.add_typer(cloud_app, name="cloud")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every known failure becomes one sentence and a non-zero exit code.

    Usage errors are reported by typer itself (exit 2); our packages' exceptions are mapped here,
    in one place (cli/errors.py). An unknown exception is a bug and keeps its traceback.
    """
    try:
        app(args=argv, prog_name="autopatch-j")
    except Exception as exc:
        code = exit_code_for(exc)
        if code is None:
            raise
        sys.stderr.write(f"error: {message_for(exc)}\n")
        sys.exit(code)
