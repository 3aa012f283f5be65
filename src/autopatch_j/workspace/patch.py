"""The pending patch: one exact search/replace edit bound to a file and its content at proposal time.

A `PendingPatch` names a project-relative file, a `search` text that occurs exactly once in it, the
`replace` text, and the SHA-256 of the file's bytes when the patch was proposed (H-22). Applying it
re-reads the file, re-checks the hash and the single occurrence, and writes the result atomically
(temporary file in the same directory, fsync, `os.replace`) keeping the file's mode. Any mismatch
is a `PatchConflict` and nothing is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from autopatch_j.workspace.confine import relative_name, resolve_inside
from autopatch_j.workspace.errors import PatchConflict, PathOutsideProject, WorkspaceError

MAX_PATCH_FILE_BYTES = 2_000_000


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class PendingPatch:
    """One proposed edit, waiting for the user to accept or discard it."""

    path: str  # project-relative, POSIX separators
    search: str
    replace: str
    file_sha256: str
    explanation: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "search": self.search,
            "replace": self.replace,
            "file_sha256": self.file_sha256,
            "explanation": self.explanation,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PendingPatch:
        fields = ("path", "search", "replace", "file_sha256", "explanation")
        if set(data) != set(fields) or not all(isinstance(data[f], str) for f in fields):
            raise ValueError("a pending patch needs exactly the string fields " + ", ".join(fields))
        return cls(**{f: data[f] for f in fields})

    def diff(self) -> str:
        """A unified-style rendering of the edit for people (never stored in Memory, M-3)."""
        lines = [f"--- a/{self.path}", f"+++ b/{self.path}"]
        lines += ["-" + line for line in self.search.splitlines()] or ["-"]
        lines += ["+" + line for line in self.replace.splitlines()] or ["+"]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class AppliedPatch:
    path: str
    old_sha256: str
    new_sha256: str


def read_text_file(root: Path, path: str) -> tuple[Path, bytes, str]:
    """Confine, read and decode a patchable file: (absolute path, raw bytes, text)."""
    target = resolve_inside(root, path)
    if not target.is_file():
        raise PatchConflict(f"{path} is not a regular file in the project.")
    data = target.read_bytes()
    if len(data) > MAX_PATCH_FILE_BYTES:
        raise PatchConflict(f"{path} is larger than {MAX_PATCH_FILE_BYTES} bytes and is not patched.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PatchConflict(f"{path} is not UTF-8 text and is not patched.") from None
    return target, data, text


def propose(root: Path, *, path: str, search: str, replace: str, explanation: str) -> PendingPatch:
    """Bind an edit to the file's current content; `PatchConflict` unless `search` occurs exactly once."""
    target, data, text = read_text_file(root, path)
    _check_edit(path, text, search, replace)
    return PendingPatch(
        path=relative_name(root, target),
        search=search,
        replace=replace,
        file_sha256=sha256_bytes(data),
        explanation=explanation,
    )


def apply_patch(root: Path, patch: PendingPatch) -> AppliedPatch:
    """Re-check the file against the patch and write the edit atomically; nothing is written on conflict."""
    try:
        target, data, text = read_text_file(root, patch.path)
    except FileNotFoundError:
        raise PatchConflict(f"{patch.path} no longer exists; nothing was written.") from None
    except PathOutsideProject as exc:
        raise PatchConflict(f"{exc} Nothing was written.") from exc
    if sha256_bytes(data) != patch.file_sha256:
        raise PatchConflict(f"{patch.path} changed since the patch was proposed; nothing was written.")
    _check_edit(patch.path, text, patch.search, patch.replace)
    new_data = text.replace(patch.search, patch.replace, 1).encode("utf-8")
    atomic_write(target, new_data)
    return AppliedPatch(path=patch.path, old_sha256=patch.file_sha256, new_sha256=sha256_bytes(new_data))


PatchState = Literal["applies", "file changed", "file missing", "does not match"]


def patch_state(root: Path, patch: PendingPatch) -> PatchState:
    """Whether accepting `patch` now would apply: the file is unchanged and `search` occurs once."""
    try:
        _target, data, text = read_text_file(root, patch.path)
    except (OSError, WorkspaceError):
        return "file missing"
    if sha256_bytes(data) != patch.file_sha256:
        return "file changed"
    return "applies" if text.count(patch.search) == 1 else "does not match"


def _check_edit(path: str, text: str, search: str, replace: str) -> None:
    if not search:
        raise PatchConflict("The patch has an empty search text.")
    if search == replace:
        raise PatchConflict("The patch changes nothing (search and replace are equal).")
    count = text.count(search)
    if count != 1:
        where = "does not occur" if count == 0 else f"occurs {count} times"
        raise PatchConflict(f"The patch's search text {where} in {path}; it must occur exactly once.")


def atomic_write(target: Path, data: bytes) -> None:
    """Replace `target` with `data` atomically, keeping its permission bits."""
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
