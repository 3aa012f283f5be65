"""`autopatch-j hook …`: run as another agent's hook, and install it (docs/import.md) — rendering only.

A hook must never fail the agent's turn: every problem becomes one line on stderr and in
`.autopatch-j/hooks.log`, and the exit code is always 0. It imports only the session it is told
about and leaves extraction to the background (it never drains).
"""

from __future__ import annotations

import datetime as dt
import enum
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from autopatch_j.cli.context import AppContext, app_context
from autopatch_j.cli.errors import message_for
from autopatch_j.cli.render import say

hook_app = typer.Typer(help="Agent hooks: import Claude Code and Codex turns as they happen.", no_args_is_help=True)

HOOK_LOG = "hooks.log"


class Agent(enum.Enum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


def _log_problem(root: Path, agent: str, message: str) -> None:
    """One line on stderr and in the project's hook log; never raises."""
    line = f"{dt.datetime.now(tz=dt.UTC).isoformat(timespec='seconds')} {agent}: {message}"
    sys.stderr.write(f"autopatch-j hook {agent}: {message}\n")
    try:
        log = root / ".autopatch-j" / HOOK_LOG
        log.parent.mkdir(exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    except OSError:
        pass


def _project_root(app: AppContext, cwd: Any) -> Path:
    if isinstance(cwd, str) and cwd and Path(cwd).is_dir():
        return Path(cwd).resolve()
    return app.root


def _open_manager(root: Path) -> Any:
    from autopatch_j.memory.manager import MemoryManager

    manager = MemoryManager(root=root)
    manager.open()
    return manager


def run_claude_hook(app: AppContext, stdin_text: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.transcripts.discovery import SessionFile
    from autopatch_j.transcripts.errors import HookInputError
    from autopatch_j.transcripts.importer import Importer

    try:
        payload = json.loads(stdin_text)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"The Claude Code hook input is not valid JSON ({exc.msg}).") from exc
    if not isinstance(payload, dict):
        raise HookInputError("The Claude Code hook input must be a JSON object.")
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.endswith(".jsonl") or not Path(transcript).is_file():
        raise HookInputError(f'The hook input\'s "transcript_path" is not a session file: {transcript!r}.')
    root = _project_root(app, payload.get("cwd"))
    manager = _open_manager(root)
    try:
        path = Path(transcript)
        session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=path.stem)
        Importer(manager=manager).import_session(session)
    finally:
        manager.close()


def run_codex_hook(app: AppContext, notification: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.transcripts.codex import parse_notify
    from autopatch_j.transcripts.importer import Importer

    notify = parse_notify(notification)
    if notify.turn is None:
        return
    manager = _open_manager(_project_root(app, notify.cwd))
    try:
        Importer(manager=manager).admit_turn(source=Source.CODEX, session_id=notify.session_id, turn=notify.turn)
    finally:
        manager.close()


def _never_fail(app: AppContext, agent: Agent, root_hint: Any, work: Any) -> None:
    try:
        work()
    except Exception as exc:  # a hook reports and exits 0, whatever happened
        _log_problem(_project_root(app, root_hint), agent.value, message_for(exc))


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
    app = app_context(ctx)
    if sys.stdin.isatty():
        _log_problem(app.root, Agent.CLAUDE_CODE.value, "expects Claude Code's hook JSON on stdin.")
        return
    text = sys.stdin.read()
    try:
        hint = json.loads(text).get("cwd")
    except (json.JSONDecodeError, AttributeError):
        hint = None
    _never_fail(app, Agent.CLAUDE_CODE, hint, lambda: run_claude_hook(app, text))


@hook_app.command("codex")
def codex_command(
    ctx: typer.Context,
    notification: Annotated[str, typer.Argument(metavar="JSON", help="The notification Codex passes to notify.")],
) -> None:
    """Run as Codex's notify program: admit the finished turn (known by its turn id); always exits 0."""
    app = app_context(ctx)
    try:
        hint = json.loads(notification).get("cwd")
    except (json.JSONDecodeError, AttributeError):
        hint = None
    _never_fail(app, Agent.CODEX, hint, lambda: run_codex_hook(app, notification))


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
