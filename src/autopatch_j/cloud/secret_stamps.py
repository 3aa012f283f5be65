"""Log lines read without their timestamps, diff lines without their markers (C-24).

A tool's output is often a log whose every line starts with a timestamp (a CI runner's
`2026-04-19T08:06:40.1434778Z `, `kubectl logs --timestamps`, `[2026-02-10 19:20:20,156] `). Read as
written, the timestamp sits between a value and the next line: a wrap that joins a random run with
the next line's first run reads `AKIA…EXAMPLE2026-04-12T16:00:30.982Z` as one value, and the colons of
the time count as the fields of a `.pgpass` line. `unstamped_view(view)` returns the view with the
timestamp (and the one blank after it) removed at the start of each line that has one, when at
least `MIN_STAMPED` lines have one, and for each of its indices the index in `view` (plus one for the
end), so the rules and the judge read each line's body and every span maps back; None when there
is nothing to remove. In a unified diff (after its first `@@ -` hunk header) the `+` or `-` that
starts a line is removed the same way: `+https://user:…@host` and a value alone on a `+` line read
as in the file. A timestamp or a marker is no secret, so nothing is lost; the lines and the
prefixes of the original text stay. Linear: one bounded match per line.
"""

from __future__ import annotations

import re

__all__ = ["MIN_STAMPED", "masked_stamps", "unstamped_view"]

MIN_STAMPED = 2

# an ISO 8601 date and time (`T` or a space between them), fractions of a second, a zone, in
# brackets or not, then one blank
_STAMP = re.compile(
    r"(?m)^[ \t]{0,8}+\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\]?[ \t]"
)

_LINE_STAMP = re.compile(_STAMP.pattern.removeprefix("(?m)^"))
STAMP_MASK = "0"  # no mark (a mark would start a prefix of its own) and no timestamp


def masked_stamps(lines: list[str]) -> list[str]:
    """`lines` with the timestamp that starts a line replaced by as many `STAMP_MASK` characters
    (the blank after it stays) where the line before or after starts with the very same one: a
    record a logger cut over several lines (`kubectl logs --timestamps`, a CI runner), whose column
    then reads as one prefix (`secret_wrap_blocks`). Lines stamped with different times are
    records of their own and keep their stamps (a timestamp starts no continuation)."""
    found = [_LINE_STAMP.match(line) for line in lines]
    stamps = [m.group() if m is not None else None for m in found]
    if sum(1 for stamp in stamps if stamp is not None) < MIN_STAMPED:
        return lines
    out = list(lines)
    for k, stamp in enumerate(stamps):
        if stamp is not None and stamp in (
            stamps[k - 1] if k else None,
            stamps[k + 1] if k + 1 < len(stamps) else None,
        ):
            out[k] = STAMP_MASK * (len(stamp) - 1) + lines[k][len(stamp) - 1 :]
    return out


# a unified diff's hunk header, and the `+` or `-` that starts a line of a hunk (not the `+++ b/…`
# and `--- a/…` file headers)
_HUNK = re.compile(r"(?m)^@@ -\d")
_DIFF_MARK = re.compile(r"(?m)^[+-](?!(?<=\+)\+\+ |(?<=-)-- )")


def unstamped_view(view: str) -> tuple[str, list[int]] | None:
    """`view` without the timestamps that start its lines and without the `+`/`-` markers of a
    diff's lines, and the index map back (see above)."""
    stamps: list[tuple[int, int]] = []
    if view.count(":") >= 2 * MIN_STAMPED:
        stamps = [m.span() for m in _STAMP.finditer(view)]
        if len(stamps) < MIN_STAMPED:
            stamps = []
    hunk = _HUNK.search(view) if "@@ -" in view else None
    if hunk is not None:
        marks = [m.span() for m in _DIFF_MARK.finditer(view, hunk.end())]
        stamps = sorted(stamps + marks) if stamps else marks
    if not stamps:
        return None
    parts: list[str] = []
    index: list[int] = []
    pos = 0
    for start, end in stamps:
        parts.append(view[pos:start])
        index.extend(range(pos, start))
        pos = end
    parts.append(view[pos:])
    index.extend(range(pos, len(view) + 1))
    return "".join(parts), index
