"""The `autopatch-j` command: the typer application and its single error boundary."""

from __future__ import annotations

import sys

import click
import typer

from autopatch_j.cli.cloud import cloud_app
from autopatch_j.cli.errors import exit_code_for, message_for

app = typer.Typer(
    name="autopatch-j",
    help="A coding-agent CLI whose ordinary conversation continues across restarts.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(cloud_app, name="cloud")


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every known failure becomes one sentence and a non-zero exit code."""
    try:
        app(args=argv, standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except Exception as exc:
        code = exit_code_for(exc)
        if code is None:
            raise
        click.echo(f"error: {message_for(exc)}", err=True)
        sys.exit(code)
