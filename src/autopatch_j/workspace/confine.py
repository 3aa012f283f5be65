"""Path confinement: every path the agents or the patch workflow touch stays inside the project root.

`resolve_inside(root, raw)` accepts a project-relative path (or an absolute path that is inside the
root) and returns the resolved absolute path. It refuses NUL bytes, over-long names, paths that
escape through `..` or through symlinks resolving outside the root, and anything inside the
project's own state directory `.autopatch-j/` (Memory, exports, the workspace) — in any letter case,
since on a case-insensitive file system `.AUTOPATCH-J/` is the same directory.
"""

from __future__ import annotations

from pathlib import Path

from autopatch_j.state_dir import STATE_DIR_NAME
from autopatch_j.workspace.errors import PathOutsideProject

MAX_PATH_CHARS = 1024
MAX_NAME_CHARS = 255


def resolve_inside(root: Path, raw: str) -> Path:
    """The absolute, symlink-resolved path of `raw` inside `root`, or `PathOutsideProject`."""
    if not isinstance(raw, str):
        raise PathOutsideProject("A path must be a string.")
    text = raw.strip() or "."
    if "\x00" in text:
        raise PathOutsideProject("A path must not contain a NUL byte.")
    if len(text) > MAX_PATH_CHARS or any(len(part) > MAX_NAME_CHARS for part in text.replace("\\", "/").split("/")):
        raise PathOutsideProject(f"That path is too long (limit {MAX_PATH_CHARS} characters, {MAX_NAME_CHARS} a name).")
    base = root.resolve()
    candidate = Path(text)  # "~" is not expanded: it is an ordinary name inside the project
    if not candidate.is_absolute():
        candidate = base / candidate
    try:
        resolved = candidate.resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # symlink loops, unreadable components
        raise PathOutsideProject(f"The path {raw!r} cannot be resolved: {exc}.") from exc
    try:
        relative = resolved.relative_to(base)
    except ValueError:
        raise PathOutsideProject(f"The path {raw!r} is outside the project.") from None
    if relative.parts and _is_state_dir(relative.parts[0]):
        raise PathOutsideProject(f"The path {raw!r} is inside {STATE_DIR_NAME}/, which the agents never read.")
    return resolved


def _is_state_dir(name: str) -> bool:
    """`.autopatch-j` as a case-insensitive file system (macOS, Windows) sees it: any case, and with
    the trailing dots and spaces Windows ignores. Refusing such a name on a case-sensitive system
    costs nothing."""
    return name.rstrip(" .").casefold() == STATE_DIR_NAME.casefold()


def relative_name(root: Path, path: Path) -> str:
    """`path` (already confined) as a project-relative POSIX name; `.` for the root itself."""
    relative = path.relative_to(root.resolve())
    return relative.as_posix() if relative.parts else "."
