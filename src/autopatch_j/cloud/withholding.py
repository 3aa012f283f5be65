"""Withholding private lines from text whatever its spelling: a canonical view and shingles.

An agent may echo what it received in any spelling: JSON (also `\\/`, `\\uXXXX`, encoded twice),
URL-encoded, as HTML entities, full-width or with non-breaking spaces, wrapped at any column, with
quote or comment markers at each wrapped line, in another letter case. `withhold_lines()` compares
on a **canonical view** of the text and maps what it finds back to the original:

1. decode escapes, repeatedly (at most `DECODE_LEVELS` passes, stopping when a pass changes
   nothing): JSON and Python escapes (`\\n`, `\\"`, `\\/`, `\\\\`, `\\uXXXX` with surrogate pairs,
   `\\xXX`, `\\UXXXXXXXX`), URL encoding (`%XX` runs, decoded as UTF-8) and HTML entities;
2. NFKD (compatibility forms: full-width letters, ligatures, no-break spaces), casefold, and drop
   combining marks;
3. keep only letters and digits: every kind of whitespace, line wrap and punctuation is folded away.

Each private line gets the same view; the text's view is then covered by the line's overlapping
shingles (`SHINGLE` characters long; a line shorter than that must appear whole), and every covered
run of the view is replaced in the **original** text, from the first to the last original character
it came from, by `[memory withheld]`. So a full echo disappears in any of those spellings, and a
partial echo disappears down to pieces shorter than a shingle. Linear in the text's length.

Limits: an agent that paraphrases, translates or interleaves letters or digits into the line (for
example line numbers in front of each wrapped piece) can leave pieces shorter than a shingle.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

WITHHELD = "[memory withheld]"
DECODE_LEVELS = 6
SHINGLE = 10
MIN_LINE_CHARS = 4  # a line whose canonical view is shorter ("ok") is not searched for

_ESCAPE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}"  # a JSON surrogate pair
    r"|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}"
    r"|\\[nrtbfv/\"'\\]"
    r"|(?:%[0-9a-fA-F]{2})++"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?+"  # browsers accept a missing ;
)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", "v": "\v"}


def _decode_one(token: str) -> str:
    if token.startswith("%"):
        return bytes.fromhex(token.replace("%", "")).decode("utf-8", errors="replace")
    if token.startswith("&"):
        return html.unescape(token)
    kind = token[1]
    if kind == "u" and len(token) == 12:
        high, low = int(token[2:6], 16), int(token[8:12], 16)
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    if kind in "uUx":
        code = int(token[2:], 16)
        return chr(code) if code <= 0x10FFFF else token
    return _SIMPLE.get(kind, kind)


def _decode_pass(text: str, starts: list[int], ends: list[int]) -> tuple[str, list[int], list[int]] | None:
    """One pass over the view; each decoded character spans the original characters of its escape."""
    pieces: list[str] = []
    new_starts: list[int] = []
    new_ends: list[int] = []
    last = 0
    changed = False
    for match in _ESCAPE.finditer(text):
        decoded = _decode_one(match.group())
        if decoded == match.group():
            continue
        changed = True
        begin, end = match.span()
        pieces.append(text[last:begin])
        new_starts += starts[last:begin]
        new_ends += ends[last:begin]
        pieces.append(decoded)
        new_starts += [starts[begin]] * len(decoded)
        new_ends += [ends[end - 1]] * len(decoded)
        last = end
    if not changed:
        return None
    pieces.append(text[last:])
    new_starts += starts[last:]
    new_ends += ends[last:]
    return "".join(pieces), new_starts, new_ends


@lru_cache(maxsize=8192)
def _fold_char(char: str) -> str:
    folded = unicodedata.normalize("NFKD", char).casefold()
    return "".join(c for c in unicodedata.normalize("NFKD", folded) if c.isalnum())


def canonical_view(text: str, *, decode: bool = True) -> tuple[str, list[int], list[int]]:
    """The canonical view of `text` and, per view character, the first and last original index."""
    view, starts, ends = text, list(range(len(text))), list(range(len(text)))
    if decode and ("\\" in text or "%" in text or "&" in text):
        for _ in range(DECODE_LEVELS):
            decoded = _decode_pass(view, starts, ends)
            if decoded is None:
                break
            view, starts, ends = decoded
    out: list[str] = []
    out_starts: list[int] = []
    out_ends: list[int] = []
    for index, char in enumerate(view):
        folded = char if char.isascii() and char.isalnum() and not char.isupper() else _fold_char(char)
        if len(folded) == 1:
            out.append(folded)
            out_starts.append(starts[index])
            out_ends.append(ends[index])
        elif folded:
            out.append(folded)
            out_starts += [starts[index]] * len(folded)
            out_ends += [ends[index]] * len(folded)
    return "".join(out), out_starts, out_ends


def canonical(text: str, *, decode: bool = True) -> str:
    return canonical_view(text, decode=decode)[0]


def covered_runs(view: str, lines: Iterable[str]) -> list[tuple[int, int]]:
    """Runs [a, b) of `view` covered by a shingle of one of the (raw) lines."""
    shingles: set[str] = set()
    whole: set[str] = set()
    # a line is searched for as written and decoded: "a\\tb" may be echoed as a tab or as the two characters
    for key in {canonical(line, decode=decode) for line in lines for decode in (True, False)}:
        if len(key) < MIN_LINE_CHARS:
            continue
        if len(key) < SHINGLE:
            whole.add(key)
        else:
            shingles.update(key[i : i + SHINGLE] for i in range(len(key) - SHINGLE + 1))
    marks = bytearray(len(view))
    if shingles:
        for i in range(len(view) - SHINGLE + 1):
            if view[i : i + SHINGLE] in shingles:
                marks[i : i + SHINGLE] = b"\x01" * SHINGLE
    for key in whole:
        at = view.find(key)
        while at != -1:
            marks[at : at + len(key)] = b"\x01" * len(key)
            at = view.find(key, at + 1)
    runs: list[tuple[int, int]] = []
    i = marks.find(1)
    while i != -1:
        j = marks.find(0, i)
        j = len(view) if j == -1 else j
        runs.append((i, j))
        i = marks.find(1, j)
    return runs


def withhold_lines(text: str, lines: Iterable[str], marker: str = WITHHELD) -> str:
    """`text` with every span whose canonical view matches one of `lines` replaced by `marker`."""
    lines = [line for line in lines if line.strip()]
    if not lines or not text:
        return text
    view, starts, ends = canonical_view(text)
    runs = covered_runs(view, lines)
    if not runs:
        return text
    pieces: list[str] = []
    last = 0
    for a, b in runs:
        begin, end = starts[a], ends[b - 1] + 1
        if begin < last:  # this run starts inside a decoded character already withheld
            last = max(last, end)
            continue
        pieces += [text[last:begin], marker]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def leaks(text: str, lines: Iterable[str]) -> bool:
    """True when the canonical view of `text` still holds a shingle (or a short line whole)."""
    return bool(covered_runs(canonical(text), lines))
