"""Secret redaction applied before anything derived from a task is stored (C-24).

`redact(text)` is a pure function: call it *before* opening a write transaction (it never touches
the database). It runs in time linear in the length of the text: every rule in `secret_rules` (token
families and `key=value` forms), `secret_shapes` (prose, label grammar, argv lists, tables) and
`secret_layouts` (webhook paths, `user/password@host`, secrets printed in groups) is a
regular expression whose work per start position is bounded (possessive or bounded quantifiers,
lookbehinds that admit one start per run), checked by `bench/redaction_bench.py`.

Escape sequences cannot hide a secret: the rules run on a *decoded view* of the text in which
`\\n`, `\\t`, `\\"`, `\\uXXXX`, `\\xXX`, URL-encoded ASCII (`%3D`, `%22` …) and URL-encoded UTF-8
(`%E5%AF%86%E7%A0%81` is 密码) and HTML entities (`&quot;`, `&#61;`) stand for the
characters they encode, decoded up to `DECODE_PASSES` times (JSON or URL encoding applied twice), and
every match is mapped back to the original text, so `"…\\nghp_…"` inside JSON is caught like `ghp_…`
on a line of its own and `API_KEY%3Dvalue` like `API_KEY=value`. A secret wrapped across two lines
is caught whole: the rules run a second time on a *joined view* in which a line break (with the
indentation or `>`/`#`/`//` markers of the next line) between two runs of token characters that both
look random (a digit, or upper and lower case; the run before may instead hold a `-` or `_`, a cut
token prefix, unless a space precedes the break) is removed, unless the next line starts an
assignment (`NAME=`, `NAME:`, with a name that reads as one); in text hard-wrapped at a fixed column
(a line and a neighbour of the same length ≥ `FIXED_WIDTH_MIN`, the next line no longer) every
break between two non-space characters is removed, with the next line's quote marker when the line
before starts with the same one.
The fixed-column breaks are also found in the text before decoding (a JSON string cut at a
column); a break after a name that starts a field joins even an assignment on the next line (the
wrap cut the key's name); a secret that runs to the end of a line of ≥ `WRAP_WIDTH_MIN` columns
takes the next line's first run. Text holding a `+` and a URL escape is also read as a form body
(`form_view`: `+` is a space, `&` ends a field).
Distinctive token prefixes (`ghp_`, `AKIA`, `sk-proj-`, `xoxb-` …) need no word boundary before
them, so an adjacent word character does not hide one either. All matches are merged and each
merged span becomes `[REDACTED]`; the result is idempotent.

A rule runs on a view only when the lowercased view holds one of the literals it names
(`Rule.needs`); the others cannot match there.

Beside the rules, a learned judge (`secret_judge.SecretJudge`, the shipped weights unless another
is given) reads the same views: `findings` lists what the rules find — tagged `keyword` for the
rules in `JUDGED_RULES`, which find a value by the key word or label before it — and every judge
candidate (`token`); `secret_spans` keeps every structural rule's span, a key-word rule's unless the
judge overrules it, and the candidates it accepts. Its work per candidate is bounded, so redaction
stays linear; a span read exactly as one before it (the same window of the view: a repeated line)
takes that one's score from a memo kept for the text.
"""

from __future__ import annotations

import bisect
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NewType

from autopatch_j.cloud.secret_judge import ScoreMemo, SecretJudge, candidates, shipped_judge
from autopatch_j.cloud.secret_layouts import LAYOUT_RULES
from autopatch_j.cloud.secret_rules import RULES as TOKEN_RULES
from autopatch_j.cloud.secret_rules import Rule
from autopatch_j.cloud.secret_shapes import SHAPE_RULES
from autopatch_j.cloud.secret_values import REDACTED

RULES: tuple[Rule, ...] = TOKEN_RULES + SHAPE_RULES + LAYOUT_RULES

__all__ = ["REDACTED", "Finding", "RedactedText", "contains_secret", "findings", "redact", "redacted", "secret_spans"]

RedactedText = NewType("RedactedText", str)
"""Text that went through `redact` (so a function that stores it inside a transaction needs no
redaction of its own)."""

_ESCAPE = re.compile(
    r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrtbfv0\"'\\/])|%(?:[2-7][0-9A-Fa-f]|0[9AaDd])"
    # a URL-encoded UTF-8 character (`%E5%AF%86` is 密): two, three or four bytes
    r"|%[C-Dc-d][0-9A-Fa-f]%[89ABab][0-9A-Fa-f]|%[Ee][0-9A-Fa-f](?:%[89ABab][0-9A-Fa-f]){2}"
    r"|%[Ff][0-4](?:%[89ABab][0-9A-Fa-f]){3}"
    # an HTML entity (`&quot;`, `&#39;`, `&#x3D;`)
    r"|&(?:quot|amp|lt|gt|apos|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"
)
_URL_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_FORM_ESCAPE = re.compile(r"[+&]")
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": " ", "f": " ", "v": " ", "0": " "}
DECODE_PASSES = 3


def _decode(escape: str) -> str:
    if escape in "+&":  # a form body: `+` is a space, `&` ends a field
        return " " if escape == "+" else "\n"
    if escape[0] == "&":
        return html.unescape(escape) or " "
    if escape[0] == "%":
        if len(escape) == 3:
            return chr(int(escape[1:], 16))
        return bytes.fromhex(escape.replace("%", "")).decode("utf-8", errors="replace")
    kind = escape[1]
    if kind in "ux":
        return chr(int(escape[2:], 16))
    return _SIMPLE.get(kind, kind)


def decoded_view(text: str) -> tuple[str, list[int] | None]:
    """The text with escape sequences decoded (repeatedly), and for each view index the original
    index (plus one trailing entry for the end); None when nothing was decoded (the view is the text)."""
    view, index = text, None
    for _ in range(DECODE_PASSES):
        again, step = _decode_once(view)
        if step is None:
            break
        view, index = again, step if index is None else [index[i] for i in step]
    return view, index


def form_view(text: str) -> tuple[str, list[int]] | None:
    """The decoded view of a form-encoded body (`a=b+c%26d`), in which a `+` also stands for a space
    and a `&` ends a field (decoded before the `%XX` escapes, as forms are); None when the text holds
    no `+` or no URL escape. Run beside `decoded_view`, which keeps `+` (a base64 value holds it)."""
    if "+" not in text or _URL_ESCAPE.search(text) is None:
        return None
    spaced, step = _decode_once(text, _FORM_ESCAPE)
    if step is None:
        return None
    view, index = decoded_view(spaced)
    return view, step if index is None else [step[i] for i in index]


def _decode_once(text: str, escapes: re.Pattern[str] = _ESCAPE) -> tuple[str, list[int] | None]:
    if "\\" not in text and "%" not in text and "&" not in text and escapes is _ESCAPE:
        return text, None
    parts: list[str] = []
    index: list[int] = []
    pos = 0
    for match in escapes.finditer(text):
        start = match.start()
        parts.append(text[pos:start])
        index.extend(range(pos, start))
        decoded = _decode(match.group())
        parts.append(decoded)
        index.extend([start] * len(decoded))
        pos = match.end()
    if not index and pos == 0:
        return text, None
    parts.append(text[pos:])
    index.extend(range(pos, len(text)))
    index.append(len(text))
    return "".join(parts), index


_TOKEN_RUN_TAIL = re.compile(r"[^\s\"'`]*+\Z")
_CONTINUATION = re.compile(
    r"[ \t>#*/]{0,8}+(?P<next>[A-Za-z0-9_+/.!@#$%^&*~-]{1,256}+(?:={1,2}+(?!\S))?)(?P<assign>[ \t]{0,8}+(?::(?!//)|=))?"
)
_NAME = re.compile(r"[A-Za-z_][\w.-]*+")


def _assignment(after: re.Match[str]) -> bool:
    """The next line starts `NAME=` or `NAME:` (a new setting, not the rest of a token), and the
    name reads like one (`SnVpePT=…`, `fC3M1wl4=…`, `moH5dzC:` are the rest of a random value)."""
    name = after.group("next")
    return bool(after.group("assign")) and _NAME.fullmatch(name) is not None and not _random_name(name)


_CASE_SWITCH = re.compile(r"[a-z][A-Z]")
_WORDY = re.compile(r"[A-Z][a-z]{2,}|[a-z]{3,}|[A-Z]{3,}(?![a-z])")


def _random_name(name: str) -> bool:
    """A name with a switch from lower to upper case and a digit or a second switch, whose letters
    are mostly not in word-like segments (`apiKeyId`, `imagePullPolicy`, `DB2_HOST` are names)."""
    switches = len(_CASE_SWITCH.findall(name))
    if len(name) < 4 or not switches or (switches < 2 and not any(c.isdigit() for c in name)):
        return False
    wordy = sum(len(seg) for seg in _WORDY.findall(name) if any(c in "aeiouAEIOU" for c in seg))
    return wordy * 2 < len(name)


# a digit, an inner capital, or a symbol next to a letter or digit (`^Du%t@`, the rest of a password)
_RANDOM_RUN = re.compile(r"[0-9]|[a-z][A-Z]|[A-Z][a-z]*[A-Z]|[!@#$%^&*~][A-Za-z0-9]|[A-Za-z0-9][!@#$%^&*~]")


def _looks_random_run(run: str) -> bool:
    return len(run) >= 4 and _RANDOM_RUN.search(run) is not None


def _joinable(run: str) -> bool:
    """A run before a line break that may continue on the next line: random-looking, or token-like
    (it holds a `-` or `_`: `sk-proj-`, `sk_live_I`)."""
    return _looks_random_run(run) or (len(run) >= 3 and ("-" in run or "_" in run))


FIXED_WIDTH_MIN = 16
_NEWLINE = re.compile("\n")


def _fixed_column_breaks(view: str, newlines: list[int]) -> set[int]:
    """Line breaks of text hard-wrapped at a fixed column: the line before the break is at least
    `FIXED_WIDTH_MIN` long, a neighbouring line has the same length, the next line is no longer,
    and the break falls between two non-space characters."""
    ends = [*newlines, len(view)]
    lengths = []
    begin = 0
    for end in ends:
        lengths.append(end - begin - (1 if end > begin and view[end - 1] == "\r" else 0))
        begin = end + 1
    breaks = set()
    for i, newline in enumerate(newlines):
        width = lengths[i]
        same = (i > 0 and lengths[i - 1] == width) or (i + 2 < len(lengths) and lengths[i + 1] == width)
        if width < FIXED_WIDTH_MIN or not same or lengths[i + 1] > width or newline + 1 >= len(view):
            continue
        if not view[newline - 1].isspace() and not view[newline + 1].isspace():
            breaks.add(newline)
    return breaks


def joined_view(view: str, fixed_breaks: frozenset[int] = frozenset()) -> tuple[str, list[int]] | None:
    """`view` with line wraps inside a token removed (see the module docstring), and for each index
    the `view` index (plus one for the end); None when there is no such wrap. `fixed_breaks`: more
    line breaks of `view` to treat as fixed-column ones (those of the text before it was decoded).
    Linear: each line break looks at most 8 characters back, 64 for the run before it and 256 ahead."""
    parts: list[str] = []
    index: list[int] = []
    pos = 0
    newlines = [match.start() for match in _NEWLINE.finditer(view)]
    fixed = _fixed_column_breaks(view, newlines) if len(newlines) >= 2 else set()
    fixed |= fixed_breaks
    newline = view.find("\n")
    while newline != -1:
        if newline in fixed:
            after = _CONTINUATION.match(view, newline + 1)
            if after is None or not _assignment(after) or _cut_name(view, pos, newline):
                parts.append(view[pos:newline])
                index.extend(range(pos, newline))
                pos = newline + 1 + _same_marker(view, newline)
                newline = view.find("\n", newline + 1)
                continue
        start = newline - 1 if newline and view[newline - 1] == "\r" else newline
        start = start - 1 if start and view[start - 1] == "\\" else start
        floor = max(0, start - 8)
        end_of_run = start
        while start > floor and view[start - 1] in " \t":
            start -= 1
        after = _CONTINUATION.match(view, newline + 1)
        if after is not None and not _assignment(after) and after.group("next") and start > pos:
            left = _TOKEN_RUN_TAIL.search(view, max(pos, start - 64), start)
            # a break after a space falls between words: only a random run continues over it (a
            # name such as `--account-key ` before a value on the next line does not)
            joins = _joinable if start == end_of_run else _looks_random_run
            if left and joins(left.group()) and _looks_random_run(after.group("next")):
                parts.append(view[pos:start])
                index.extend(range(pos, start))
                pos = after.start("next")
        newline = view.find("\n", newline + 1)
    if not parts:
        return None
    parts.append(view[pos:])
    index.extend(range(pos, len(view) + 1))
    return "".join(parts), index


_MARKER = re.compile(r"[ \t]{0,4}+(?:>|#|//)[ \t]?")


def _same_marker(view: str, newline: int) -> int:
    """The length of the quote or comment marker (`> `, `# `, `// `) the next line starts with when
    the line before the break starts with the same one (a quoted block cut at a fixed column)."""
    line = view.rfind("\n", 0, newline) + 1
    own = _MARKER.match(view, line, newline)
    if own is None or not view.startswith(own.group(), newline + 1):
        return 0
    return len(own.group())


_NAME_TAIL = re.compile(r"[\w.-]{1,64}+\Z")
_FIELD_START = frozenset(" \t;&,({[\"'")


def _cut_name(view: str, floor: int, newline: int) -> bool:
    """Before a fixed-column break, a name that starts a field (after a space, `;`, `&`, `,` or an
    opening bracket or quote: `export ORDERS_API_SE` + `CRET_KEY=…`, `;AccountKe` + `y=…`): the wrap
    cut a key's name, so an assignment on the next line continues it. A value (`KEY=abc` + a break)
    is no name."""
    run = _NAME_TAIL.search(view, max(floor, newline - 64), newline)
    if run is None or _NAME.fullmatch(run.group()) is None:
        return False
    return run.start() == floor or view[run.start() - 1] in _FIELD_START


WRAP_WIDTH_MIN = 60
# the first run of the next line: no indentation, then ≥ 4 token characters with a letter or digit,
# up to a space or the end (a list marker `-` or an ellipsis `...` is no rest of a secret)
_LINE_HEAD = re.compile(r"(?=[^\s]{0,256}?[A-Za-z0-9])[A-Za-z0-9+/=_.!@#$%^&*~-]{4,256}+(?=[ \t\r\n]|\Z)")


def _continued(view: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A secret that runs to the end of a long line (≥ `WRAP_WIDTH_MIN` columns, a wrap width)
    continues on the next line's first run unless that run starts an assignment."""
    out = []
    for start, end in spans:
        brk = end + 1 if view.startswith("\r\n", end) else end
        # the line the secret ends on (rfind scans back from `end` only to that line's start)
        if brk < len(view) and view[brk] == "\n" and end - (view.rfind("\n", 0, end) + 1) >= WRAP_WIDTH_MIN:
            head = _LINE_HEAD.match(view, brk + 1)
            after = _CONTINUATION.match(view, brk + 1)
            if head is not None and not (after is not None and _assignment(after)):
                end = head.end()
        out.append((start, end))
    return out


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


@dataclass(frozen=True)
class _Prefilter:
    """Which rules a text needs run: those without literals, and those of each literal it holds."""

    always: tuple[Rule, ...]
    by_literal: dict[str, tuple[Rule, ...]]

    @classmethod
    def of(cls, rules: tuple[Rule, ...]) -> _Prefilter:
        by_literal: dict[str, list[Rule]] = {}
        for rule in rules:
            for literal in rule.needs:
                by_literal.setdefault(literal, []).append(rule)
        return cls(tuple(r for r in rules if not r.needs), {k: tuple(v) for k, v in by_literal.items()})

    def rules_for(self, view: str) -> list[Rule]:
        """The text is lowercased once and each literal looked up once (a substring search)."""
        folded = view.lower()
        chosen = {id(rule): rule for literal, rules in self.by_literal.items() if literal in folded for rule in rules}
        return [*self.always, *chosen.values()]


_PREFILTER = _Prefilter.of(RULES)


# rules that find a value by the key word or label before it; the judge may overrule them
JUDGED_RULES = frozenset(
    {
        "key_value", "secret_context", "chinese_label", "cli_password_flag", "prose_secret",
        "chinese_label_verb", "argv_password_flag", "command_password_flag", "table_row",
        "printf_argument", "spaced_key_value", "chinese_label_glued", "word_space_value",
        "credential_pair", "use_as_password", "set_password_to", "setter_literal", "yaml_block_value",
        "xml_element", "config_key_value_attributes", "call_name_then_value", "log_in_with", "login_call",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """A span of the text (`start`, `end`) that may hold a secret: found by a rule (`kind` `rule`),
    by a key-word rule the judge may overrule (`keyword`), or a judge candidate (`token`). `view`,
    `at` and `context_start` say where it was read (the decoded or joined view), for the judge."""

    start: int
    end: int
    kind: str
    view: str
    at: tuple[int, int]
    context_start: int | None = None

    def moved(self, start: int, end: int) -> Finding:
        return Finding(start, end, self.kind, self.view, self.at, self.context_start)


def _found(view: str, rules: tuple[Rule, ...]) -> list[tuple[int, int, str]]:
    """Spans of every rule whose `needs` the text meets (see `Rule`), with their kind."""
    prefilter = _PREFILTER if rules is RULES else _Prefilter.of(rules)
    return [
        (start, end, "keyword" if rule.name in JUDGED_RULES else "rule")
        for rule in prefilter.rules_for(view)
        for start, end in rule.find(view)
    ]


def _in_view(view: str, rules: tuple[Rule, ...], judge: bool) -> list[Finding]:
    """What the rules find in `view` (each continued over a wrap) and, with `judge`, its candidates."""
    found = _found(view, rules)
    spans = _continued(view, [(start, end) for start, end, _kind in found])
    out = [Finding(s, e, kind, view, (s, e)) for (s, e), (_s, _e, kind) in zip(spans, found, strict=True)]
    if judge:
        out += [Finding(c.start, c.end, "token", view, (c.start, c.end), c.context_start) for c in candidates(view)]
    return out


def _fixed_breaks_in_view(text: str, view: str, index: list[int] | None) -> frozenset[int]:
    """The fixed-column breaks of `text` (wrapped before it was decoded: a JSON string with `\\n`
    escapes cut at 40 columns) as positions in its decoded `view`."""
    if index is None or text.count("\n") < 2:
        return frozenset()
    fixed = _fixed_column_breaks(text, [match.start() for match in _NEWLINE.finditer(text)])
    if not fixed:
        return frozenset()
    return frozenset(m.start() for m in _NEWLINE.finditer(view) if index[m.start()] in fixed)


def _view_findings(
    view: str, rules: tuple[Rule, ...], judge: bool, fixed_breaks: frozenset[int] = frozenset()
) -> list[Finding]:
    """Findings in `view` (rules continued over a wrap, and judge candidates) and in its joined view."""
    found = _in_view(view, rules, judge)
    joined = joined_view(view, fixed_breaks)
    if joined is not None:
        wrapped, back = joined
        # the end maps after the span's last character, so a line break after the secret stays
        found += [
            f.moved(back[f.start], back[f.end - 1] + 1) for f in _in_view(wrapped, rules, judge) if f.end > f.start
        ]
    return found


def findings(text: str, rules: tuple[Rule, ...] = RULES, *, judge: bool = True) -> list[Finding]:
    """Every span of `text` a rule finds, and (with `judge`) every judge candidate, in `text`'s
    positions; `SecretJudge.accepts` decides which of them are secrets."""
    view, index = decoded_view(text)
    found = _view_findings(view, rules, judge, _fixed_breaks_in_view(text, view, index))
    if index is not None:
        found = [f.moved(index[f.start], index[f.end]) for f in found]
    form = form_view(text)
    if form is not None:
        spaced, back = form
        found += [f.moved(back[f.start], back[f.end]) for f in _view_findings(spaced, rules, judge)]
    return found


def secret_spans(text: str, rules: tuple[Rule, ...] = RULES, judge: SecretJudge | None = None) -> list[tuple[int, int]]:
    """Merged (start, end) spans of `text` that hold secrets: what the rules find, less what the
    judge (the shipped one unless given) overrules, plus the candidates it accepts."""
    chosen = shipped_judge() if judge is None else judge
    found = findings(text, rules)
    memo: ScoreMemo = {}  # a span read the same way as one before it scores the same
    kept = _merge((f.start, f.end) for f in found if f.kind != "token" and chosen.accepts(f, memo))
    starts = [start for start, _end in kept]
    # a candidate inside a span already kept changes nothing: it is not scored
    tokens = [
        (f.start, f.end)
        for f in found
        if f.kind == "token" and not _inside(kept, starts, f) and chosen.accepts(f, memo)
    ]
    return _merge(kept + tokens) if tokens else kept


def _inside(spans: list[tuple[int, int]], starts: list[int], found: Finding) -> bool:
    """Whether `found` lies within one of the merged, sorted `spans` (`starts`: their starts)."""
    at = bisect.bisect_right(starts, found.start) - 1
    return at >= 0 and spans[at][1] >= found.end


def redact(text: str) -> str:
    """Replace every secret the rules know with `[REDACTED]`; idempotent, linear time, no I/O."""
    spans = secret_spans(text)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(REDACTED)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redacted(text: str) -> RedactedText:
    """`redact(text)` typed as already redacted: call it before the write transaction opens."""
    return RedactedText(redact(text))


def contains_secret(text: str) -> bool:
    """True when any rule finds a secret in the text."""
    return bool(secret_spans(text))
