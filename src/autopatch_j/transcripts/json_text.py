"""Editing a JSON file as text: add a member or an array item and leave every other line as it was.

A settings file people commit is diffed and reviewed; re-serializing it would reformat every line.
`add_member` and `append_item` insert new text after the container's last element (adding the comma
it needs) or inside an empty container, indented like their neighbours; nothing else moves. The
caller checks the result parses to the data it wanted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


@dataclass(slots=True)
class Span:
    """Where one JSON value lies in the text; containers know their elements' spans."""

    start: int
    end: int  # just after the value
    members: dict[str, tuple[int, Span]] = field(default_factory=dict)  # key → (key start, value)
    items: list[Span] = field(default_factory=list)


def _ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _expect(text: str, i: int, char: str) -> int:
    if i >= len(text) or text[i] != char:
        raise ValueError(f"expected {char!r} at {i}")
    return i + 1


def scan(text: str, i: int = 0) -> Span:
    """The span of the JSON value at `i` (after whitespace); the text must be valid JSON."""
    return _value(text, _ws(text, i))[0]


def _value(text: str, i: int) -> tuple[Span, int]:
    opener = text[i] if i < len(text) else ""
    if opener not in "{[":
        _, end = _DECODER.raw_decode(text, i)
        return Span(start=i, end=end), end
    span = Span(start=i, end=i)
    closer = "}" if opener == "{" else "]"
    i = _ws(text, i + 1)
    while text[i] != closer:
        if opener == "{":
            key_start = i
            key, after = _DECODER.raw_decode(text, i)
            value, i = _value(text, _ws(text, _expect(text, _ws(text, after), ":")))
            span.members[key] = (key_start, value)
        else:
            value, i = _value(text, i)
            span.items.append(value)
        i = _ws(text, i)
        if text[i] == ",":
            i = _ws(text, i + 1)
    span.end = i + 1
    return span, span.end


def indent_unit(text: str) -> str:
    """The file's indentation step: the leading whitespace of its first indented line (two spaces if none)."""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            return line[: len(line) - len(stripped)]
    return "  "


def _line_indent(text: str, position: int) -> str:
    line_start = text.rfind("\n", 0, position) + 1
    line = text[line_start:position]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _dump(value: Any, unit: str, base: str) -> str:
    return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + base)


def _insert(text: str, container: Span, last: tuple[int, int] | None, body: Callable[[str], str], unit: str) -> str:
    """Insert after the last element (`last` = its start and end), or into the empty container."""
    if last is None:  # empty container: open it over lines of its own
        outer = _line_indent(text, container.start)
        inner = outer + unit
        return text[: container.start + 1] + "\n" + inner + body(inner) + "\n" + outer + text[container.end - 1 :]
    inner = _line_indent(text, last[0])
    return text[: last[1]] + ",\n" + inner + body(inner) + text[last[1] :]


def add_member(text: str, obj: Span, key: str, value: Any) -> str:
    """`text` with `"key": value` added as the last member of the object at `obj`."""
    unit = indent_unit(text)
    last = max(obj.members.values(), key=lambda m: m[1].end, default=None)

    def body(inner: str) -> str:
        return f"{json.dumps(key, ensure_ascii=False)}: {_dump(value, unit, inner)}"

    return _insert(text, obj, (last[0], last[1].end) if last else None, body, unit)


def append_item(text: str, array: Span, value: Any) -> str:
    """`text` with `value` added as the last item of the array at `array`."""
    unit = indent_unit(text)
    last = array.items[-1] if array.items else None

    def body(inner: str) -> str:
        return _dump(value, unit, inner)

    return _insert(text, array, (last.start, last.end) if last else None, body, unit)
