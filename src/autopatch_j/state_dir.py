"""Where a project's state lives: `.autopatch-j/` under the project root (H-2).

The bottom layer (docs/architecture.md): it imports nothing from autopatch_j, so the Memory engine
(the database, exports), the review workspace (path confinement keeps agents out of this directory),
the agent tools and the CLI all share one name and one layout without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

STATE_DIR_NAME = ".autopatch-j"
REPOSITORY_MARKER = ".git"  # a directory, or a file in a git worktree or submodule


def find_project_root(start: Path) -> Path | None:
    """The project `start` lies in, found the way git finds its repository: the nearest of `start`
    and its parents that holds a `.autopatch-j/` directory or is a repository root; None when none does.
    `start` must be absolute."""
    for folder in (start, *start.parents):
        if (folder / STATE_DIR_NAME).is_dir() or (folder / REPOSITORY_MARKER).exists():
            return folder
    return None


@dataclass(frozen=True, slots=True)
class ProjectPaths:
    root: Path

    @classmethod
    def for_root(cls, root: Path) -> ProjectPaths:
        return cls(root=root.resolve())

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR_NAME

    @property
    def db(self) -> Path:
        return self.state_dir / "memory.db"

    @property
    def legacy_json(self) -> Path:
        return self.state_dir / "memory.json"

    @property
    def exports(self) -> Path:
        return self.state_dir / "exports"

    @property
    def damaged(self) -> Path:
        """Where `clear --confirm` keeps the bytes of a damaged database before rewriting it."""
        return self.state_dir / "damaged"

    @property
    def workspace(self) -> Path:
        return self.state_dir / "workspace"

    @property
    def history_file(self) -> Path:
        return self.state_dir / "cli-history"

    @property
    def config_file(self) -> Path:
        return self.state_dir / "config.toml"
