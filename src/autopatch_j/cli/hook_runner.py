"""The hooks' work, importable without typer or rich (the agent waits on a hook: cold start matters).

Used by `autopatch-j hook claude-code|codex` (cli/hook_cmds.py) and by the launcher's fast path
(cli/launch.py). A hook never fails the agent's turn: every problem becomes one line on stderr and
in a log, and the exit code is always 0. It imports only the session it is told about and leaves
extraction to the background — unless the project's `publish` setting is on (docs/publish.md): then,
after the import, it drains for at most `HOOK_DRAIN_SECONDS` and republishes the decisions, so a
decision confirmed in the agent reaches AGENTS.md / CLAUDE.md by the end of that turn.

Which project: the one the hook's `cwd` lies in (else the `cwd` the transcript recorded), found the
way git finds a repository — the nearest enclosing `.autopatch-j/` or repository root. A hook never
creates a store anywhere else: with no project found it imports nothing and says so. Problems are
logged to the project's `.autopatch-j/hooks.log` when that folder exists, else to the user-level log
(`hooks.log` in platformdirs' user log folder, e.g. `~/.local/state/autopatch-j/log/`).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HOOK_LOG = "hooks.log"
HOOK_DRAIN_SECONDS = 20.0  # with `publish` on: no new drain step starts after this (the agent waits)


class NoProjectFound(Exception):
    """The hook's cwd lies in no project: nothing is imported, nothing is created."""


def user_log() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("autopatch-j", appauthor=False)) / HOOK_LOG


def log_problem(root: Path | None, agent: str, message: str) -> None:
    """One line on stderr and in the project's hook log (the user-level one without a store); never raises."""
    sys.stderr.write(f"autopatch-j hook {agent}: {message}\n")
    state = root / ".autopatch-j" if root is not None else None
    stamp = dt.datetime.now(tz=dt.UTC).isoformat(timespec="seconds")
    try:
        log = state / HOOK_LOG if state is not None and state.is_dir() else user_log()
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {agent}: {message}\n")
    except OSError:
        pass


def find_project(*candidates: Any) -> Path | None:
    """The project of the first candidate directory that lies in one (see the module docstring)."""
    from autopatch_j.state_dir import find_project_root

    for cwd in candidates:
        if isinstance(cwd, Path) or (isinstance(cwd, str) and cwd):
            folder = Path(cwd)
            if folder.is_absolute() and folder.is_dir():
                found = find_project_root(folder.resolve())
                if found is not None:
                    return found
    return None


def _require_project(fallback: Path | None, *candidates: Any) -> Path:
    root = find_project(*candidates, fallback)
    if root is None:
        shown = next((c for c in candidates if isinstance(c, str) and c), None)
        where = f"for {shown}" if shown else "(the hook input names no cwd)"
        raise NoProjectFound(
            f"no project found {where}: no enclosing .autopatch-j/ or repository; "
            "run `autopatch-j memory status` in the project once, then this hook imports there."
        )
    return root


def _payload(stdin_text: str) -> dict[str, Any]:
    from autopatch_j.transcripts import HookInputError

    try:
        payload = json.loads(stdin_text)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"The Claude Code hook input is not valid JSON ({exc.msg}).") from exc
    if not isinstance(payload, dict):
        raise HookInputError("The Claude Code hook input must be a JSON object.")
    return payload


def import_claude_session(fallback: Path | None, stdin_text: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.transcripts import HookInputError, Importer, SessionFile, claude_cwd

    payload = _payload(stdin_text)
    transcript = payload.get("transcript_path")
    if not isinstance(transcript, str) or not transcript.endswith(".jsonl") or not Path(transcript).is_file():
        raise HookInputError(f'The hook input\'s "transcript_path" is not a session file: {transcript!r}.')
    path = Path(transcript)
    root = find_project(payload.get("cwd")) or _require_project(fallback, payload.get("cwd"), claude_cwd(path))
    manager = MemoryManager(root=root)
    manager.open()
    try:
        session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=path.stem)
        Importer(manager=manager).import_session(session)
    finally:
        manager.close()
    drain_and_publish(root)


def admit_codex_turn(fallback: Path | None, notification: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.transcripts import Importer, parse_notify

    notify = parse_notify(notification)
    if notify.turn is None:
        return
    root = _require_project(fallback, notify.cwd)
    manager = MemoryManager(root=root)
    manager.open()
    try:
        Importer(manager=manager).admit_turn(source=Source.CODEX, session_id=notify.session_id, turn=notify.turn)
    finally:
        manager.close()
    drain_and_publish(root)


def drain_and_publish(root: Path) -> None:
    """With the project's `publish` setting on: a bounded drain, then the publish `memory drain` does.
    Off (the default): nothing, and nothing more is imported."""
    import os

    from autopatch_j.app.publish.settings import read_publish_targets

    targets = read_publish_targets(os.environ, root)
    if not targets:
        return
    from autopatch_j.app.context import AppContext
    from autopatch_j.app.pipelines import pipeline_for
    from autopatch_j.app.publish.service import publish
    from autopatch_j.memory.drain import drain

    app = AppContext.from_environment(root=root)
    try:
        drain(pipeline_for(app), budget_s=HOOK_DRAIN_SECONDS)
        publish(app, targets=targets)
    finally:
        app.close()


def _cwd_hint(text: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value.get("cwd") if isinstance(value, dict) else None


def never_fail(fallback: Path | None, agent: str, text: str, work: Callable[[Path | None, str], None]) -> None:
    """Run a hook; whatever happens, report it and return (the caller exits 0)."""
    try:
        work(fallback, text)
    except Exception as exc:
        from autopatch_j.app.errors import message_for

        message = str(exc) if isinstance(exc, NoProjectFound) else message_for(exc)
        log_problem(find_project(_cwd_hint(text), fallback), agent, message)


def claude_code(fallback: Path | None) -> None:
    """`fallback`: the project named with `-C`, used when the hook input's cwds lie in no project."""
    if sys.stdin is None or sys.stdin.isatty():
        log_problem(fallback, "claude-code", "expects Claude Code's hook JSON on stdin.")
        return
    never_fail(fallback, "claude-code", sys.stdin.read(), import_claude_session)


def codex(fallback: Path | None, notification: str | None) -> None:
    if notification is None:
        log_problem(fallback, "codex", "expects Codex's notification JSON as its one argument.")
        return
    never_fail(fallback, "codex", notification, admit_codex_turn)
