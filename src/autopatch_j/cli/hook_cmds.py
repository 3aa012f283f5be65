"""`autopatch-j hook …`: run as another agent's hook (cli/hook_runner.py), and install it — rendering only."""

from __future__ import annotations

import datetime as dt
import enum
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from autopatch_j.cli import hook_runner
from autopatch_j.cli.context import AppContext, app_context
from autopatch_j.cli.render import say

hook_app = typer.Typer(help="Agent hooks: import Claude Code and Codex turns as they happen.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the `hook` command group to the root application."""
    app.add_typer(hook_app, name="hook")


class Agent(enum.Enum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


def hook_executable() -> str:
    """How the agent should start us: this program's absolute path when it can be found."""
    candidate = Path(sys.argv[0])
    if candidate.name == "autopatch-j" and candidate.is_file():
        return str(candidate.resolve())
    return shutil.which("autopatch-j") or "autopatch-j"


def run_install(app: AppContext, agent: Agent, *, user: bool, project: bool, dry_run: bool) -> None:
    from autopatch_j.cli.import_cmds import agent_homes
    from autopatch_j.transcripts import install
    from autopatch_j.transcripts.errors import SettingsFileError

    if user and project:
        raise SettingsFileError("Choose one of --project and --user.")
    home, codex_home = agent_homes(app)
    exe = hook_executable()
    if agent is Agent.CLAUDE_CODE:
        path = home / ".claude" / "settings.json" if user else app.root / ".claude" / "settings.json"
        plan = install.plan_claude(path, f"{shlex.quote(exe)} hook claude-code")
    else:
        if project:
            raise SettingsFileError("Codex reads notify only from $CODEX_HOME/config.toml; use --user (the default).")
        plan = install.plan_codex(codex_home / "config.toml", [exe, "hook", "codex"])
    if not plan.changed:
        say(app.console, f"The {agent.value} hook is already installed in {plan.path}; nothing to change.")
        return
    if dry_run:
        app.console.file.write(plan.diff())
        say(app.console, f"(dry run: {plan.path} was not changed)", "dim")
        return
    stamp = dt.datetime.now(tz=dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = install.apply(plan, stamp=stamp)
    say(app.console, f"Installed the {agent.value} hook in {plan.path}.")
    if backup is not None:
        say(app.console, f"The previous file was kept as {backup}.")


@hook_app.command("claude-code")
def claude_code_command(ctx: typer.Context) -> None:
    """Run as a Claude Code hook (Stop, SessionEnd, PreCompact): import that session's new turns; always exits 0."""
    hook_runner.claude_code(_named_project(ctx))


@hook_app.command("codex")
def codex_command(
    ctx: typer.Context,
    notification: Annotated[
        str | None, typer.Argument(metavar="[JSON]", help="The notification Codex passes to notify.")
    ] = None,
) -> None:
    """Run as Codex's notify program: admit the finished turn (known by its turn id); always exits 0."""
    hook_runner.codex(_named_project(ctx), notification)


def _named_project(ctx: typer.Context) -> Path | None:
    """The project named with `-C`: the hooks' last resort when the agent's cwd lies in no project."""
    return app_context(ctx).root if ctx.find_root().params.get("project") is not None else None


@hook_app.command("install")
def install_command(
    ctx: typer.Context,
    agent: Annotated[Agent, typer.Argument(help="claude-code or codex.", case_sensitive=False)],
    project: Annotated[bool, typer.Option("--project", help="This project's settings (default).")] = False,
    user: Annotated[bool, typer.Option("--user", help="Your user settings (~/.claude, $CODEX_HOME).")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the change as a diff; write nothing.")] = False,
) -> None:
    """Add the hook to the agent's settings file: merged, backed up, idempotent."""
    run_install(app_context(ctx), agent, user=user, project=project, dry_run=dry_run)
