"""Errors of the agents. `AgentError` is the root; each docstring is the default message.

The patch workflow's and the path confinement's errors belong to the review workspace
(`autopatch_j.workspace.errors`, root `WorkspaceError`); they are re-exported here because the
agents raise them too.
"""

from __future__ import annotations

from autopatch_j.workspace.errors import NoPendingPatch, PatchConflict, PathOutsideProject, WorkspaceError


class AgentError(Exception):
    """The agent could not complete the request."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (type(self).__doc__ or "").strip())


class RequestCancelled(AgentError):
    """The request was cancelled; the message was kept and the turn marked failed."""


class RoundLimitReached(AgentError):
    """The agent used all its tool rounds without giving an answer; ask a narrower question."""


class EmptyAnswer(AgentError):
    """The model returned an empty answer; try again or rephrase."""


class AgentResponseError(AgentError):
    """The model's answer broke the agent's contract."""


class EmptyRequest(AgentError):
    """The message is empty."""


class AuditTargetError(AgentError):
    """Name the files or folder to audit, e.g. `audit src/app.py`."""


__all__ = [
    "AgentError",
    "AgentResponseError",
    "AuditTargetError",
    "EmptyAnswer",
    "EmptyRequest",
    "NoPendingPatch",
    "PatchConflict",
    "PathOutsideProject",
    "RequestCancelled",
    "RoundLimitReached",
    "WorkspaceError",
]
