"""`hook install`: add our hook to an agent's settings file — merged, never clobbered, backed up.

Claude Code: `.claude/settings.json` (project) or `~/.claude/settings.json` (user) gets one
`{"type": "command", "command": …}` hook under each of Stop, SessionEnd and PreCompact; every other
key and hook is kept. The file is edited as text (`json_text`): the new hooks are inserted, indented
like their neighbours, and every other line stays as it was (a line may gain the comma the next
element needs); the result must parse to the merged settings. Codex: `$CODEX_HOME/config.toml` gets
`notify = [<autopatch-j>, "hook", "codex"]`, edited with tomlkit so comments and layout survive;
Codex runs a single notify program, so a different `notify` already set is refused, with how to
chain both. Installing twice changes nothing. Before a file changes it is copied into the backup
folder the caller names (never beside the file: a project's `.claude/` is committed), and the new
text is written to a temporary file and renamed over the old one.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError

from autopatch_j.transcripts import json_text
from autopatch_j.transcripts.errors import SettingsFileError

CLAUDE_EVENTS = ("Stop", "SessionEnd", "PreCompact")
HOOK_TIMEOUT_SECONDS = 30


@dataclass(frozen=True, slots=True)
class Plan:
    path: Path
    old: str | None  # None: the file does not exist yet
    new: str

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        before = [] if self.old is None else self.old.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                before,
                self.new.splitlines(keepends=True),
                f"{label} (now)" if self.old is not None else "/dev/null",
                f"{label} (after)",
            )
        )


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsFileError(f"Cannot read {path}: {getattr(exc, 'strerror', None) or exc}.") from exc


def plan_claude(path: Path, command: str) -> Plan:
    old = read_text(path)
    try:
        data: Any = json.loads(old) if old and old.strip() else {}
    except json.JSONDecodeError as exc:
        raise SettingsFileError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); fix it first.") from exc
    if not isinstance(data, dict) or not isinstance(data.setdefault("hooks", {}), dict):
        raise SettingsFileError(f'{path} must be a JSON object whose "hooks" is an object.')
    hooks: dict[str, Any] = data["hooks"]
    group = {"matcher": "", "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}]}
    needed: list[str] = []
    for event in CLAUDE_EVENTS:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsFileError(f'{path}: "hooks.{event}" must be a list.')
        if not any(_has_command(g, command) for g in groups):
            groups.append(group)
            needed.append(event)
    if not needed:
        return Plan(path=path, old=old, new=old or "")  # already installed: the file stays byte for byte
    if not old or not old.strip():
        return Plan(path=path, old=old, new=json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    new = _insert_groups(old, needed, group)
    if json.loads(new) != data:  # the text edit must mean exactly the merge
        raise SettingsFileError(f"{path} could not be edited without reformatting it; add the hooks by hand.")
    return Plan(path=path, old=old, new=new)


def _insert_groups(text: str, events: list[str], group: dict[str, Any]) -> str:
    root = json_text.scan(text)
    if "hooks" not in root.members:
        return json_text.add_member(text, root, "hooks", {event: [group] for event in events})
    for event in events:
        hooks = json_text.scan(text).members["hooks"][1]
        if event in hooks.members:
            text = json_text.append_item(text, hooks.members[event][1], group)
        else:
            text = json_text.add_member(text, hooks, event, [group])
    return text


def _has_command(group: Any, command: str) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return isinstance(hooks, list) and any(isinstance(h, dict) and h.get("command") == command for h in hooks)


def plan_codex(path: Path, argv: list[str]) -> Plan:
    old = read_text(path)
    try:
        doc = tomlkit.parse(old or "")
    except TOMLKitError as exc:
        raise SettingsFileError(f"{path} is not valid TOML ({exc}); fix it first.") from exc
    current = doc.get("notify")
    if current is not None:
        value = current.unwrap() if hasattr(current, "unwrap") else current
        if value == argv:
            return Plan(path=path, old=old, new=old or "")
        raise SettingsFileError(
            f"{path} already sets notify = {json.dumps(value)}; Codex runs only one notify program. "
            f"To keep both, point notify at a script that runs that program and then "
            f'`{shlex.join(argv)} "$1"`, or remove the old notify and run this again.'
        )
    doc["notify"] = argv
    return Plan(path=path, old=old, new=tomlkit.dumps(doc))


def apply(plan: Plan, *, stamp: str, backups: Path) -> Path | None:
    """Write the plan's text (backing up an existing file into `backups` first); returns the backup's path."""
    if not plan.changed:
        return None
    backup: Path | None = None
    try:
        plan.path.parent.mkdir(parents=True, exist_ok=True)
        if plan.old is not None:
            backups.mkdir(parents=True, exist_ok=True)
            backup = backups / f"{re.sub(r'[^A-Za-z0-9.]+', '-', str(plan.path)).strip('-')}.bak-{stamp}"
            backup.write_text(plan.old, encoding="utf-8")
        fd, temp = tempfile.mkstemp(dir=plan.path.parent, prefix=f".{plan.path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(plan.new)
                handle.flush()
                os.fsync(handle.fileno())
            if plan.path.exists():
                os.chmod(temp, plan.path.stat().st_mode & 0o7777)
            os.replace(temp, plan.path)
        finally:
            if os.path.exists(temp):
                os.unlink(temp)
    except OSError as exc:
        raise SettingsFileError(f"Cannot write {plan.path}: {exc.strerror or exc}.") from exc
    return backup
