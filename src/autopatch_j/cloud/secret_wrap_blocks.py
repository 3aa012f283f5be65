"""Hard-wrapped blocks, recognised by their shape, and secrets completed over their cuts (C-24).

A one-line rendering (an `env K=V …` exec line, a JSON debug line, a config dump) cut at a fixed
column by a terminal, `fold` or a log viewer is a *block*: a first line of width `W` (at least
`BLOCK_WIDTH_MIN` columns), at least one more line of that width, then at most one shorter last
line; every line after the first starts with one constant *continuation prefix* (nothing, spaces,
`> `, `| `, `│ `: the gutter of `secret_wraps.GUTTER`). The prefix either takes columns of the
width (a terminal indents its continuation: every line is `W` wide as written) or is added after
the cut (a quote or a log viewer: every body is `W` wide). Widths are display columns (a wide CJK
character takes two). A block must cut a token at least once (a break between two non-space
characters), so an aligned table of words is no block.

`wrapped_breaks(text)` returns each break of each block with the length of the prefix after it;
`secret_wraps.joined_view` removes them all (the break and exactly that prefix, so a space the cut
fell before stays): the joined view is the rendering as it was before the cut, the canonical text
the rules and the judge read, and each span found there maps back as one piece per line.

`completed(text, spans, breaks)` closes what a reading on one line leaves open: a secret span that
ends where a block cuts a token takes the rest of that token on the next lines (over every further
cut it reaches), and one that starts right after a cut takes the token's head on the line before
(back to a `=`, a `:`, an `@` or a space). So a value accepted on one of its lines is redacted on each of
them. Both are linear: one pass over the lines, and each extension runs over characters no other
extension of the same text covers.
"""

from __future__ import annotations

import re
import unicodedata

from autopatch_j.cloud.secret_wraps import GUTTER, cuts_a_name, starts_assignment

__all__ = ["BLOCK_WIDTH_MIN", "completed", "wrapped_breaks"]

BLOCK_WIDTH_MIN = 32
PAIR_WIDTH_MIN = 40
_NEWLINE = re.compile("\n")
# the characters of a token a cut may fall inside (to the right a `=` or `:` may follow, as in
# base64 padding or `…=839A`; to the left a `=`, `:`, quote or space ends the head)
_TAIL_TOKEN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-.~!#$%^*=")
_HEAD_TOKEN = _TAIL_TOKEN - {"="}
_PAIR_TOKEN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-.=")
_PAIR_HEAD = _PAIR_TOKEN - {"-", "."}  # a list item or an ellipsis on the next line
_PAIR_TAIL = _PAIR_TOKEN - {"="}  # an empty value before the next line
_PAIR_PREFIXES = frozenset({"", ">", "|", "│"})
# the rest of a base64 value: its padding before a separator (`f0Gj5Hk==;`), no setting
_PADDED_TAIL = re.compile(r"[A-Za-z0-9+/_-]{1,256}+={1,2}+(?=[;,&\"'\s)\]}]|\Z)")
# a line that starts a log record of its own (a timestamp) continues no other line
_RECORD = re.compile(r"[ \t]{0,8}+\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d")


def _width(line: str) -> int:
    """Display columns of `line` (a wide or full-width character takes two)."""
    if line.isascii():
        return len(line)
    return len(line) + sum(1 for c in line if unicodedata.east_asian_width(c) in "WF")


def wrapped_breaks(text: str) -> dict[int, int]:
    """The breaks of every hard-wrapped block of `text` (see the module docstring): the position of
    each such `\\n`, with the length of the continuation prefix the joined view drops after it."""
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    if len(newlines) < 1:
        return {}
    starts = [0, *(n + 1 for n in newlines)]
    ends = [n - 1 if n and text[n - 1] == "\r" else n for n in newlines]
    ends.append(len(text))
    lines = [text[s:e] for s, e in zip(starts, ends, strict=True)]
    widths = [_width(line) for line in lines]
    breaks: dict[int, int] = {}
    i = 0
    while i < len(lines) - 1:
        last = _block(text, starts, lines, widths, i)
        if last is None:
            i += 1
            continue
        end_line, prefix = last
        cuts = [k for k in range(i, end_line) if _cuts_token(lines[k], lines[k + 1], prefix)]
        if cuts:
            breaks.update((newlines[k], prefix) for k in range(i, end_line))
        i = end_line  # the last line may start a block of its own (after a pair: the first line of a fold)
    return breaks


def _block(text: str, starts: list[int], lines: list[str], widths: list[int], i: int) -> tuple[int, int] | None:
    """The last line and the prefix length of the block that starts at line `i`, or None."""
    width = widths[i]
    if width < BLOCK_WIDTH_MIN:
        return None
    gutter = GUTTER.match(lines[i + 1]).group()  # type: ignore[union-attr]  # always matches
    for prefix in dict.fromkeys((gutter, "")):
        for added in (False, True) if prefix else (False,):
            last = _run(lines, widths, i, prefix, len(prefix) if added else 0)
            if last is not None and (last > i + 1 or _pair(text, starts, lines, i, prefix)):
                return last, len(prefix)
    return None


def _pair(text: str, starts: list[int], lines: list[str], i: int, prefix: str) -> bool:
    """Two lines, the second no wider, read as one line cut once (no equal widths confirm it): the
    prefix is no comment marker; the cut falls between two token characters, not after a `=` (an
    empty value) nor before a list item's `-`; the second line starts no log record and no setting
    of its own, unless the cut fell inside a name (`FLY_API` + `_TOKEN=…`)."""
    if prefix.strip(" \t") not in _PAIR_PREFIXES:
        return False
    line, following = lines[i], lines[i + 1][len(prefix) :]
    if not line or not following or line[-1] not in _PAIR_TAIL or following[0] not in _PAIR_HEAD:
        return False
    if _RECORD.match(following):
        return False
    at = starts[i + 1] + len(prefix)
    line_end = starts[i] + len(line)
    if _PADDED_TAIL.match(following):
        return True
    return not starts_assignment(text, at) or cuts_a_name(text, starts[i], line_end)


def _run(lines: list[str], widths: list[int], i: int, prefix: str, extra: int) -> int | None:
    """The last line of a block from line `i` whose continuations start with `prefix` and are
    `extra` columns wider than the first line (the prefix added after the cut), or None when fewer
    than two lines have the width."""
    width = widths[i]

    def continues(k: int) -> bool:
        return k < len(lines) and lines[k].startswith(prefix) and not _RECORD.match(lines[k], len(prefix))

    k = i + 1
    while continues(k) and widths[k] == width + extra:
        k += 1
    if k == i + 1 and width < PAIR_WIDTH_MIN:
        return None
    if continues(k) and len(prefix) < len(lines[k]) and widths[k] <= width + extra:
        return k  # the shorter last line (after one full line: a pair cut once)
    return None if k == i + 1 else k - 1


def _cuts_token(line: str, following: str, prefix: int) -> bool:
    """The break between `line` and `following` (its prefix dropped) falls inside a token."""
    return bool(line) and len(following) > prefix and not line[-1].isspace() and not following[prefix].isspace()


def completed(text: str, spans: list[tuple[int, int]], breaks: dict[int, int]) -> list[tuple[int, int]]:
    """`spans` (merged, sorted) with each one that ends or starts at a cut of a block extended
    over the rest of the cut token, one span per line (see the module docstring)."""
    if not breaks or not spans:
        return spans
    out = list(spans)
    reached = 0  # an extension to the right ends where an earlier one did: it is not run again
    previous = 0  # an extension to the left stops at the end of the span before
    for start, end in spans:
        if end >= reached:
            right = _rightwards(text, end, breaks)
            out += right
            reached = right[-1][1] if right else end
        out += _leftwards(text, start, breaks, previous)
        previous = end
    return sorted(out)


def _rightwards(text: str, end: int, breaks: dict[int, int]) -> list[tuple[int, int]]:
    """The rest of a token that a cut at `end` (the end of a line, before a block's break) leaves
    on the lines after it."""
    out: list[tuple[int, int]] = []
    while True:
        newline = end + 1 if text.startswith("\r\n", end) else end
        prefix = breaks.get(newline)
        if prefix is None or end == 0 or text[end - 1] not in _TAIL_TOKEN:
            return out
        begin = at = newline + 1 + prefix
        while at < len(text) and text[at] in _TAIL_TOKEN:
            at += 1
        if at == begin:
            return out
        out.append((begin, at))
        end = at


def _leftwards(text: str, start: int, breaks: dict[int, int], floor_at: int) -> list[tuple[int, int]]:
    """The head of a token that a cut before `start` (the first character after a block's break
    and prefix) leaves on the lines before it, not before `floor_at`."""
    out: list[tuple[int, int]] = []
    while start < len(text) and text[start] in _HEAD_TOKEN:
        newline = text.rfind("\n", 0, start)
        if newline < 0 or breaks.get(newline) != start - newline - 1:
            return out
        end = newline - 1 if newline and text[newline - 1] == "\r" else newline
        at = end
        line_start = text.rfind("\n", 0, end) + 1
        floor = max(floor_at, line_start)
        while at > floor and text[at - 1] in _HEAD_TOKEN:
            at -= 1
        if at == end:
            return out
        out.append((at, end))
        if at > line_start or at <= floor_at:
            return out
        start = at
    return out
