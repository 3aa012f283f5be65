"""Errors of the review workspace. `WorkspaceError` is the root; each docstring is the default message."""

from __future__ import annotations


class WorkspaceError(Exception):
    """The review workspace could not complete the operation."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (type(self).__doc__ or "").strip())


class PathOutsideProject(WorkspaceError):
    """That path is outside the project (or inside .autopatch-j/) and cannot be used."""


class NoPendingPatch(WorkspaceError):
    """There is no pending patch; ask for a code audit (e.g. `autopatch-j ask "audit src/app.py"`) first."""


class PatchConflict(WorkspaceError):
    """The file changed since the patch was proposed; nothing was written. Discard it and audit again."""


class WorkspaceStorageError(WorkspaceError):
    """The review workspace (.autopatch-j/workspace/) could not be read or written; `autopatch-j reset` clears it."""
