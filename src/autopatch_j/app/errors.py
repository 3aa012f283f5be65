"""Map every package's root exception to a one-sentence message and an exit code, in one place."""

from __future__ import annotations

import sys
from typing import NoReturn

# Exit codes: 1 = operation refused or failed, 2 = usage (click's), 3 = degraded Memory,
# 4 = storage trouble (locked, unreadable), 5 = configuration missing or invalid (the LLM's, the cloud's
# or a process switch), or a needed extra not installed.
EXIT_FAILED = 1
EXIT_DEGRADED = 3
EXIT_STORAGE = 4
EXIT_CONFIG = 5


class MissingExtra(Exception):
    """A command needs an optional part of the package that is not installed."""

    exit_code = EXIT_CONFIG

    def __init__(self, *, command: str, extra: str, missing: list[str]) -> None:
        super().__init__(
            f"`autopatch-j {command}` needs the {extra} extra, which is not installed (missing: "
            f"{', '.join(missing)}); install it with: pip install 'autopatch-j[{extra}]'"
        )


class SettingsError(Exception):
    """A process setting is invalid."""

    exit_code = EXIT_CONFIG


class PublishError(Exception):
    """`memory publish` refused to touch a file (not UTF-8, damaged markers, changed meanwhile, unwritable)."""

    exit_code = EXIT_FAILED


class PublishConfigError(PublishError):
    """The `publish` setting is invalid."""

    exit_code = EXIT_CONFIG


def _table() -> list[tuple[type[BaseException], int]]:
    from autopatch_j.agent.errors import AgentError
    from autopatch_j.cloud import CloudError
    from autopatch_j.cloud import ConfigError as CloudConfigError
    from autopatch_j.llm.errors import LLMConfigError, LLMError
    from autopatch_j.memory import MemoryEngineError, MemorySchemaError, StorageError
    from autopatch_j.transcripts import TranscriptError
    from autopatch_j.workspace.errors import WorkspaceError

    rows: list[tuple[type[BaseException], int]] = [
        (MemorySchemaError, EXIT_DEGRADED),
        (StorageError, EXIT_STORAGE),
        (MemoryEngineError, EXIT_FAILED),
        (LLMConfigError, EXIT_CONFIG),
        (LLMError, EXIT_FAILED),
        (AgentError, EXIT_FAILED),
        (WorkspaceError, EXIT_FAILED),
        (CloudConfigError, EXIT_CONFIG),
        (CloudError, EXIT_FAILED),
        (TranscriptError, EXIT_FAILED),
        (MissingExtra, EXIT_CONFIG),
        (SettingsError, EXIT_CONFIG),
        (PublishError, EXIT_FAILED),
    ]
    return rows


def exit_code_for(exc: BaseException) -> int | None:
    """Return the exit code for a known exception, or None for a bug (which keeps its traceback)."""
    for exc_type, code in _table():
        if isinstance(exc, exc_type):
            return getattr(exc, "exit_code", code)
    return None


def message_for(exc: BaseException) -> str:
    """One clear sentence: the exception's message, or its class docstring when it has none."""
    text = str(exc).strip()
    if not text:
        text = (type(exc).__doc__ or type(exc).__name__).strip().splitlines()[0]
    return text


def exit_for(exc: Exception) -> NoReturn:
    """The error boundary's last step: a known exception becomes `error: <sentence>` on stderr and its
    exit code; anything else is a bug and is raised again with its traceback."""
    code = exit_code_for(exc)
    if code is None:
        raise exc
    sys.stderr.write(f"error: {message_for(exc)}\n")
    sys.exit(code)
