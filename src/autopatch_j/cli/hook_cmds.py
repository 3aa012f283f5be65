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

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import say
from autopatch_j.cli import hook_runner
from autopatch_j.cli.invocation import app_context

hook_app = typer.Typer(help="Agent hooks: import Claude Code and Codex turns as they happen.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the `hook` command group to the root application."""
    app.add_typer(hook_app, name="hook")


class Agent(enum.Enum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


PORTABLE_PROGRAM = "autopatch-j"  # what a committed project setting runs: the program on each PATH


def hook_executable() -> str:
    """This machine's program, by absolute path (for user-level settings): the running
    `autopatch-j`, else the one on PATH, else the one beside this Python."""
    candidate = Path(sys.argv[0])
    if candidate.name == PORTABLE_PROGRAM and candidate.is_file():
        return str(candidate.resolve())
    sibling = Path(sys.executable).parent / PORTABLE_PROGRAM
    return shutil.which(PORTABLE_PROGRAM) or (str(sibling) if sibling.is_file() else PORTABLE_PROGRAM)


def backup_folder() -> Path:
    """Where replaced settings files are kept: the user-level state folder, never the project."""
    import platformdirs

    return Path(platformdirs.user_state_dir("autopatch-j", appauthor=False)) / "backups"


def run_install(app: AppContext, agent: Agent, *, user: bool, project: bool, dry_run: bool) -> None:
    from autopatch_j.cli.import_cmds import agent_homes
    from autopatch_j.transcripts import SettingsFileError, apply_plan, plan_claude, plan_codex

    if user and project:
        raise SettingsFileError("Choose one of --project and --user.")
    home, codex_home = agent_homes(app)
    if agent is Agent.CLAUDE_CODE:
        path = home / ".claude" / "settings.json" if user else app.root / ".claude" / "settings.json"
        program = shlex.quote(hook_executable()) if user else PORTABLE_PROGRAM
        plan = plan_claude(path, f"{program} hook claude-code")
    else:
        if project:
            raise SettingsFileError("Codex reads notify only from $CODEX_HOME/config.toml; use --user (the default).")
        plan = plan_codex(codex_home / "config.toml", [hook_executable(), "hook", "codex"])
    if not plan.changed:
        say(app.console, f"The {agent.value} hook is already installed in {plan.path}; nothing to change.")
        return
    if dry_run:
        app.console.file.write(plan.diff())
        say(app.console, f"(dry run: {plan.path} was not changed)", "dim")
        return
    stamp = dt.datetime.now(tz=dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = apply_plan(plan, stamp=stamp, backups=backup_folder())
    say(app.console, f"Installed the {agent.value} hook in {plan.path}.")
    if backup is not None:
        say(app.console, f"The previous file was kept as {backup}.")
    if agent is Agent.CLAUDE_CODE and not user:
        app.manager()  # the project's Memory exists, so the hook finds this project from any subdirectory
        if shutil.which(PORTABLE_PROGRAM, path=app.environ.get("PATH")) is None:
            say(
                app.console,
                f"`{PORTABLE_PROGRAM}` is not on your PATH: Claude Code runs `{PORTABLE_PROGRAM} hook claude-code` "
                "with it. Install it on PATH (e.g. `pipx install`), or use --user for this machine's absolute path.",
                "yellow",
            )


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
