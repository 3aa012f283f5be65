"""Line breaks that fall inside a secret, and the joined view in which they are removed.

A secret cut across lines (a terminal or `fold` wrap, a `> ` mail quote, an indented log
continuation, a `│ ` TUI box, a base64 blob cut at 64 or 76 columns) is read whole in a *joined
view*: `joined_view(view)` returns `view` with such breaks removed (a `Joined`: its text, for each of
its indices the index in `view`, and where it removed a break). `Joined.pieces` maps a span of the
joined view back as one span per line, so each piece of a secret is redacted on its own line and the
break, the indentation and the prefix between them stay.

A line is a *gutter* and a *body*: the gutter is the indentation and at most three quote, comment or
box markers (`>`, `│`, `┃`, `|`, `#`, `//`, `*`), each with one space after it; where a record
continues (a quoted value or a random run) the gutter may also hold an editor's or a log viewer's
continuation mark (`…`, `↳`, `↪`, `+ `, `... `, `-- `) or a relaying tool's tag (`[build-07] `,
`remote: `), and the cut line may end in a fold mark (`\\`, `↩`; a table row in psql's ` +`, which
says its last cell goes on on the next line). A break is joined
when the next body starts with a token character (no space, no `[REDACTED]` mark), the line ends
with one too (at a fixed column it may end with a space: the wrap fell after it, and it stays), and
one of these holds:

- **a quoted value continues**: the line ends inside a quote opened after a separator
  (`PASSWORD='Pelican`, `"SMTP_PASS": "Copperfal`) and the next body closes it before a separator
  (`harbor4471!' ./start.sh`), each side at most `QUOTED_MAX` characters, and does not start a
  field with its value (`authSource=admin"`: a form's next field, its `&` read as a break);
- **a random run continues**: the run of token characters before the break looks random (a digit,
  or an inner capital, or a symbol beside a letter: `looks_random_run`) and the line does not end
  in a file's name (`… client-2.4.1.apk` over its digest: `ends_in_file_name`) — or, with no space before
  the break, is a cut token prefix holding `-` or `_` (`sk_live_Q`) — and so does the first run of
  the next body, which starts no assignment (`DEBUG=true` or an empty `SMS_AP_ID=` on the next
  line of an `.env` stays apart; a name that reads as the rest of a random value, `SnVpePT=`, is
  none; a colon assigns only before a blank, a quote, a bracket or the line's end:
  `AEXnp2no:APA91b…` and `PA:ycQ4:` are the rest of a value) and no shell prompt
  (`ops@bastion01:~$ `);

and, outside a fixed column, the next line's gutter does not open a comment (`# `, `// `) that the
cut line does not hold (a note under a setting is no rest of its value);
- **the text is hard-wrapped at a fixed column**: the line's body and a neighbouring line's body
  have the same length, at least `FIXED_WIDTH_MIN` (`FIXED_INDENTED_MIN` when the next gutter is
  bare indentation), and the next body is no longer — or the same holds for the lines as written
  (text wrapped with its own indentation: then only a gutter the two lines share is dropped, or
  the next line's whole prefix when it is the cut line's box or quote marks under a hanging indent,
  `│ | … | <cut value>` over `│   <rest>`); the
  next body starts no assignment unless the run before the break is a name that starts a field
  (`export ORDERS_API_SE` + `CRET_KEY=…`; a value after `: ` or `= ` is no name). The
  fixed-column breaks of a text before it was decoded (a JSON string with `\\n` escapes cut at a
  column) are passed in by the caller as `fixed_breaks`.

The joined view drops the break (with a `\\r` before it; outside a fixed column also a trailing fold
mark and, in a random run, the spaces before it) and the next line's gutter; a break of a hard-wrapped
block (`secret_wrap_blocks.wrapped_breaks`, passed in as `wrapped`) is removed unconditionally, with
exactly the block's fold mark and continuation prefix. `continued` extends a span
that runs to the end of a long line (≥ `WRAP_WIDTH_MIN` columns) over the next line's first run.
Work per break is bounded (gutters ≤ 22 characters, runs ≤ 256, quoted sides ≤ `QUOTED_MAX`), so
both are linear.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass

from autopatch_j.cloud.secret_values import REDACTED

__all__ = [
    "FIXED_WIDTH_MIN",
    "WRAP_WIDTH_MIN",
    "Joined",
    "cell_goes_on",
    "continued",
    "cuts_a_name",
    "ends_in_file_name",
    "fixed_column_breaks",
    "joined_view",
    "looks_random_run",
    "starts_assignment",
]

FIXED_WIDTH_MIN = 16
FIXED_INDENTED_MIN = 32
WRAP_WIDTH_MIN = 60
QUOTED_MAX = 256

GUTTER = re.compile(r"[ \t]{0,16}+(?:(?:>|│|┃|\||#|//|\*)[ \t]?){0,3}+")
# where a wrapped record continues: a gutter (a marker may take a few spaces), also an editor's or a
# log viewer's continuation mark (`…`, `↳`, `↪`, `+ `, `... `, `-- `) or the tag a tool prints before
# each line it relays (`[build-07] `, `remote: `); and the fold mark a cut line may end with (a
# shell's `\`, `↩`)
_CONTINUATION = re.compile(
    r"[ \t]{0,16}+(?:(?:>|│|┃|\||#|//|\*|…|↳|↪)[ \t]{0,3}+"
    r"|(?:\+|\.{3}|--|\[[\w.:-]{1,24}\]|[a-z]{2,12}:)[ \t]{1,3}+){0,3}+"
)
_FOLD_MARKS = frozenset("\\↩↵⏎")
_NEWLINE = re.compile("\n")
_TOKEN_RUN_TAIL = re.compile(r"[^\s\"'`]*+\Z")
_NEXT_RUN = re.compile(
    r"(?P<next>[A-Za-z0-9_+/.!@#$%^&*~-]{1,256}+(?:={1,2}+(?!\S))?)(?P<assign>[ \t]{0,8}+(?::(?=[\s\"'\[{]|\Z)|=))?"
)
_NAME = re.compile(r"[A-Za-z_][\w.-]*+")
_CASE_SWITCH = re.compile(r"[a-z][A-Z]")
_WORDY = re.compile(r"[A-Z][a-z]{2,}|[a-z]{3,}|[A-Z]{3,}(?![a-z])")
# a digit, an inner capital, or a symbol next to a letter or digit (`^Du%t@`, the rest of a password)
_RANDOM_RUN = re.compile(r"[0-9]|[a-z][A-Z]|[A-Z][a-z]*[A-Z]|[!@#$%^&*~][A-Za-z0-9]|[A-Za-z0-9][!@#$%^&*~]")
# a file's name or path ending in its extension (`client-2.4.1-android.apk`, `~/.ssh/id_ed25519.pub`),
# as the last word of a line: after a blank, a form body's `+` or the line's start
_FILE_NAME_END = re.compile(r"(?<![^\s+])[\w.~/-]{0,60}(?<=[A-Za-z0-9])\.[a-z]{2,4}\Z")
_OPENS_AFTER = frozenset(" \t=:(,[{")
_CLOSES_BEFORE = frozenset(" \t,;:)]}|&>")


def _assignment(after: re.Match[str] | None) -> bool:
    """The next body starts `NAME=` or `NAME:` (a new setting, not the rest of a token; `NAME+=` of a
    form body read with its `+` kept and a diff's added `+NAME=` are ones too), and the name reads
    like one (`SnVpePT=…`,
    `fC3M1wl4=…`, `moH5dzC:` are the rest of a random value)."""
    if after is None:
        return False
    if not after.group("assign"):
        return _empty_assignment(after.group("next"))
    name = after.group("next").strip("+")  # a diff's added line (`+NAME=`), a form's `NAME+=`
    return _NAME.fullmatch(name) is not None and not _random_name(name)


# `NAME=` with nothing after it, the name holding a `_` or a `.` that no padded base64 holds
# (`SMS_AP_ID=`, `db.password=`: an empty setting, not a run ending in `=` padding)
_EMPTY_SETTING = re.compile(r"[A-Za-z][A-Za-z0-9]*+(?:[_.][A-Za-z0-9]++)++=")


def _empty_assignment(run: str) -> bool:
    """The run read as one ending in `=` padding is an empty setting's name (`SMS_AP_ID=`)."""
    return _EMPTY_SETTING.fullmatch(run) is not None and not _random_name(run[:-1])


def starts_assignment(view: str, at: int) -> bool:
    """The text at `at` starts a new setting (`NAME=`, `NAME: `), not the rest of a token."""
    return _assignment(_NEXT_RUN.match(view, at))


def cuts_a_name(view: str, line_start: int, line_end: int) -> bool:
    """The line ends inside a name that starts a field (`_cut_name`)."""
    return _cut_name(view, line_start, line_end)


def _random_name(name: str) -> bool:
    """A name with a switch from lower to upper case and a digit or a second switch, whose letters
    are mostly not in word-like segments (`apiKeyId`, `imagePullPolicy`, `DB2_HOST` are names)."""
    switches = len(_CASE_SWITCH.findall(name))
    if len(name) < 4 or not switches or (switches < 2 and not any(c.isdigit() for c in name)):
        return False
    wordy = sum(len(seg) for seg in _WORDY.findall(name) if any(c in "aeiouAEIOU" for c in seg))
    return wordy * 2 < len(name)


def looks_random_run(run: str) -> bool:
    """A run of at least four token characters with a digit, an inner capital, or a symbol beside
    a letter or digit: the piece of a random value, not a word."""
    return len(run) >= 4 and _RANDOM_RUN.search(run) is not None


def ends_in_file_name(line: str, floor: int, end: int) -> bool:
    """`line[floor:end]` ends in a file's name (`_FILE_NAME_END`), a word of its own — not a value
    after a quote or a `=` (`psk="q_cvIsM.ud`, `PASSWORD=Glacier.cl`: a value cut there): the line
    ends a thing whole, and the next line holds another (a digest, a key the file holds)."""
    return _FILE_NAME_END.search(line, max(floor, end - 64), end) is not None


def _joinable(run: str) -> bool:
    """A run before a line break that may continue on the next line: random-looking, or token-like
    (it holds a `-` or `_`: `sk-proj-`, `sk_live_I`)."""
    return looks_random_run(run) or (len(run) >= 3 and ("-" in run or "_" in run))


def _lines(view: str, newlines: list[int]) -> tuple[list[int], list[int], list[int]]:
    """For each line of `view`: its length, the length of its gutter and of its body (without a
    final `\\r`)."""
    lengths, gutters, bodies = [], [], []
    begin = 0
    for end in [*newlines, len(view)]:
        length = end - begin - (1 if end > begin and view[end - 1] == "\r" else 0)
        gutter = GUTTER.match(view, begin, end).end() - begin  # type: ignore[union-attr]  # always matches
        lengths.append(length)
        gutters.append(gutter)
        bodies.append(max(0, length - gutter))
        begin = end + 1
    return lengths, gutters, bodies


def _same_width(widths: list[int], i: int, floor: int) -> bool:
    """Line `i` is at least `floor` wide, a neighbouring line as wide and the next line no wider."""
    width = widths[i]
    same = (i > 0 and widths[i - 1] == width) or (i + 2 < len(widths) and widths[i + 1] == width)
    return width >= floor and same and 0 < widths[i + 1] <= width


def fixed_column_breaks(view: str, newlines: list[int] | None = None) -> dict[int, int]:
    """Line breaks of text hard-wrapped at a fixed column (see the module docstring): the position
    of each such `\\n` in `view`, with the length of the gutter the joined view drops after it:
    the next line's gutter when the bodies have one width or the two lines the same gutter, none
    when only the lines as written have one width (text wrapped with its own indentation)."""
    if newlines is None:
        newlines = [match.start() for match in _NEWLINE.finditer(view)]
    if len(newlines) < 2:
        return {}
    lengths, gutters, bodies = _lines(view, newlines)
    breaks = {}
    for i, newline in enumerate(newlines):
        indent = view[newline + 1 : newline + 1 + gutters[i + 1]]
        floor = FIXED_INDENTED_MIN if indent and indent.isspace() else FIXED_WIDTH_MIN
        if _same_width(bodies, i, floor):
            breaks[newline] = gutters[i + 1]
        elif _same_width(lengths, i, FIXED_WIDTH_MIN) and not view[newline + 1].isspace():
            same_gutter = view.startswith(view[newline + 1 : newline + 1 + gutters[i + 1]], newline - lengths[i])
            if same_gutter and gutters[i] == gutters[i + 1]:
                breaks[newline] = gutters[i + 1]
            else:
                breaks[newline] = _hanging_indent(view, newline - lengths[i], newline + 1, gutters[i + 1])
    return breaks


_BLANKS = re.compile(r"[ \t]{1,8}+")


def _hanging_indent(view: str, line_start: int, next_start: int, gutter: int) -> int:
    """The prefix a wrapping tool prints before each continuation line of a row it cut at a fixed
    column (`│ | … | sk_live_cef5` over `│   aaa8…`): the next line's gutter holds the cut line's
    markers (a box or quote mark, not bare indentation) and then only blanks, a hanging indent
    under them. Its length, with those blanks; 0 when the next line's gutter is no such prefix."""
    marks = view[next_start : next_start + gutter]
    if not marks.strip() or not view.startswith(marks, line_start):
        return 0
    blanks = _BLANKS.match(view, next_start + gutter)
    return gutter + (blanks.end() - blanks.start() if blanks else 0)


def _marked(view: str, left_end: int, right_start: int) -> bool:
    """A `[REDACTED]` mark ends before the break or starts after it (redacting twice joins nothing)."""
    return view.endswith(REDACTED, 0, left_end) or view.startswith(REDACTED, right_start)


def _quoted_break(view: str, line_start: int, left_end: int, right_start: int) -> bool:
    """The line ends inside a quote opened after a separator and the next body closes it before a
    separator (each side ≤ `QUOTED_MAX` characters, the break between two non-space characters)."""
    floor = max(line_start, left_end - QUOTED_MAX)
    at = max(view.rfind("'", floor, left_end), view.rfind('"', floor, left_end))
    if at < 0 or at + 1 >= left_end or (at > line_start and view[at - 1] not in _OPENS_AFTER):
        return False
    quote = view[at]
    if view.find(quote, at + 1, left_end) != -1:
        return False
    line_end = view.find("\n", right_start, right_start + QUOTED_MAX)
    close = view.find(quote, right_start, line_end if line_end != -1 else right_start + QUOTED_MAX)
    if close <= right_start:
        return False
    return close + 1 >= len(view) or view[close + 1] in _CLOSES_BEFORE or view[close + 1] in "\r\n"


def _cut_name(view: str, floor: int, newline: int) -> bool:
    """Before a fixed-column break, a name that starts a field (after a space, `;`, `&`, `,` or an
    opening bracket or quote: `export ORDERS_API_SE` + `CRET_KEY=…`, `;AccountKe` + `y=…`): the wrap
    cut a key's name, so an assignment on the next line continues it. A value (`KEY=abc`,
    `password: abc` + a break) is no name."""
    run = _NAME_TAIL.search(view, max(floor, newline - 64), newline)
    if run is None or _NAME.fullmatch(run.group()) is None:
        return False
    before = run.start() - 1
    if run.start() == floor:
        return True
    if view[before] not in _FIELD_START:
        return False
    return not (view[before] in " \t" and before > floor and view[before - 1] in ":=")


_NAME_TAIL = re.compile(r"[\w.-]{1,64}+\Z")
_FIELD_START = frozenset(" \t;&,({[\"'")


@dataclass(frozen=True, slots=True)
class Joined:
    """A joined view: its `text`, for each of its indices the index in the view it was joined from
    (`back`, plus one for the end), and the indices just after a removed break (`cuts`, ascending)."""

    text: str
    back: list[int]
    cuts: list[int]

    def pieces(self, start: int, end: int) -> list[tuple[int, int]]:
        """The span `start`–`end` (non-empty) of the joined view as spans of the view it was joined
        from, one per line."""
        back, cuts = self.back, self.cuts
        out: list[tuple[int, int]] = []
        begin = start
        for at in cuts[bisect.bisect_right(cuts, start) : bisect.bisect_left(cuts, end)]:
            out.append((back[begin], back[at - 1] + 1))
            begin = at
        out.append((back[begin], back[end - 1] + 1))
        return out


def joined_view(
    view: str, fixed_breaks: dict[int, int] | None = None, wrapped: Mapping[int, tuple[int, int]] | None = None
) -> Joined | None:
    """`view` with the line breaks inside a secret removed (see the module docstring); None when
    there is no such break. `fixed_breaks`: more line breaks of `view` to treat as fixed-column ones
    (`fixed_column_breaks`); `wrapped`: the breaks of hard-wrapped blocks
    (`secret_wrap_blocks.wrapped_breaks`), each removed with exactly the fold mark before it and
    the prefix after it given (lengths)."""
    newlines = [match.start() for match in _NEWLINE.finditer(view)]
    if not newlines:
        return None
    fixed = {**(fixed_breaks or {}), **fixed_column_breaks(view, newlines)}
    parts: list[str] = []
    index: list[int] = []
    cuts: list[int] = []
    pos = 0
    line_start = 0
    blocks = wrapped or {}
    for newline in newlines:
        block = blocks.get(newline)
        if block is not None:
            cut: tuple[int, int] | None = _block_cut(view, newline, *block)
        else:
            cut = _cut(view, pos, line_start, newline, fixed.get(newline))
        if cut is not None and cut[0] < pos:
            cut = None
        line_start = newline + 1
        if cut is not None:
            start, resume = cut
            parts.append(view[pos:start])
            index.extend(range(pos, start))
            cuts.append(len(index))
            pos = resume
    if not parts:
        return None
    parts.append(view[pos:])
    index.extend(range(pos, len(view) + 1))
    return Joined("".join(parts), index, cuts)


def _block_cut(view: str, newline: int, mark: int, prefix: int) -> tuple[int, int] | None:
    """A block's break is removed with its fold mark and prefix (none at the end of the text)."""
    resume = newline + 1 + prefix
    if resume >= len(view):
        return None
    return (newline - 1 if newline and view[newline - 1] == "\r" else newline) - mark, resume


def _cut(view: str, pos: int, line_start: int, newline: int, fixed: int | None) -> tuple[int, int] | None:
    """Where the joined view leaves `view` before the break at `newline` and resumes after it, or
    None when the break stays. `pos`: where the current piece of the joined view began; `fixed`:
    the gutter a fixed-column break drops (None: no such break)."""
    line_end = newline - 1 if newline and view[newline - 1] == "\r" else newline
    if line_end <= max(pos, line_start) or _TABLE_RULE.fullmatch(view, line_start, line_end):
        return None  # a table's rule (`|---|---|`) is a whole row
    if view[line_end - 1] == "|" and _whole_row(view, line_start, line_end):
        return None  # so is a row closed with all its cells (`| a | [REDACTED] |` over the next row)
    spaced = view[line_end - 1].isspace()
    at = newline + 1 + (fixed or 0)
    cell = cell_goes_on(view, line_start, line_end)
    if fixed is not None and not cell and _fixed_join(view, pos, line_end, at):
        return line_end, at
    # a shell's line continuation `\` or a fold mark `↩` before the break is no part of the run, nor
    # is psql's ` +` after a table cell
    end = line_end - 2 if cell else line_end - 1 if view[line_end - 1] in _FOLD_MARKS else line_end
    spaced = spaced and not cell
    resume = _CONTINUATION.match(view, newline + 1).end()  # type: ignore[union-attr]  # always matches
    if end <= max(pos, line_start) or resume >= len(view) or view[resume].isspace() or _marked(view, end, resume):
        return None
    if _opens_comment(view, line_start, newline + 1, resume):
        return None
    if not spaced and _row_goes_on(view, line_start, end, resume):
        return end, resume
    if (
        not spaced
        and not ends_in_file_name(view, max(pos, line_start), end)
        and _FIELD_WITH_VALUE.match(view, resume) is None
        and _quoted_break(view, line_start, end, resume)
    ):
        return end, resume
    after = _NEXT_RUN.match(view, resume)
    start = end
    floor = max(pos, line_start, end - 8)
    while start > floor and view[start - 1] in " \t":
        start -= 1
    if after is None or _assignment(after) or start <= pos or _PROMPT.match(view, resume) is not None:
        return None
    left = _TOKEN_RUN_TAIL.search(view, max(pos, start - 64), start)
    # a break after a space falls between words: only a random run continues over it (a name such
    # as `--account-key ` before a value on the next line does not)
    joins = _joinable if start == end else looks_random_run
    if left and not ends_in_file_name(view, left.start(), left.end()) and joins(left.group()):
        return (start, resume) if looks_random_run(after.group("next")) else None
    return None


# a comment's opening mark and the blank after it, in a gutter
_COMMENT_MARK = re.compile(r"(?:#|//)[ \t]")


def _opens_comment(view: str, line_start: int, next_start: int, resume: int) -> bool:
    """The next line's gutter opens a comment (`# `, `// `) and the cut line holds none
    (`DB_URL=mysql://app@db:3306/app` over `# DB_PASS comes from vault`): a note of its own under
    the line, not the rest of its value. A cut line in a comment itself (`#  | svc | <cut value>`,
    also after a JSON string's opening quote) may go on under its mark."""
    if _COMMENT_MARK.search(view, next_start, resume) is None:
        return False
    return _COMMENT_MARK.search(view, line_start, next_start) is None


# a field and its value (`authSource=admin`, a form's next field after `&`): the next body starts
# anew, it is no rest of a quoted value (base64 padding before the closing quote, `Q2x=="`, is one)
_FIELD_WITH_VALUE = re.compile(r"[A-Za-z_][\w.-]{0,63}+=[^\s\"'=]")


# a shell prompt (`ops@bastion01:~$ `, `root@db:/srv# `) starts a line of its own, never a value's rest
_PROMPT = re.compile(r"[\w.-]{1,32}+@[\w.-]{1,64}+:[^\s]{0,128}?[$#](?:[ \t]|$)", re.MULTILINE)


# a Markdown table's rule under its header (`|---|:--:|`, after any gutter)
_TABLE_RULE = re.compile(r"[ \t>│┃#*|]*+(?:[ \t]*+:?-{3,}+:?[ \t]*+\|)++(?:[ \t]*+:?-{3,}+:?)?[ \t]*+")
ROW_MAX = 512  # the longest table row read for its cells


def _row_goes_on(view: str, line_start: int, end: int, resume: int) -> bool:
    """The line from `line_start` (its body up to `end`, a fold mark left out) is a Markdown table
    row cut inside a cell: it holds at least two `|` but fewer than the row above it (a header, a
    rule or a whole row, ending in `|`), ends in no `|` or blank, and the next line from `resume`
    (its gutter dropped) ends the row with `|`, holding at most the `|` the cut line lacks (`| 门户
    | li | <value>` over `<rest> | 2027-03-01 |`: a value that reads as an assignment is the cell's
    rest too). Each count reads at most `ROW_MAX` characters of a line."""
    if line_start == 0 or end - line_start > ROW_MAX or view[end - 1] in "| \t":
        return False
    above = _row_above(view, line_start)
    wanted = above.count("|")
    cut = view.count("|", line_start, end)
    if not above.endswith("|") or cut < 2 or cut >= wanted:
        return False
    next_end = view.find("\n", resume, resume + ROW_MAX)
    if next_end == -1:
        if len(view) - resume > ROW_MAX:
            return False
        next_end = len(view)
    rest = view[resume:next_end].rstrip()
    return rest.endswith("|") and rest.count("|") <= wanted - cut


def _row_above(view: str, line_start: int) -> str:
    """The line above the one starting at `line_start` (at most its last `ROW_MAX` characters), its
    trailing blanks dropped."""
    above_start = view.rfind("\n", max(0, line_start - 1 - ROW_MAX), line_start - 1) + 1
    return view[above_start : line_start - 1].rstrip()


def _whole_row(view: str, line_start: int, line_end: int) -> bool:
    """The line from `line_start` to `line_end`, ending in `|`, is a table row with as many `|` as
    the row above it (ending in `|` too): every cell is there, so no value of it goes on below (a
    row closed early, `│ | LSN | 课件存储 | KEY |` under a longer header, may). Reads at most
    `ROW_MAX` characters of each line."""
    if line_start == 0 or line_end - line_start > ROW_MAX or _TABLE_ROW.match(view, line_start) is None:
        return False
    above = _row_above(view, line_start)
    return above.endswith("|") and view.count("|", line_start, line_end) >= above.count("|")


# a table row (`| a | b |`, `│ a │ b`) whose last cell psql marks with ` +` as going on on the next line
_TABLE_ROW = re.compile(r"[ \t]{0,16}+[|│]")


def cell_goes_on(view: str, line_start: int, line_end: int) -> bool:
    """The line from `line_start` to `line_end` is a table row ending in psql's ` +` after a token
    character: its last cell's value goes on on the next line (the mark and the space before it
    are no part of the value)."""
    return (
        line_end - 3 > line_start
        and view.startswith(" +", line_end - 2)
        and not view[line_end - 3].isspace()
        and _TABLE_ROW.match(view, line_start) is not None
    )


def _fixed_join(view: str, pos: int, line_end: int, at: int) -> bool:
    """A fixed-column break before `at` (the next body) joins unless the body is empty or starts an
    assignment that is no rest of a name the wrap cut."""
    if at >= len(view) or view[at].isspace() or _marked(view, line_end, at):
        return False
    return not _assignment(_NEXT_RUN.match(view, at)) or _cut_name(view, pos, line_end)


# the first run of the next line: no indentation, then ≥ 4 token characters with a letter or digit,
# up to a space or the end (a list marker `-` or an ellipsis `...` is no rest of a secret)
_LINE_HEAD = re.compile(r"(?=[^\s]{0,256}?[A-Za-z0-9])[A-Za-z0-9+/=_.!@#$%^&*~-]{4,256}+(?=[ \t\r\n]|\Z)")


def continued(view: str, start: int, end: int) -> list[tuple[int, int]]:
    """The span `start`–`end`, and when it runs to the end of a long line (≥ `WRAP_WIDTH_MIN`
    columns, a wrap width) the next line's first run unless that run starts an assignment."""
    brk = end + 1 if view.startswith("\r\n", end) else end
    # the line the secret ends on (rfind scans back from `end` only to that line's start)
    if brk < len(view) and view[brk] == "\n" and end - (view.rfind("\n", 0, end) + 1) >= WRAP_WIDTH_MIN:
        head = _LINE_HEAD.match(view, brk + 1)
        if head is not None and not _assignment(_NEXT_RUN.match(view, brk + 1)):
            return [(start, end), (head.start(), head.end())]
    return [(start, end)]
