"""Limits shared by several packages, defined once."""

from __future__ import annotations

#: The longest error text kept: a RAW model error in diagnostics, a job's or a turn's stored error.
MAX_ERROR_CHARS = 20_000
