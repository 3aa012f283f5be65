"""`autopatch-j memory publish`: the project's decisions in a managed block of AGENTS.md / CLAUDE.md.

The work is `app.publish.service.publish` (shared with the drain's automatic publish, the hooks and
the MCP tool); this module parses options and renders. docs/publish.md describes the block.

JSON output (`--json`) is stable:

    {"scope": "project"|"user", "kind": "project_decision"|"user_preference", "total": int,
     "shown": int, "omitted": int, "dry_run": bool, "check": bool, "remove": bool, "stale": bool,
     "files": [{"target": "agents"|"claude", "path": str,
                "action": "created"|"updated"|"removed"|"deleted"|"unchanged",
                "written": bool, "diff": str|null}]}

`diff` is the unified diff with `--dry-run` or `--check`, else null. `--check` exits 1 when a file
would change (stale), 0 when every file is up to date; it writes nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Annotated

import typer

from autopatch_j.app.context import AppContext
from autopatch_j.app.publish.service import PublishReport, publish, publish_payload, targets_for
from autopatch_j.app.render import emit_json, say
from autopatch_j.cli.invocation import app_context


class To(enum.Enum):
    AGENTS = "agents"
    CLAUDE = "claude"
    ALL = "all"


def run_publish(
    app: AppContext, *, to: To, user: bool, dry_run: bool, check: bool, remove: bool, as_json: bool
) -> None:
    write = not (dry_run or check)
    report = publish(app, targets=targets_for(to.value), user=user, remove=remove, write=write)
    if as_json:
        emit_json(app.console, publish_payload(report, dry_run=dry_run, check=check, remove=remove))
    else:
        _render(app, report, dry_run=dry_run, check=check, remove=remove)
    if check and report.stale:
        raise typer.Exit(1)


def summary(report: PublishReport) -> str:
    """One line for people: what each file became and how many memories the block shows."""
    noun = "preference" if report.scope == "user" else "decision"
    files = ", ".join(f"{f.path} ({f.action.value})" for f in report.files)
    left = f"; {report.total - report.shown} more not shown" if report.total > report.shown else ""
    return f"Published {report.shown} {noun}(s){left}: {files}."


def _render(app: AppContext, report: PublishReport, *, dry_run: bool, check: bool, remove: bool) -> None:
    c = app.console
    if dry_run:
        for f in report.files:
            if f.diff:
                c.file.write(f.diff)
    if check:
        for f in report.files:
            state = "is stale" if f.changed else "is up to date"
            say(c, f"{f.path} {state}.")
        if report.stale:
            again = " --user" if report.scope == "user" else ""
            say(app.err_console, f"Run `autopatch-j memory publish{again}` to bring it up to date.", "yellow")
        return
    if dry_run:
        say(app.err_console, "(dry run: nothing was written)", "dim")
        return
    if remove:
        say(c, "; ".join(f"{f.path}: {f.action.value}" for f in report.files) + ".")
        return
    say(c, summary(report))


def register(memory_app: typer.Typer, get_context: Callable[[typer.Context], AppContext] = app_context) -> None:
    """Add `publish` to the `memory` command group."""

    @memory_app.command("publish")
    def publish_command(
        ctx: typer.Context,
        to: Annotated[
            To, typer.Option("--to", help="Which file: AGENTS.md, CLAUDE.md or both.", case_sensitive=False)
        ] = To.ALL,
        user: Annotated[
            bool, typer.Option("--user", help="Your preferences to the user-level files (~/.codex, ~/.claude).")
        ] = False,
        dry_run: Annotated[
            bool, typer.Option("--dry-run", help="Print the change as a unified diff; write nothing.")
        ] = False,
        check: Annotated[bool, typer.Option("--check", help="Exit 1 when a block is stale; write nothing.")] = False,
        remove: Annotated[bool, typer.Option("--remove", help="Take the managed block out of the files.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")] = False,
    ) -> None:
        """Write the project's decisions into a managed block of AGENTS.md / CLAUDE.md (docs/publish.md)."""
        run_publish(get_context(ctx), to=to, user=user, dry_run=dry_run, check=check, remove=remove, as_json=as_json)
