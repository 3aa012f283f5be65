"""The hooks' work, importable without typer or rich (the agent waits on a hook: cold start matters).

Used by `autopatch-j hook claude-code|codex` (cli/hook_cmds.py) and by the launcher's fast path
(cli/launch.py). A hook never fails the agent's turn: every problem becomes one line on stderr and
in `.autopatch-j/hooks.log`, and the exit code is always 0. It imports only the session it is told
about and leaves extraction to the background (it never drains).
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HOOK_LOG = "hooks.log"


def log_problem(root: Path, agent: str, message: str) -> None:
    """One line on stderr and in the project's hook log; never raises."""
    sys.stderr.write(f"autopatch-j hook {agent}: {message}\n")
    try:
        log = root / ".autopatch-j" / HOOK_LOG
        log.parent.mkdir(exist_ok=True)
        with log.open("a", encoding="utf-8") as handle:
            handle.write(f"{dt.datetime.now(tz=dt.UTC).isoformat(timespec='seconds')} {agent}: {message}\n")
    except OSError:
        pass


def project_root(fallback: Path, cwd: Any) -> Path:
    """The agent's `cwd` when it names a directory, else the directory we were started in."""
    if isinstance(cwd, str) and cwd and Path(cwd).is_dir():
        return Path(cwd).resolve()
    return fallback


def _cwd_hint(text: str) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value.get("cwd") if isinstance(value, dict) else None


def import_claude_session(fallback: Path, stdin_text: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.memory.manager import MemoryManager
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
    manager = MemoryManager(root=project_root(fallback, payload.get("cwd")))
    manager.open()
    try:
        path = Path(transcript)
        session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=path.stem)
        Importer(manager=manager).import_session(session)
    finally:
        manager.close()


def admit_codex_turn(fallback: Path, notification: str) -> None:
    from autopatch_j.memory.imports import Source
    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.transcripts.codex import parse_notify
    from autopatch_j.transcripts.importer import Importer

    notify = parse_notify(notification)
    if notify.turn is None:
        return
    manager = MemoryManager(root=project_root(fallback, notify.cwd))
    manager.open()
    try:
        Importer(manager=manager).admit_turn(source=Source.CODEX, session_id=notify.session_id, turn=notify.turn)
    finally:
        manager.close()


def never_fail(fallback: Path, agent: str, text: str, work: Callable[[Path, str], None]) -> None:
    """Run a hook; whatever happens, report it and return (the caller exits 0)."""
    try:
        work(fallback, text)
    except Exception as exc:
        from autopatch_j.cli.errors import message_for

        log_problem(project_root(fallback, _cwd_hint(text)), agent, message_for(exc))


def claude_code(fallback: Path) -> None:
    if sys.stdin is None or sys.stdin.isatty():
        log_problem(fallback, "claude-code", "expects Claude Code's hook JSON on stdin.")
        return
    never_fail(fallback, "claude-code", sys.stdin.read(), import_claude_session)


def codex(fallback: Path, notification: str) -> None:
    never_fail(fallback, "codex", notification, admit_codex_turn)
