"""The values a statement sets, recognised by their shape: what a terse revision changes.

"make it 120 only" after "line length 140", "改 1.5s" after "deadline 统一 800ms", "算了还是用 int64"
after "用 int32", "`~> 5.31.0` then" after "pin `~> 5.40`": the new statement often shares no word
with the rule it revises, only a value of the same type. `values(text)` reads each value as
(type, canonical value) by shape alone — a number with a unit of time, size or share, a version,
an integer type, a naming style, a bare number — and the subject model reads the pair's values as
features (`subjects.pair_features`): one type with another value is a revision's mark.
"""

from __future__ import annotations

import re
from functools import lru_cache

from autopatch_j.memory.index import text_keys
from autopatch_j.memory.text import fold

#: Units of time, each with its length in milliseconds (the canonical value of a duration).
_TIME_UNITS = {
    "ms": 1, "msec": 1, "millisecond": 1, "milliseconds": 1, "毫秒": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000, "秒": 1000, "秒钟": 1000,
    "m": 60_000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000, "分钟": 60_000,
    "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "小时": 3_600_000, "个小时": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000, "天": 86_400_000,
    "w": 604_800_000, "week": 604_800_000, "weeks": 604_800_000, "周": 604_800_000,
}  # fmt: skip
_SIZE_UNITS = {
    "b": 1, "byte": 1, "bytes": 1, "字节": 1,
    "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
    "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "tb": 1 << 40, "tib": 1 << 40,
}  # fmt: skip
_NUMBER = r"(?<![\w.])(\d+(?:\.\d+)?)"
_QUANTITY = re.compile(_NUMBER + r"\s?([a-z]+|毫秒|秒钟|秒|分钟|个小时|小时|天|周|字节)(?![a-z])")
_PERCENT = re.compile(_NUMBER + r"\s?%|百分之\s?(\d+)")
_VERSION = re.compile(r"(?<![\w.])(?:[~^<>=!]+\s?|v)?(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")
_INT_TYPE = re.compile(r"\b(u?int(?:8|16|32|64|128)?|[iu](?:8|16|32|64|128)|bigint|smallint|tinyint|long|short)\b")
_STYLE = re.compile(r"\b(camel|pascal|snake|kebab|screaming[_ -]?snake|upper|lower)[_ -]?case\b")
_BARE = re.compile(_NUMBER + r"(?![\w.%])")


@lru_cache(maxsize=4096)
def values(text: str) -> frozenset[tuple[str, str]]:
    """The (type, canonical value) pairs `text` holds: `duration` (milliseconds), `size` (bytes),
    `percent`, `version`, `int_type`, `style` (a naming style), `number` (a bare number of two or more
    digits, read once no other type took it)."""
    folded = fold(text)
    found: set[tuple[str, str]] = set()
    taken: list[tuple[int, int]] = []

    def add(kind: str, value: str, span: tuple[int, int]) -> None:
        found.add((kind, value))
        taken.append(span)

    for match in _QUANTITY.finditer(folded):
        number, unit = float(match.group(1)), match.group(2)
        if unit in _TIME_UNITS:
            add("duration", format(number * _TIME_UNITS[unit], ".12g"), match.span())
        elif unit in _SIZE_UNITS:
            add("size", format(number * _SIZE_UNITS[unit], ".12g"), match.span())
    for match in _PERCENT.finditer(folded):
        add("percent", f"{float(match.group(1) or match.group(2)):g}", match.span())
    for match in _VERSION.finditer(folded):
        if not any(s <= match.start() < e for s, e in taken):
            add("version", match.group(1), match.span())
    for match in _INT_TYPE.finditer(folded):
        add("int_type", match.group(1), match.span())
    for match in _STYLE.finditer(folded):
        add("style", match.group(1).replace(" ", "_").replace("-", "_"), match.span())
    for match in _BARE.finditer(folded):
        if len(match.group(1)) >= 2 and not any(s <= match.start() < e for s, e in taken):
            found.add(("number", f"{float(match.group(1)):g}"))
    return frozenset(found)


def words_besides_values(text: str) -> int:
    """How many index keys of `text` are neither a number nor a value: what it says besides the values
    it sets ("too tight. make it 45s": 3; "ga4" is a name and counts, "45s" and "int64" do not)."""
    return sum(1 for key in text_keys(text) if not (key.replace(".", "").isdigit() or values(key)))
