"""The cloud package's one root exception and its specific subclasses.

Every class's docstring is its default message: `str(exc)` is empty when raised without arguments
and the CLI boundary then shows the docstring's first line.
"""

from __future__ import annotations

from autopatch_j.runtime import StorageError as RuntimeStorageError


class CloudError(Exception):
    """The cloud control plane failed."""


class ConfigError(CloudError):
    """The cloud configuration is missing or invalid."""


class StorageError(CloudError, RuntimeStorageError):
    """The cloud database could not be reached or refused the operation."""


class MigrationError(StorageError):
    """The cloud database schema could not be created or migrated."""


class InvalidInput(CloudError):
    """The request is invalid."""


class Unauthorized(CloudError):
    """A valid bearer token is required."""


class NotFound(CloudError):
    """The object does not exist or is not visible to you."""


class Forbidden(CloudError):
    """You lack the permission for this operation."""


class Conflict(CloudError):
    """The object is not in a state that allows this operation."""


class QuotaExhausted(CloudError):
    """Your monthly quota is exhausted."""


class QuotaLookupError(CloudError):
    """The monthly quota could not be looked up."""


class QuotaUnreachable(QuotaLookupError, StorageError):
    """The monthly quota could not be looked up: the cloud database could not be reached.

    Both a failed lookup (callers that fail closed still do) and a storage error: the worker, which
    has already claimed the task, waits for the database instead of failing the task for good."""


class ExecutorError(CloudError):
    """The executor failed to run the task."""


class InjectionError(CloudError):
    """Memories could not be injected into the task."""
