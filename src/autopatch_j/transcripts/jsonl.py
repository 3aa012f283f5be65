"""Reading an append-only JSONL transcript from a byte offset, one complete line at a time.

A last line without its newline is a record still being written: it is not read, and the caller's
cursor stays before it. A line that is not a JSON object is skipped and counted by reason.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.transcripts.errors import TranscriptError

MALFORMED = "malformed_json"
NOT_AN_OBJECT = "not_an_object"
UNKNOWN_TYPE = "unknown_type"
INVALID_RECORD = "invalid_record"


@dataclass(frozen=True, slots=True)
class Line:
    offset: int  # where the line starts
    end: int  # just after its newline
    record: dict[str, Any]


@dataclass
class LineStats:
    skipped: Counter[str] = field(default_factory=Counter)
    partial_line: bool = False
    end: int = 0  # just after the last complete line read


def iter_lines(
    path: Path, *, offset: int, stats: LineStats, progress: Callable[[int], None] | None = None
) -> Iterator[Line]:
    """Every complete JSON-object line of `path` from `offset`; bad lines are counted in `stats`."""
    stats.end = offset
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise TranscriptError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    with handle:
        handle.seek(offset)
        position = offset
        for raw in handle:
            start, position = position, position + len(raw)
            if not raw.endswith(b"\n"):
                stats.partial_line = True
                break
            stats.end = position
            if progress is not None:
                progress(len(raw))
            if not raw.strip():
                continue
            try:
                value = json.loads(raw.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError):
                stats.skipped[MALFORMED] += 1
                continue
            if not isinstance(value, dict):
                stats.skipped[NOT_AN_OBJECT] += 1
                continue
            yield Line(offset=start, end=position, record=value)


def first_record(path: Path) -> dict[str, Any] | None:
    """The first complete line's JSON object, or None (used to tell formats and sessions apart)."""
    stats = LineStats()
    for line in iter_lines(path, offset=0, stats=stats):
        return line.record
    return None
