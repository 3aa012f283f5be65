"""Errors of the transcript importers. `TranscriptError` is the root; each docstring is the default message."""

from __future__ import annotations


class TranscriptError(Exception):
    """The agent transcript could not be imported."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (type(self).__doc__ or "").strip())


class TranscriptFormatError(TranscriptError):
    """The file is not a Claude Code or Codex session transcript."""


class HookInputError(TranscriptError):
    """The hook input is not the JSON object the agent sends."""


class SettingsFileError(TranscriptError):
    """The agent's settings file cannot be changed safely."""
