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
from dataclasses import dataclass
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


#: The kinds of value a slot holds; a bare number of any length is a `count`.
SLOT_KINDS = ("duration", "size", "percent", "version", "count")
_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_WORD = re.compile(r"[a-z_][a-z0-9_]*|[\u3400-\u4dbf\u4e00-\u9fff]+")
#: A bare number, a sentence's full stop after it allowed ("is 20.").
_COUNT = re.compile(_NUMBER + r"(?![\w%]|\.\d)")


@dataclass(frozen=True, slots=True)
class Slot:
    """One value of a text where it stands: its kind (`SLOT_KINDS`), its canonical value, its span in
    the text and its label — the word written right before it ("min" of "min 1", "重试" of "重试 5 次";
    "" when none)."""

    kind: str
    value: str
    start: int
    end: int
    label: str


def slots(text: str) -> tuple[Slot, ...]:
    """The values of `text` in order, each with its kind, span and label. Read on `text.lower()`
    (length-preserving for the scripts read here), so spans index `text` itself."""
    lowered = text.lower()
    found: list[Slot] = []

    def free(start: int, end: int) -> bool:
        return not any(s.start < end and start < s.end for s in found)

    def add(kind: str, value: str, start: int, end: int) -> None:
        if free(start, end):
            found.append(Slot(kind, value, start, end, _label(lowered, start)))

    for match in _QUANTITY.finditer(lowered):
        number, unit = float(match.group(1)), match.group(2)
        if unit in _TIME_UNITS:
            add("duration", format(number * _TIME_UNITS[unit], ".12g"), *match.span())
        elif unit in _SIZE_UNITS:
            add("size", format(number * _SIZE_UNITS[unit], ".12g"), *match.span())
    for match in _PERCENT.finditer(lowered):
        add("percent", f"{float(match.group(1) or match.group(2)):g}", *match.span())
    for match in _VERSION.finditer(lowered):
        add("version", match.group(1), *match.span())
    for match in _COUNT.finditer(lowered):
        add("count", f"{float(match.group(1)):g}", *match.span(1))
    return tuple(sorted(found, key=lambda s: s.start))


def _label(lowered: str, start: int) -> str:
    """The word right before position `start` of `lowered` (a CJK run's last two characters)."""
    words = _WORD.findall(lowered[:start])
    if not words:
        return ""
    last: str = words[-1]
    return last[-2:] if _CJK_CHAR.match(last) else last


def words_around(text: str, slot: Slot) -> tuple[list[str], str]:
    """The words of `text` before `slot` (Latin words and CJK runs, lowercased) and the word right
    after it ("" when none; a CJK run's first character: the counter of "3 次吧")."""
    lowered = text.lower()
    before: list[str] = _WORD.findall(lowered[: slot.start])
    after = _WORD.match(lowered[slot.end :].lstrip())
    word = after.group(0) if after else ""
    return before, word[:1] if _CJK_CHAR.match(word) else word


def words_beside_slots(text: str) -> float:
    """How much `text` says besides its values: Latin words count one, CJK characters half each (a
    Chinese word is about two characters)."""
    lowered = text.lower()
    for slot in reversed(slots(text)):
        lowered = lowered[: slot.start] + " " + lowered[slot.end :]
    total = 0.0
    for word in _WORD.findall(lowered):
        total += len(word) / 2 if _CJK_CHAR.match(word) else 1
    return total
