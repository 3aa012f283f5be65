"""Reading an append-only JSONL transcript from a byte offset, one complete line at a time.

A last line without its newline may be a record still being written. It is read only when the
caller says the file has settled (unchanged for a few seconds) and it parses as a JSON object;
otherwise it is left, and the caller's cursor stays before it. A line that is not a JSON object is
skipped and counted as `unparsable`; blank lines are not records and are not counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.transcripts.errors import TranscriptError

UNPARSABLE = "unparsable"  # not JSON, or JSON that is not an object
UNKNOWN_SHAPE = "unknown_shape"  # a record type the importer does not know, or one without the fields it needs


@dataclass(frozen=True, slots=True)
class Line:
    offset: int  # where the line starts
    end: int  # just after its newline (or the end of a settled last line)
    record: dict[str, Any]


@dataclass
class LineStats:
    unparsable: list[int] = field(default_factory=list)  # offsets of lines that are not JSON objects
    read: int = 0  # non-blank lines read (records and unparsable lines)
    partial_line: bool = False
    end: int = 0  # just after the last line read


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None


def iter_lines(
    path: Path,
    *,
    offset: int,
    stats: LineStats,
    progress: Callable[[int], None] | None = None,
    settled: bool = False,
) -> Iterator[Line]:
    """Every complete JSON-object line of `path` from `offset`; bad lines are noted in `stats`.

    With `settled`, a last line without a newline is read too when it parses as a JSON object.
    """
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
                value = _decode(raw) if settled and raw.strip() else None
                if not isinstance(value, dict):
                    stats.partial_line = bool(raw.strip())
                    break
            else:
                value = _decode(raw) if raw.strip() else None
            stats.end = position
            if progress is not None:
                progress(len(raw))
            if not raw.strip():
                continue
            stats.read += 1
            if not isinstance(value, dict):
                stats.unparsable.append(start)
                continue
            yield Line(offset=start, end=position, record=value)


def first_record(path: Path) -> dict[str, Any] | None:
    """The first complete line's JSON object, or None (used to tell formats and sessions apart)."""
    stats = LineStats()
    for line in iter_lines(path, offset=0, stats=stats):
        return line.record
    return None
