"""The storage error every package's own storage error derives from."""

from __future__ import annotations


class StorageError(Exception):
    """The database could not be reached or refused the operation.

    Each package root keeps its own subclass (`autopatch_j.memory.StorageError` for the local SQLite
    file, `autopatch_j.cloud.errors.StorageError` for the control plane's database), which also
    derives from that package's root error; code that only needs "storage trouble, retry later"
    catches this one."""
