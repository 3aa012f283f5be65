"""Read-only project tools for the agents, confined to the project root (H-21).

`list_files`, `read_file` and `search_project` accept project-relative paths; every path goes
through `workspace.confine.resolve_inside`, which refuses `..` escapes, absolute paths outside the
root, symlinks resolving outside it, NUL bytes, over-long names and anything in `.autopatch-j/`.
Walks never follow symlinked directories and re-check each symlinked file. Output is bounded.

A `Toolbox` turns the model's `ToolCall`s into observations: bad arguments, unknown tools and
refused paths become an `error: …` observation for the model, never an exception, so one bad call
does not end the request.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autopatch_j.agent.errors import AgentError
from autopatch_j.llm.provider import ToolCall, ToolSpec
from autopatch_j.state_dir import STATE_DIR_NAME
from autopatch_j.workspace.confine import relative_name, resolve_inside
from autopatch_j.workspace.errors import WorkspaceError

MAX_OBSERVATION_CHARS = 20_000
MAX_LIST_ENTRIES = 300
MAX_LIST_DEPTH = 5
MAX_READ_LINES = 400
MAX_READ_FILE_BYTES = 5_000_000
MAX_SEARCH_FILES = 3_000
MAX_SEARCH_FILE_BYTES = 1_000_000
MAX_SEARCH_MATCHES = 100
MAX_PATTERN_CHARS = 200
MAX_LINE_CHARS = 240
SKIPPED_DIRS = frozenset({STATE_DIR_NAME, ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", ".tox"})


def clip(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    if len(text) <= limit:
        return text
    note = f"\n… [cut: {len(text) - limit} more characters]"
    return text[: max(0, limit - len(note))] + note


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    run: Callable[[Mapping[str, Any]], str]


class Toolbox:
    """The tools one request offers, by name; `call` never raises for a bad call."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.spec.name: tool for tool in tools}

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(tool.spec for tool in self._tools.values())

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._tools)

    def call(self, call: ToolCall) -> str:
        tool = self._tools.get(call.name)
        if tool is None:
            return f"error: unknown tool {call.name!r}; available: {', '.join(sorted(self._tools))}"
        try:
            arguments = json.loads(call.arguments or "{}")
        except json.JSONDecodeError as exc:
            return f"error: the arguments are not valid JSON ({exc.msg})"
        if not isinstance(arguments, dict):
            return "error: the arguments must be a JSON object"
        try:
            return clip(tool.run(arguments))
        except (AgentError, WorkspaceError, ValueError, TypeError) as exc:
            return f"error: {exc}"
        except OSError as exc:
            return f"error: {exc.strerror or exc}"


def _str_arg(arguments: Mapping[str, Any], name: str, default: str | None = None) -> str:
    value = arguments.get(name, default)
    if not isinstance(value, str):
        raise ValueError(f"`{name}` must be a string")
    return value


def _int_arg(arguments: Mapping[str, Any], name: str, default: int | None) -> int | None:
    value = arguments.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"`{name}` must be an integer")
    return value


class ProjectTools:
    """The read-only project tools over one root."""

    def __init__(self, *, root: Path) -> None:
        self.root = root.resolve()

    def tools(self) -> list[Tool]:
        return [
            Tool(LIST_FILES_SPEC, lambda a: self.list_files(_str_arg(a, "path", "."), _int_arg(a, "depth", 2) or 1)),
            Tool(
                READ_FILE_SPEC,
                lambda a: self.read_file(
                    _str_arg(a, "path"), _int_arg(a, "start_line", None), _int_arg(a, "end_line", None)
                ),
            ),
            Tool(SEARCH_SPEC, lambda a: self.search_project(_str_arg(a, "pattern"), _str_arg(a, "path", "."))),
        ]

    def resolve(self, path: str) -> Path:
        return resolve_inside(self.root, path)

    def name(self, path: Path) -> str:
        return relative_name(self.root, path)

    # -- list_files ---------------------------------------------------------------------------------

    def list_files(self, path: str = ".", depth: int = 2) -> str:
        base = self.resolve(path)
        if not base.exists():
            return f"error: {path} does not exist"
        if base.is_file():
            return self.name(base)
        depth = max(1, min(depth, MAX_LIST_DEPTH))
        lines: list[str] = []
        truncated = False
        for entry, level in self._walk_entries(base, depth):
            if len(lines) >= MAX_LIST_ENTRIES:
                truncated = True
                break
            indent = "  " * level
            if entry.is_symlink():
                lines.append(f"{indent}{entry.name}@")
            elif entry.is_dir():
                lines.append(f"{indent}{entry.name}/")
            else:
                lines.append(f"{indent}{entry.name}")
        header = f"{self.name(base)}/" if self.name(base) != "." else "./"
        body = "\n".join(lines) if lines else "  (empty)"
        more = f"\n… [more than {MAX_LIST_ENTRIES} entries; list a subfolder]" if truncated else ""
        return f"{header}\n{body}{more}"

    def _walk_entries(self, base: Path, depth: int, level: int = 0) -> Iterator[tuple[os.DirEntry[str], int]]:
        try:
            with os.scandir(base) as it:
                entries = sorted(it, key=lambda e: (not e.is_dir(follow_symlinks=False), e.name))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and entry.name in SKIPPED_DIRS:
                continue
            yield entry, level
            if entry.is_dir(follow_symlinks=False) and level + 1 < depth:
                yield from self._walk_entries(Path(entry.path), depth, level + 1)

    # -- read_file ----------------------------------------------------------------------------------

    def read_file(self, path: str, start_line: int | None = None, end_line: int | None = None) -> str:
        target = self.resolve(path)
        if not target.is_file():
            return f"error: {path} is not a file in the project"
        if target.stat().st_size > MAX_READ_FILE_BYTES:
            return f"error: {path} is larger than {MAX_READ_FILE_BYTES} bytes"
        data = target.read_bytes()
        if is_binary(data):
            return f"error: {path} is a binary file"
        lines = data.decode("utf-8", errors="replace").splitlines()
        total = len(lines)
        start = max(1, start_line or 1)
        end = min(total, end_line if end_line is not None else start + MAX_READ_LINES - 1)
        end = min(end, start + MAX_READ_LINES - 1)
        if total == 0:
            return f"{self.name(target)} (empty file)"
        if start > total:
            return f"error: {path} has only {total} lines"
        width = len(str(end))
        numbered = "\n".join(f"{n:>{width}}| {lines[n - 1]}" for n in range(start, end + 1))
        more = "" if end >= total else f"\n… [lines {end + 1}-{total} not shown; ask for a range]"
        return clip(f"{self.name(target)} lines {start}-{end} of {total}:\n{numbered}{more}")

    # -- search_project -----------------------------------------------------------------------------

    def search_project(self, pattern: str, path: str = ".") -> str:
        if not pattern.strip():
            raise ValueError("`pattern` must not be empty")
        if len(pattern) > MAX_PATTERN_CHARS or "\x00" in pattern:
            raise ValueError(f"`pattern` must be at most {MAX_PATTERN_CHARS} characters, without NUL bytes")
        base = self.resolve(path)
        needle = pattern.casefold()
        matches: list[str] = []
        scanned = 0
        for file in self.iter_files(base):
            if scanned >= MAX_SEARCH_FILES or len(matches) >= MAX_SEARCH_MATCHES:
                break
            scanned += 1
            try:
                if file.stat().st_size > MAX_SEARCH_FILE_BYTES:
                    continue
                data = file.read_bytes()
            except OSError:
                continue
            if is_binary(data):
                continue
            for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
                if needle in line.casefold():
                    text = line.strip()
                    text = text if len(text) <= MAX_LINE_CHARS else text[: MAX_LINE_CHARS - 1] + "…"
                    matches.append(f"{self.name(file)}:{number}: {text}")
                    if len(matches) >= MAX_SEARCH_MATCHES:
                        break
        if not matches:
            return f"no matches for {pattern!r} in {self.name(base)}"
        more = f"\n… [stopped at {MAX_SEARCH_MATCHES} matches]" if len(matches) >= MAX_SEARCH_MATCHES else ""
        return "\n".join(matches) + more

    def iter_files(self, base: Path) -> Iterator[Path]:
        """Regular files under `base` (or `base` itself), confined, never following symlinked folders."""
        if base.is_file():
            yield base
            return
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
            for filename in sorted(filenames):
                file = Path(dirpath, filename)
                if file.is_symlink():
                    try:
                        file = resolve_inside(self.root, str(file))
                    except WorkspaceError:
                        continue
                if file.is_file():
                    yield file


LIST_FILES_SPEC = ToolSpec(
    name="list_files",
    description="List files and folders of the project (read-only). Paths are relative to the project root.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Folder to list, relative to the project root.", "default": "."},
            "depth": {"type": "integer", "description": "How many folder levels to show (1-5).", "default": 2},
        },
        "additionalProperties": False,
    },
)
READ_FILE_SPEC = ToolSpec(
    name="read_file",
    description=f"Read a text file of the project, optionally a line range (at most {MAX_READ_LINES} lines per call).",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the project root."},
            "start_line": {"type": "integer", "description": "First line (1-based)."},
            "end_line": {"type": "integer", "description": "Last line (inclusive)."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
)
SEARCH_SPEC = ToolSpec(
    name="search_project",
    description="Search the project's text files for a literal, case-insensitive text; returns path:line: text.",
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The text to look for."},
            "path": {"type": "string", "description": "Folder or file to search in.", "default": "."},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
)
