"""Errors of the local Memory engine. `MemoryEngineError` is the root; each docstring is the default message."""

from __future__ import annotations

from autopatch_j.runtime import StorageError as RuntimeStorageError


class MemoryEngineError(Exception):
    """Memory could not complete the operation."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (type(self).__doc__ or "").strip())


class MemorySchemaError(MemoryEngineError):
    """Memory is degraded: the database does not match the v2 contract; run `autopatch-j memory status`."""


class StorageError(MemoryEngineError, RuntimeStorageError):
    """The Memory database could not be read or written."""


class StorageBusyError(StorageError):
    """The Memory database stayed locked by another process longer than the busy timeout; try again."""


class StorageCorruptError(StorageError):
    """SQLite found a damaged page in the Memory database; nothing was written."""


class StorageReadOnlyError(StorageError):
    """The Memory database cannot be written by this process (a read-only file); nothing was written."""


class UnknownMemoryError(MemoryEngineError):
    """No memory with that id exists."""


class NotConfirmedError(MemoryEngineError):
    """`memory clear` deletes all Memory data; run it again with --confirm to proceed."""


class InvalidInputError(MemoryEngineError):
    """The input is not valid."""


class ProjectRootError(MemoryEngineError):
    """The project directory cannot be used for Memory."""


class ExtractionRejected(MemoryEngineError):
    """The extraction output breaks the provenance contract; it is discarded whole and the job retried."""


class ConsolidationRejected(MemoryEngineError):
    """The consolidation output contains an illegal operation; nothing is applied and the job retried."""


class ExtractorConfigError(MemoryEngineError):
    """AUTOPATCH_MEMORY_EXTRACTOR=llm needs a configured LLM (AUTOPATCH_LLM_MODEL, _API_KEY, _BASE_URL)."""

    exit_code = 5  # a configuration problem, like LLMConfigError


class IngestFormatError(InvalidInputError):
    """The conversation file is not valid JSONL of {"user", "assistant", "intent"?} objects."""
