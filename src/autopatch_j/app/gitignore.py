"""H-2: offer to keep `.autopatch-j/` out of version control."""

from __future__ import annotations

from pathlib import Path

from autopatch_j.memory import StorageError
from autopatch_j.state_dir import STATE_DIR_NAME

ENTRY = f"{STATE_DIR_NAME}/"
_MATCHING = {STATE_DIR_NAME, ENTRY, f"/{STATE_DIR_NAME}", f"/{ENTRY}"}


def is_git_repository(root: Path) -> bool:
    return (root / ".git").exists()


def is_ignored(root: Path) -> bool:
    """True when the project's top-level .gitignore already lists the state directory."""
    gitignore = root / ".gitignore"
    try:
        lines = gitignore.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError):
        return True  # unreadable: don't nag, don't touch
    return any(line.strip() in _MATCHING for line in lines)


def should_offer(root: Path) -> bool:
    return is_git_repository(root) and not is_ignored(root)


def add_entry(root: Path) -> bool:
    """Append `.autopatch-j/` to .gitignore; returns False when it was already there."""
    if is_ignored(root):
        return False
    gitignore = root / ".gitignore"
    try:
        existing = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
        prefix = "" if not existing or existing.endswith("\n") else "\n"
        with gitignore.open("a", encoding="utf-8") as handle:
            handle.write(f"{prefix}{ENTRY}\n")
    except OSError as exc:
        raise StorageError(f"Could not update {gitignore}: {exc.strerror or exc}.") from exc
    return True
