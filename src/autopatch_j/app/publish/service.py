"""Publish, check or take out the managed blocks: one function every face shares.

    report = publish(app, targets=("agents", "claude"))            # write
    report = publish(app, targets=..., write=False)                 # --dry-run / --check: the diffs only
    report = publish(app, targets=..., remove=True)                 # take the blocks out
    report = publish(app, targets=..., user=True)                   # preferences → user-level files

Project scope: the active `project_decision`s go to `AGENTS.md` and/or `CLAUDE.md` at the project
root (`.claude/CLAUDE.md` when that exists and `CLAUDE.md` does not). User scope: the active
`user_preference`s go to Codex's `$CODEX_HOME/AGENTS.md` (default `~/.codex/AGENTS.md`) and Claude
Code's `~/.claude/CLAUDE.md`, in a block named after the project, so several projects share a file
without overwriting each other. Preferences never go to the project's files. A file reached twice (a
symlink) is edited once.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autopatch_j.app.context import AppContext
from autopatch_j.app.errors import PublishError, message_for
from autopatch_j.app.publish import TARGETS, block_file
from autopatch_j.app.publish.blocks import (
    DECISIONS_KEY,
    MAX_ROWS,
    Block,
    preferences_key,
    render_decisions,
    render_preferences,
)
from autopatch_j.memory import MemoryKind, PublishPage


class Action(enum.StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    REMOVED = "removed"
    DELETED = "deleted"  # the block was all the file held
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class FileOutcome:
    target: str
    path: Path
    action: Action
    written: bool
    diff: str

    @property
    def changed(self) -> bool:
        return self.action is not Action.UNCHANGED


@dataclass(frozen=True, slots=True)
class PublishReport:
    scope: str  # "project" or "user"
    kind: MemoryKind
    total: int
    shown: int
    files: tuple[FileOutcome, ...]

    @property
    def stale(self) -> bool:
        return any(f.changed for f in self.files)


def publish_payload(report: PublishReport, *, dry_run: bool, check: bool, remove: bool) -> dict[str, Any]:
    """`memory publish --json` (the MCP tool returns the same): the diff only with `dry_run`/`check`."""
    show_diff = dry_run or check
    return {
        "scope": report.scope,
        "kind": report.kind.value,
        "total": report.total,
        "shown": report.shown,
        "omitted": report.total - report.shown,
        "dry_run": dry_run,
        "check": check,
        "remove": remove,
        "stale": report.stale,
        "files": [
            {
                "target": f.target,
                "path": str(f.path),
                "action": f.action.value,
                "written": f.written,
                "diff": f.diff if show_diff else None,
            }
            for f in report.files
        ],
    }


def targets_for(choice: str) -> tuple[str, ...]:
    """`--to agents|claude|all` as the targets it names."""
    return TARGETS if choice == "all" else (choice,)


def publish(
    app: AppContext, *, targets: Iterable[str], user: bool = False, remove: bool = False, write: bool = True
) -> PublishReport:
    """Bring each target file's block up to date (or take it out); with `write=False` only compute."""
    kind = MemoryKind.USER_PREFERENCE if user else MemoryKind.PROJECT_DECISION
    # Taking the block out needs no memory: it works on a degraded store too.
    page = PublishPage(items=(), total=0) if remove else app.manager().publishable(kind=kind, limit=MAX_ROWS)
    project = str(app.root)
    block = render_preferences(page, project=project) if user else render_decisions(page)
    key = preferences_key(project) if user else DECISIONS_KEY
    files: list[FileOutcome] = []
    seen: set[Path] = set()
    for target in dict.fromkeys(targets):
        path = user_file(app.environ, target) if user else project_file(app.root, target)
        real = block_file.target_of(path)
        if real in seen:
            continue
        seen.add(real)
        label = str(path) if user else path.relative_to(app.root).as_posix()
        files.append(_one(target, path, real, None if remove else block, key=key, write=write, label=label))
    return PublishReport(
        scope="user" if user else "project", kind=kind, total=page.total, shown=block.shown, files=tuple(files)
    )


@dataclass(frozen=True, slots=True)
class DrainPublish:
    """What the automatic publish after a drain did: `report` when it published; `error`, one
    sentence, when publishing was refused (the drain's work stands, the caller reports it); neither
    when no target is set (publishing is off)."""

    report: PublishReport | None = None
    error: str | None = None


def publish_after_drain(app: AppContext, targets: Iterable[str]) -> DrainPublish:
    """The automatic publish every drain path runs when the `publish` setting names files."""
    targets = tuple(targets)
    if not targets:
        return DrainPublish()
    try:
        return DrainPublish(report=publish(app, targets=targets))
    except PublishError as exc:
        return DrainPublish(error=message_for(exc))


def project_file(root: Path, target: str) -> Path:
    if target == "agents":
        return root / "AGENTS.md"
    nested = root / ".claude" / "CLAUDE.md"
    return nested if not (root / "CLAUDE.md").exists() and nested.is_file() else root / "CLAUDE.md"


def user_file(environ: Mapping[str, str], target: str) -> Path:
    home = Path(environ.get("HOME") or Path.home())
    if target == "agents":
        codex_home = Path(environ["CODEX_HOME"]) if environ.get("CODEX_HOME") else home / ".codex"
        return codex_home / "AGENTS.md"
    return home / ".claude" / "CLAUDE.md"


def _one(
    target: str, shown: Path, real: Path, block: Block | None, *, key: str, write: bool, label: str
) -> FileOutcome:
    if not real.parent.is_dir():  # no directory: no file; nothing to lock unless something gets written
        edit = block_file.plan(real, block, key=key)
        if not (write and edit.changed):
            return _outcome(target, shown, edit, removing=block is None, written=False, label=label)
        block_file.make_folder(real.parent)
    with block_file.locked(real.parent):
        edit = block_file.plan(real, block, key=key)
        if write and edit.changed:
            block_file.commit(edit)
    return _outcome(target, shown, edit, removing=block is None, written=write and edit.changed, label=label)


def _outcome(
    target: str, shown: Path, edit: block_file.Edit, *, removing: bool, written: bool, label: str
) -> FileOutcome:
    if not edit.changed:
        action = Action.UNCHANGED
    elif edit.before is None:
        action = Action.CREATED
    elif edit.after is None:
        action = Action.DELETED
    else:
        action = Action.REMOVED if removing else Action.UPDATED
    return FileOutcome(target=target, path=shown, action=action, written=written, diff=edit.diff(label))
