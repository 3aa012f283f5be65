"""Hard-wrapped blocks, recognised by their shape, and secrets completed over their cuts (C-24).

A one-line rendering (an `env K=V …` exec line, a JSON debug line, a config dump) cut at a fixed
column by a terminal, `fold` or a log viewer is a *block*: a first line of width `W` (at least
`BLOCK_WIDTH_MIN` columns), at least one more line of that width, then at most one shorter last
line; every line after the first starts with one constant *continuation prefix*: whatever run of
indentation and marks the continuation lines share (any character but a letter, a digit, a quote or
an opening bracket, each run of marks with a space or a tab after it: nothing, spaces, a tab, `> `,
`| `, `│ `, `# `, `// `, `-- `, `+ `, `... `, `>> `), read from the two lines after the first, as
their shared start or bare. The prefix either takes columns of the width (a terminal indents its
continuation: every line is `W` wide as written) or is added after the cut (a quote or a log viewer:
every body is `W` wide). Every cut line may end with one constant *fold mark* a pager or an editor
adds where it folded: the longest run of at most two spaces and one or two marks (no letter, digit,
quote, closing bracket or punctuation) that all the cut lines end with (` \\`, `↵`, `=`); a single
cut line has one only when it is `\\` or `↵` (elsewhere a `=` is the empty value of a setting). The
mark takes columns of the line and is no part of the rendering. Two lines alone (a pair: no equal
widths confirm the shape) need a cut between token characters, and after a prefix that may start a
line of its own (a comment marker, a prompt) a random run on both sides of the cut or a name cut in
two. Widths are display columns (a wide CJK character takes two, as a terminal folds) or characters (as
a text wrapper, an editor or a log viewer counts): characters when display columns make no block,
or when characters read more lines or a longer prefix and neither fewer lines nor a shorter prefix
(CJK text can give display widths that match by chance, over fewer lines or with a shorter
prefix: `  ` for `  ↳ `). A mark the first line starts with as well as the next (`// `, `# ` on every line) is always
a prefix: the bare reading, which would join the mark into the rendering, is not tried. A block must cut a
token at least once (a break between two non-space characters), so an aligned table of words is no
block.

`wrapped_breaks(text)` returns each break of each block as a `Break`: the length of the fold mark
before it and of the prefix after it; `secret_wraps.joined_view` removes them all (the mark, the
break and exactly that prefix, so a space the cut fell before stays): the joined view is the
rendering as it was before the cut, the canonical text the rules and the judge read, and each span
found there maps back as one piece per line.

`completed(text, spans, breaks)` closes what a reading on one line leaves open: a secret span that
ends where a block cuts a token takes the rest of that token on the next lines (over every further
cut it reaches), and one that starts right after a cut takes the token's head on the line before
(back to a `=`, a `:`, an `@` or a space); a fold mark that a reading of one line took for the
value's last character is given back. So a value accepted on one of its lines is redacted on each
of them, and every mark stays. Both are linear: one pass over the lines, and each extension runs
over characters no other extension of the same text covers.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import NamedTuple

from autopatch_j.cloud.secret_stamps import masked_stamps
from autopatch_j.cloud.secret_wraps import (
    GUTTER,
    cell_goes_on,
    cuts_a_name,
    ends_in_file_name,
    looks_random_run,
    starts_assignment,
)

__all__ = ["BLOCK_WIDTH_MIN", "Break", "completed", "wrapped_breaks"]


class Break(NamedTuple):
    """A break of a block: the characters it drops before the line break (a fold mark) and after
    it (the continuation prefix)."""

    mark: int
    prefix: int


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
# prefixes that start no line of their own (a quote, a box, a diff's `+`, an ellipsis); a pair after
# any other needs more evidence (see `_pair`)
_PAIR_PREFIXES = frozenset({"", ">", ">>", "|", "│", "+", "…"})
# the rest of a base64 value: its padding before a separator (`f0Gj5Hk==;`), no setting
_PADDED_TAIL = re.compile(r"[A-Za-z0-9+/_-]{1,256}+={1,2}+(?=[;,&\"'\s)\]}]|\Z)")
# a continuation prefix a block may have: indentation, then up to three runs of one to three marks,
# each with a space or a tab after it — any character but a letter, a digit, a quote or an opening
# bracket (those start the rendering's own text); a block's prefix is the one its lines share
_BLOCK_GUTTER = re.compile(r"[ \t]{0,16}+(?:[^\w\s\"'`(\[{<]{1,3}+[ \t]?){0,3}+")
_PAIR_MARKS = frozenset("\\↵")  # a fold mark that needs no second cut line to tell it from a value
# a fold mark at the end of a cut line: at most two spaces, then one or two characters that close or
# separate nothing of the rendering (no letter, digit, quote, closing bracket or punctuation)
_TRAILING_MARK = re.compile(r"[ \t]{0,2}+[^\w\s\"'`)\]}>,;:.!?]{1,2}+\Z")
MARK_MAX = 4
COLUMN_MAX = 48
# a line that starts a log record of its own (a timestamp) continues no other line
_RECORD = re.compile(r"[ \t]{0,8}+\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d")


def _width(line: str) -> int:
    """Display columns of `line` (a wide or full-width character takes two)."""
    if line.isascii():
        return len(line)
    return len(line) + sum(1 for c in line if unicodedata.east_asian_width(c) in "WF")


def wrapped_breaks(text: str) -> dict[int, Break]:
    """The breaks of every hard-wrapped block of `text` (see the module docstring): the position of
    each such `\\n`, with the fold mark before it and the continuation prefix after it that the
    joined view drops."""
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    if len(newlines) < 1:
        return {}
    starts = [0, *(n + 1 for n in newlines)]
    ends = [n - 1 if n and text[n - 1] == "\r" else n for n in newlines]
    ends.append(len(text))
    lines = masked_stamps([text[s:e] for s, e in zip(starts, ends, strict=True)])
    widths = [_width(line) for line in lines]
    counts = [len(line) for line in lines] if widths != [len(line) for line in lines] else None
    breaks: dict[int, Break] = {}
    i = 0
    while i < len(lines) - 1:
        last = _block(text, starts, lines, widths, i, _width)
        if counts is not None and not lines[i].isascii():
            by_count = _block(text, starts, lines, counts, i, len)  # cut at a count of characters
            if by_count is not None and (
                last is None or (by_count != last and min(by_count[0] - last[0], by_count[1] - last[1]) >= 0)
            ):
                last = by_count  # as many lines or more, each with as long a prefix or longer
        if last is None:
            i += 1
            continue
        end_line, prefix = last
        mark = _mark(lines, i, end_line)
        cuts = [k for k in range(i, end_line) if _cuts_token(lines[k][: len(lines[k]) - mark], lines[k + 1], prefix)]
        if cuts:
            breaks.update((newlines[k], Break(mark, prefix)) for k in range(i, end_line))
        i = end_line  # the last line may start a block of its own (after a pair: the first line of a fold)
    return breaks


def _mark(lines: list[str], i: int, end_line: int) -> int:
    """The length of the fold mark that every cut line of the block from line `i` to `end_line`
    ends with: the longest `_TRAILING_MARK` they share (`\\`, ` \\`, `↵`, `=`), or 0. One cut
    line alone has a mark only when it is `\\` or `↵`, or psql's ` +` ending a table row: elsewhere a
    single line's last character is as likely the rendering's own (a `=` is an empty value)."""
    found = _TRAILING_MARK.search(lines[i][-MARK_MAX:])
    mark = found.group() if found else ""
    for k in range(i + 1, end_line):
        mark = _shared_tail(mark, lines[k])
    if not mark.strip(" \t") or any(len(lines[k]) <= len(mark) for k in range(i, end_line)):
        return 0
    if end_line - i < 2 and mark.strip(" \t") not in _PAIR_MARKS and not cell_goes_on(lines[i], 0, len(lines[i])):
        return 0
    return len(mark)


def _shared_tail(mark: str, line: str) -> str:
    """The longest end of `mark` that `line` ends with."""
    size = len(mark)
    while size and not line.endswith(mark[len(mark) - size :]):
        size -= 1
    return mark[len(mark) - size :]


def _block(
    text: str, starts: list[int], lines: list[str], widths: list[int], i: int, measure: Callable[[str], int]
) -> tuple[int, int] | None:
    """The last line and the prefix length of the block that starts at line `i`, or None
    (`measure`: how `widths` were counted)."""
    width = widths[i]
    if width < BLOCK_WIDTH_MIN:
        return None
    # the prefix of the next line or of the one after it (the cut may put the rendering's own
    # indentation or `+` right after the prefix of the first continuation), their shared start, or
    # bare; the reading that makes the longest block wins (a value cut before its own `:` or `-`
    # reads as a prefix of one line only)
    gutters = [_BLOCK_GUTTER.match(lines[k]).group() for k in range(i + 1, min(i + 3, len(lines)))]  # type: ignore[union-attr]
    shared = [_shared_head(*gutters)] if len(gutters) == 2 else []
    bare = [GUTTER.match(gutter).group() for gutter in gutters]  # type: ignore[union-attr]
    column = _column(lines, i)
    best: tuple[int, int] | None = None
    # a mark every line starts with, the first included (`// `, `# `), is a prefix: the bare
    # reading would join it into the rendering
    marked = bool(gutters) and bool(gutters[0].strip(" \t")) and lines[i].startswith(gutters[0])
    for prefix in dict.fromkeys((*(p for p in (*gutters, *shared, *bare) if p), *column, *(() if marked else ("",)))):
        for added in (False, True) if prefix else (False,):
            last = _run(lines, widths, i, prefix, measure(prefix) if added else 0)
            if last is None or (best is not None and last <= best[0]):
                continue
            if last > i + 1 or _pair(text, starts, lines, i, prefix):
                best = last, len(prefix)
    return best


def _column(lines: list[str], i: int) -> list[str]:
    """The column the continuation lines after line `i` share, whatever its characters (a batch
    comment's `REM `, a chat client's `钉钉> `, a log record's header `<time> stdout P `): the
    longest start of the next two lines (of the first two for a pair) that ends with a space or a
    tab, at most `COLUMN_MAX` characters, not blank; as a list of none or one."""
    first, second = (lines[i + 1], lines[i + 2]) if i + 2 < len(lines) else (lines[i], lines[i + 1])
    head = _common_start(first[:COLUMN_MAX], second[:COLUMN_MAX])
    head = head[: max(head.rfind(" "), head.rfind("\t")) + 1]
    return [head] if head.strip(" \t") else []


def _common_start(first: str, second: str) -> str:
    """The longest start `first` and `second` share, character by character."""
    size = 0
    while size < min(len(first), len(second)) and first[size] == second[size]:
        size += 1
    return first[:size]


def _shared_head(first: str, second: str) -> str:
    """The longest start of `first` that `second` starts with, ending after a space or a tab
    when it is shorter than both (a mark cut in two is no prefix)."""
    head = _common_start(first, second)
    size = len(head)
    if size < len(first) and size < len(second):
        head = head[: max(head.rfind(" "), head.rfind("\t")) + 1]
    return head


def _pair(text: str, starts: list[int], lines: list[str], i: int, prefix: str) -> bool:
    """Two lines, the second no wider, read as one line cut once (no equal widths confirm it): the cut
    falls between two token characters (before a fold mark `\\` or `↵`), not after a `=` (an empty
    value) or a file's name (`secret_wraps.ends_in_file_name`) nor before a list item's `-`; the second line
    starts no log record and no setting of its own, unless the cut fell inside a name (`FLY_API` +
    `_TOKEN=…`). After a prefix that may start a comment or a line of its own (`# `, `// `, `-- `,
    `... `: any but a quote's, a box's, a `+ ` or an ellipsis; it must end with a space or a tab, or
    `-r9vji` would read as the mark `-` and its rest), both sides of the cut must also read as a
    random run, as the two halves of a cut value do (a comment's words after a value do not), or the
    cut must fall inside a name whose setting the second line goes on with (`db.pas` + `sword=…`)."""
    line, following = lines[i], lines[i + 1][len(prefix) :]
    mark = _TRAILING_MARK.search(line[-MARK_MAX:])
    if mark is not None and mark.group().strip(" \t") in _PAIR_MARKS:
        line = line[: len(line) - len(mark.group())]
    if not line or not following or line[-1] not in _PAIR_TAIL or following[0] not in _PAIR_HEAD:
        return False
    if _RECORD.match(following):
        return False
    if ends_in_file_name(line, 0, len(line)):
        return False  # the line ends a file's name whole (`….apk` over its digest)
    at = starts[i + 1] + len(prefix)
    line_end = starts[i] + len(line)
    assigns = starts_assignment(text, at)
    cut_name = cuts_a_name(text, starts[i], line_end)
    if prefix.strip(" \t") not in _PAIR_PREFIXES and (
        not prefix.endswith((" ", "\t")) or not (_random_cut(line, following) or (assigns and cut_name))
    ):
        return False
    if _PADDED_TAIL.match(following):
        return True
    return not assigns or cut_name


_RUN_BEFORE = re.compile(r"[A-Za-z0-9+/_.~!#$%^*?=-]{1,64}+\Z")
_RUN_AFTER = re.compile(r"[A-Za-z0-9+/_.~!#$%^*?=-]{1,64}+")


def _random_cut(line: str, following: str) -> bool:
    """The runs of token characters on both sides of a cut (`line` ends one, `following` starts
    the other) read as random (`secret_wraps.looks_random_run`)."""
    before = _RUN_BEFORE.search(line[-64:])
    after = _RUN_AFTER.match(following)
    return before is not None and after is not None and all(map(looks_random_run, (before.group(), after.group())))


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


def completed(text: str, spans: list[tuple[int, int]], breaks: dict[int, Break]) -> list[tuple[int, int]]:
    """`spans` (merged, sorted) with each one that ends or starts at a cut of a block extended
    over the rest of the cut token, one span per line (see the module docstring)."""
    if not breaks or not spans:
        return spans
    spans = [_unmarked(text, start, end, breaks) for start, end in spans]
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


def _rightwards(text: str, end: int, breaks: dict[int, Break]) -> list[tuple[int, int]]:
    """The rest of a token that a cut at `end` (the end of a line, before a block's fold mark and
    break) leaves on the lines after it."""
    out: list[tuple[int, int]] = []
    while True:
        newline = _newline_after(text, end)
        cut = breaks.get(newline)
        if cut is None:  # the span may stop before the fold mark
            newline = text.find("\n", end, end + MARK_MAX + 2)
            cut = breaks.get(newline) if newline > 0 else None
            if cut is None or not cut.mark or _line_end(text, newline) - cut.mark != end:
                cut = None
        if cut is None or end == 0 or text[end - 1] not in _TAIL_TOKEN:
            return out
        begin = at = newline + 1 + cut.prefix
        while at < len(text) and text[at] in _TAIL_TOKEN:
            at += 1
        if at == begin:
            return out
        out.append((begin, at))
        end = at


def _unmarked(text: str, start: int, end: int, breaks: dict[int, Break]) -> tuple[int, int]:
    """The span without the fold mark it ends with (a reading of one line takes the mark for the
    value's last character); the mark stays in the text."""
    cut = breaks.get(_newline_after(text, end))
    if cut is not None and cut.mark and end - cut.mark > start:
        return start, end - cut.mark
    return start, end


def _newline_after(text: str, at: int) -> int:
    """`at`, or the `\\n` of a `\\r\\n` that starts there."""
    return at + 1 if text.startswith("\r\n", at) else at


def _line_end(text: str, newline: int) -> int:
    """Where the line before the `\\n` at `newline` ends (before a `\\r`)."""
    return newline - 1 if newline and text[newline - 1] == "\r" else newline


def _leftwards(text: str, start: int, breaks: dict[int, Break], floor_at: int) -> list[tuple[int, int]]:
    """The head of a token that a cut before `start` (the first character after a block's break
    and prefix) leaves on the lines before it, not before `floor_at`."""
    out: list[tuple[int, int]] = []
    while start < len(text) and text[start] in _HEAD_TOKEN:
        newline = text.rfind("\n", 0, start)
        cut = breaks.get(newline)
        if newline < 0 or cut is None or cut.prefix != start - newline - 1:
            return out
        end = (newline - 1 if newline and text[newline - 1] == "\r" else newline) - cut.mark
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
