"""Structured material pasted under a prose intro, recognised by the shape of its lines.

A ticket from a tracker, a review's findings, an incident timeline or a hand-over's status lines are
pasted as lines of prose-looking words, so no single line gives them away; the block does, by the
density of its marks. `form_rows` finds, in the runs of non-blank lines (a blank line ends a run):

- **marked or timed lines** — a run of two lines or more, at least `MARKED_SHARE` of them opening
  (after a list marker, if any) with a severity or status mark — a pictograph (🔴, ⚠️, ✅), a priority
  in brackets (`[P1]`), a tracker's issue key (`INC-4471 …`, two digits or more: `AI-1` numbers a
  list the user may be answering) — or with a time of day or a date (`14:05 …`, `[01:12 IST] …`,
  `2026-11-05 …`): findings, a timeline, status lines. A checkbox is no mark: a user ticks the
  assistant's checklist with one (`- [x] Keep Devise. yes, …`) as often as a paste reports progress;
- **a form** — a run opening with a title in brackets (`【缺陷】设备列表滑动掉帧`, `[Bug] …`, or the
  title alone on its line: `【事故复盘】`) over two
  `label：value` lines or more (`步骤：…`, `Expected: …`), the labels short (`FIELD_LABEL_UNITS`), at
  least `MARKED_SHARE` of the lines under the title;
- **a pasted heading** (`headed_rows`) — a short line (`HEADING_UNITS`) ending in a colon right
  under another line ending in a colon (blank lines between), not in the first person and no list
  item: the second is the heading of the material the first introduces ("Ken sent the release
  note:" / "v2.4.0 changes:"), and the heading and the run of lines under it are material.

A user's own numbered rules ("以后这几条：" / "1. 以后…") have none of these shapes and stay prose, and
so does a run of `label：value` lines without a title ("数据库选型结论：…" / "表命名规范：…"): a user
states rules that way too. The line introducing such a block is a report (`structure.parse`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from autopatch_j.memory.blocks import HAN, LIST_ITEM
from autopatch_j.memory.shapes import COLON_END, units

#: The share of a run's lines that must carry a mark, a time or a label for the run to be material.
MARKED_SHARE = 2 / 3
#: A pasted heading is at most this long in words (a CJK character counts half a word).
HEADING_UNITS = 8
#: A form's label is at most this long in words (a CJK character counts half a word).
FIELD_LABEL_UNITS = 4

_PRIORITY = re.compile(r"^\[P\d\](?=\s)")
_ISSUE_KEY = re.compile(r"^[A-Z][A-Z0-9]+-\d{2,}\b")
_TIME = re.compile(r"^\[?(?:\d{1,2}:\d{2}(?!\d)|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}/\d{1,2}(?!\d))")
_TITLE = re.compile(r"^\s*(?:【[^】\n]{1,10}】|\[[A-Za-z][\w -]{1,12}\])\s*(?:\S|$)")
_FIELD = re.compile(rf"^([{HAN}A-Za-z][{HAN}\w /-]{{0,24}}?)\s*[:：]\s*\S")
_FIRST_PERSON = re.compile(r"(?:^|[^A-Za-z])(?:i|my|i've|i'm)(?![A-Za-z'])|我(?!们)", re.IGNORECASE)


def _body(line: str) -> str:
    """`line` without its indentation and its list marker."""
    match = LIST_ITEM.match(line)
    return line[match.end() :] if match else line.lstrip()


def marked(line: str) -> bool:
    """`line` opens with a severity or status mark or with a time or a date (see the module docstring)."""
    body = _body(line)
    if not body:
        return False
    if unicodedata.category(body[0]) == "So":
        return True
    return bool(_PRIORITY.match(body) or _ISSUE_KEY.match(body) or _TIME.match(body))


def findings(heads: Sequence[str]) -> bool:
    """`heads` (a list's item lines) are findings, not options: at least `MARKED_SHARE` of them, two
    or more, open with a severity or status mark (a pictograph, `[P1]`)."""
    marks = 0
    for head in heads:
        body = _body(head).lstrip("*_ ")
        marks += bool(body) and (unicodedata.category(body[0]) == "So" or bool(_PRIORITY.match(body)))
    return marks >= 2 and marks >= MARKED_SHARE * len(heads)


def field(line: str) -> bool:
    """`line` is a form's `label：value` line, with a short label."""
    match = _FIELD.match(_body(line))
    if match is None:
        return False
    return units(match.group(1)) <= FIELD_LABEL_UNITS


def _runs(lines: Sequence[str], taken: Sequence[bool]) -> list[list[int]]:
    """The runs of non-blank lines no other shape has taken."""
    runs: list[list[int]] = []
    current: list[int] = []
    for i, line in enumerate([*lines, ""]):
        if line.strip() and i < len(lines) and not taken[i]:
            current.append(i)
        elif current:
            runs.append(current)
            current = []
    return runs


def form_rows(lines: Sequence[str], taken: Sequence[bool]) -> set[int]:
    """The indices of the lines that are marked or timed runs or forms (see the module docstring);
    `taken` marks lines already known as material, never part of a run."""
    found: set[int] = set()
    for run in _runs(lines, taken):
        if len(run) > 1 and COLON_END.search(lines[run[0]]) and not marked(lines[run[0]]):
            run = run[1:]  # the line introducing the block is no part of it
        marks = sum(1 for i in run if marked(lines[i]))
        if marks >= 2 and marks >= MARKED_SHARE * len(run):
            found.update(run)
            continue
        if len(run) >= 3 and _TITLE.match(lines[run[0]]):
            fields = sum(1 for i in run[1:] if field(lines[i]))
            if fields >= 2 and fields >= MARKED_SHARE * (len(run) - 1):
                found.update(run)
    return found


def headed_rows(lines: Sequence[str], taken: Sequence[bool]) -> set[int]:
    """The indices of the lines that are a pasted heading and the run under it (see the module docstring)."""
    found: set[int] = set()
    for n, line in enumerate(lines):
        if taken[n] or not COLON_END.search(line) or _FIRST_PERSON.search(line) or LIST_ITEM.match(line):
            continue
        if units(line) > HEADING_UNITS:
            continue
        j = n - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j < 0 or j == n - 1 or taken[j] or not COLON_END.search(lines[j]):
            continue
        k = n + 1
        while k < len(lines) and lines[k].strip() and not taken[k]:
            k += 1
        if k > n + 1:
            found.update(range(n, k))
    return found
