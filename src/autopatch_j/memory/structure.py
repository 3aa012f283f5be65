"""Structure before words: a turn's text as prose and pasted material, recognised by shape.

People paste into coding-agent chats: tracebacks and stack frames, compiler, linter and test-runner
output, log lines, diffs, shell sessions, JSON/YAML/TOML, code. None of it is something the user
*says*, so none of it may become a memory, and neither may a prose line that only introduces or
reports a paste ("seeing this since the bump, log below:", "报错如下："). `parse(text)` splits a
text into lines and labels each one:

- `prose` — what the user writes;
- `pasted` — material, with the shape that gave it away (`fence`, `indented`, `diff`, `frame`, `location`,
  `log`, `shell`, `output`, `data`, `table`, `relayed`, `gloss`, `quote`, `quoted`, `code`);
- `report` — the last prose line before a paste: it introduces or reports it ("log below:",
  "vite build 报错了"), and is never read as a rule. A line ending in a colon introduces the paste
  with its last sentence only: the sentences before it are prose ("we deploy with helm only. the
  install fails:" keeps its rule).

Lists are layout too (`lists.layout(text)`): a run of item lines (`-`, `*`, `•`, `1.`, `2)`, `3、`,
`（4）`, `①`, `一、`, `（二）`) after a prose line ending in a colon ("ground rules for this repo:",
"以后这几条："), or at least two of them. Each item is a statement of its own (its words, never its
marker), the colon line only introduces them, and a paste nested under an item stays a paste. The
labels here do not know lists: an item line a weak shape makes material, or the last before a paste,
is not read.

Someone else's words are material too: a quotation standing on its own lines — from a line opening with
a quotation mark to one closing it with the matching mark — under a line that introduces it ("Zhou
asks:", "同事在群里说：", a short line) is what a colleague wrote; the user's answer after it is prose. So is a
paragraph of two lines or more set apart by a blank line under a line ending in a colon and written in
another script than the rest of the turn, or one line in a script the rest never uses (Japanese in English).

Some pastes only show as a block of lines (`blocks.py`): a table (rows split by pipes, tabs or aligned
spaces, holding numbers or aligned), a message relayed from a chat or a tracker (an author and a time, a
handle, an issue key over it), someone else's words the user introduces as theirs ("their docs say:",
"mtn email: \"…\"", "他们文档里写的：") or that open with a greeting or close with a signature, all
material; a sentence wholly in parentheses opening the first prose line after a paste glosses that
paste (a `gloss`: the line's leading characters are material, the rest of the line is prose), and so
does a quotation in another language opening a line after a short intro and a colon
(`blocks.inline_quotation`, the intro included).

Shapes only — fences, indentation, hunk headers, Markdown table rows, `file:line` locations,
timestamps and log levels, `key=value` fields, prompts, key/value syntax, brackets, symbol density, a
build tool's banner (capitals between two runs of one symbol) or progress counter (`[ 64%]`, `[3/41]`),
a pictograph or symbol before an output tag (`❌  error: …`) — never a list of messages.
A `key: value` line whose value reads as words ("naming: snake_case for every field, no camelCase
anywhere"), and a list item that reads as words however it ends, are prose. A line with a weak
shape counts as material only next to other material (a blank line ends a run), so a rule written
between two pastes stays prose. Every span is an exact slice of the RAW text, so quotes taken from
the prose are still exact substrings of it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from autopatch_j.memory import blocks
from autopatch_j.memory.blocks import LIST_ITEM, gloss_length, inline_quotations, quoted_rows, relayed_rows, table_rows
from autopatch_j.memory.sentences import last_sentence_start

if TYPE_CHECKING:
    from autopatch_j.memory.batches import ExtractionRequest
    from autopatch_j.memory.contracts import SourceOut
    from autopatch_j.memory.records import Turn

Label = Literal["prose", "pasted", "report"]

_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_INDENTED = re.compile(r"^(?: {4,}|\t)\S")
_DIFF = re.compile(
    r"^(?:@@ .* @@|diff --git |index [0-9a-f]{6,}\.\.[0-9a-f]{6,}|--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null))"
)
_DIFF_BODY = re.compile(r"^[+-](?![+-]{2})\S?")
_FRAME = re.compile(
    r"^\s*(?:File \".+\", line \d+|at [\w$.<>/\\:@ -]+\(.*\)|at [\w$./\\<>-]+:\d+|#\d+ \S|\d+: 0x[0-9a-f]+"
    r"|goroutine \d+ \[|\.\.\. \d+ more|Caused by: |Traceback \(|\^+\s*$|~*\^~*\s*$)"
)
_LOCATION = re.compile(r"(?:^|\s|\()[\w./\\@~-]+\.[A-Za-z]{1,8}:\d+(?::\d+)?\)?")
_EXCEPTION = re.compile(
    r"^\s*(?:[\w$]+\.)+[\w$]+(?::|$)|^\s*[A-Z][a-z]+(?:[A-Z][a-z0-9]*)+(?:\[\w+\])?:\s|^\s*(?:[A-Z]\w* )?[A-Z]\w*:\s"
)
_DOTTED_EXCEPTION = re.compile(r"^\s*(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*:\s")
_BRACKET_TAG = re.compile(r"^\s*\[[\w .:/@-]{2,40}\]\s*\S")
_PATH_START = re.compile(r"^\s*(?:\.{0,2}/)?[\w@.-]+(?:/[\w@.-]+)+\S*(?:\s|$)")
COLON_END = re.compile(r"[:：]\s*$")
_NUMBERED_OUTPUT = re.compile(r"^\s*\d+(?:[.:]\d+)?\s{2,}\S")
_TIMESTAMP = re.compile(
    r"^\s*\[?(?:\d{4}[-/]\d{2}[-/]\d{2}[T ]?\d{0,2}:?\d{0,2}|(?:\d{2}[-/]\d{2} )?\d{2}:\d{2}:\d{2}|\d{1,2}/\w{3}/\d{4}"
    r"|\w{3} \w{3} +\d+ \d{2}:\d{2}|\w{3} \d{1,2} \d{2}:\d{2}:\d{2})"
)
_LEVEL = re.compile(
    r"(?:^|[\s\[(|])(?:DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|ERR|FATAL|CRITICAL|TRACE|PANIC)(?:[\s\]):|]|$)"
)
# Process and thread ids, then a one-letter level (Android logcat's `threadtime` lines).
_PID_LEVEL = re.compile(r"\s\d+\s+\d+\s+[VDIWEFA]\s")
_LEVEL_LOWER = re.compile(r"\[(?:debug|info|notice|warn|warning|error|crit|alert|emerg)\]")
_OUTPUT_TAG = re.compile(
    r"^\s*(?:(?:error|warning|note|help)(?:\[[\w-]+\])?:|E\s{2,}|FAIL(?:ED)?\b|PASS(?:ED)?\b|ok\s+[\w./-]+\s+(?:\d+\.\d+s|\(cached\))|"
    r"[✓✔✗✘✖×⚠●▶►]\s|-->\s|\|\s*\^|\d+\s*\|\s|npm (?:ERR!|WARN)|make(?:\[\d+\])?: \*\*\*|={3,}|-{3,}|\*{3,}|#{2,}\s*\[)"
)
# A banner: capitals between two runs of one symbol (`** ARCHIVE FAILED **`, `== LINT ABORTED ==`).
_BANNER = re.compile(r"^\s*([*=#~+-])\1+\s+[A-Z][A-Z0-9 _/().:-]*[A-Z0-9)]\s+\1\1+\s*$")
# A progress counter opening a line (`[ 64%] Generating …`, `[37/212] Compiling …`).
_PROGRESS = re.compile(r"^\s*\[\s*(?:\d{1,3}%|\d+/\d+)\]\s")
_SHELL = re.compile(r"^\s*(?:\$|%|>>>|PS [A-Z]:\\[^>]*>|[\w.-]+@[\w.-]+:[^$#]*[$#]|\(\w[\w-]*\)\s*\$|➜ )\s")
_QUOTE = re.compile(r"^\s*>(?:\s|$)")
#: Quotation marks, each opener with its closer.
_QUOTATION_MARKS = {'"': '"', "“": "”", "「": "」", "『": "』", "«": "»"}
_DATA_OPEN = re.compile(r"^\s*(?:[\[{]\s*$|[\[{]\s*[\"'\w]|[}\]],?\s*$|<\??[\w:-]+[\s>/])")
_KEY_VALUE = re.compile(r"""^\s*(?:-\s+)?["']?[\w.-]+["']?\s*(?::\s*(?:\S.*)?|=\s*\S.*)$""")
_TOML_TABLE = re.compile(r"^\s*\[\[?[\w.\"-]+\]\]?\s*$")
_CODE_END = re.compile(r"(?:[;{}(\[]|\)\s*\{?|=>|->|:=)\s*$")
_CODE_START = re.compile(r"^\s*(?:[@#]\w+|//|/\*|\*/|<!--|--\s|[\w.]+\(.*\)\s*;?\s*$)")
_CONSTRAINT = re.compile(r"[\w.-]+(?:[<>]=?|[=!~]=)\d|(?:^|\s)[<>]=?\d[\w.]*,")
_COLUMN_GAP = re.compile(r"\S\s{2,}(?=\S)")
# A Markdown table's row: cells between pipes, the line opening and closing with one (`| a | b |`).
_PIPE_ROW = re.compile(r"^\s*\|(?:[^|\n]*\|){2,}\s*$")
# A `key=value` field of a logfmt line or a record dump (`order=88 amount=100.10 refunded=[…]`).
_FIELD = re.compile(r"(?:^|\s)[A-Za-z_][\w.-]*=(?!=)\S")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
CJK_CHARS_PER_WORD = 1.5  # Chinese characters to one Latin word, when weighing which script a text is in
_WORD = re.compile(r"[A-Za-z]{2,}")
# A word as prose writes it: letters, lowercase after the first, trailing punctuation allowed.
_PLAIN_WORD = re.compile(r"^\(?[A-Za-z][a-z]*[,.;:!?)]*$")
#: Prose words a value or list item needs, at least this many and this share of its tokens, to read as words.
PROSE_WORDS = 4
PROSE_SHARE = 0.6

#: A prose line of at most this many words right before a paste only introduces or reports it.
REPORT_UNITS = 8


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the text: `start`/`end` offsets in the RAW text (newline excluded)."""

    start: int
    end: int
    text: str
    label: Label
    shape: str  # "" for prose and reports; the shape that made it material otherwise
    #: A report's leading characters that are prose (the sentences before the one introducing the paste).
    lead: int = 0
    #: A prose line's leading characters that are material: a gloss of the paste above it.
    gloss: int = 0

    @property
    def material_start(self) -> int:
        """Where the part of the line that is no prose starts (its end for a prose line)."""
        return self.end if self.label == "prose" else self.start + self.lead


@dataclass(frozen=True, slots=True)
class Structure:
    text: str
    lines: tuple[Line, ...]

    def material(self) -> list[tuple[int, int]]:
        """The spans of pasted material, of report lines and of glosses (nothing in them is a statement)."""
        return [
            (ln.start, ln.start + ln.gloss) if ln.label == "prose" else (ln.material_start, ln.end)
            for ln in self.lines
            if (ln.label != "prose" or ln.gloss) and ln.end > ln.start
        ]

    def pasted(self) -> list[Line]:
        return [ln for ln in self.lines if ln.label == "pasted"]

    def reports(self) -> list[Line]:
        return [ln for ln in self.lines if ln.label == "report"]

    def prose(self, *, keep_reports: bool = False) -> str:
        """The prose lines, each run of them an exact slice of the text, runs joined by a blank line
        (so no sentence is ever read across a paste); report lines too with `keep_reports` (an
        assistant's "Add this to the config:" before its code is the proposal, not a report)."""
        if not self.has_material:
            return self.text
        keep = ("prose", "report") if keep_reports else ("prose",)
        runs: list[str] = []
        run_start: int | None = None
        run_end = 0
        for ln in self.lines:
            if ln.gloss:  # a gloss ends the run; the rest of its line starts the next one
                if run_start is not None:
                    runs.append(self.text[run_start:run_end])
                run_start = ln.start + ln.gloss if ln.text[ln.gloss :].strip() else None
                run_end = ln.end
                continue
            if ln.label in keep and ln.text.strip():
                if run_start is None:
                    run_start = ln.start
                run_end = ln.end
            else:
                if ln.lead:  # a report's prose lead ends the run
                    run_start = ln.start if run_start is None else run_start
                    run_end = ln.start + len(ln.text[: ln.lead].rstrip())
                if run_start is not None:
                    runs.append(self.text[run_start:run_end])
                run_start = None
        if run_start is not None:
            runs.append(self.text[run_start:run_end])
        return "\n\n".join(runs)

    def covers(self, quote: str) -> bool:
        """True when an occurrence of `quote` in the text touches pasted material or a report line,
        and no occurrence lies wholly in prose."""
        spans = self.material()
        if not spans or not quote.strip():
            return False
        at = self.text.find(quote)
        touched = False
        while at >= 0:
            end = at + len(quote)
            if any(s < end and at < e for s, e in spans):
                touched = True
            else:
                return False
            at = self.text.find(quote, at + 1)
        return touched

    @property
    def has_material(self) -> bool:
        return any(ln.label != "prose" or ln.gloss for ln in self.lines)


def _symbol_share(s: str) -> float:
    body = s.strip()
    if not body:
        return 0.0
    symbols = sum(1 for ch in body if not ch.isalnum() and not ch.isspace() and not _CJK.match(ch))
    return symbols / len(body)


def _shape(text: str) -> tuple[str, bool]:
    """The shape of one line outside a fence and whether it is strong on its own ("" when prose)."""
    if not text.strip():
        return "", False
    if _INDENTED.match(text) and not re.match(r"^\s*(?:[-*•]|\d+[.)])\s", text):
        return "indented", True
    if _DIFF.match(text):
        return "diff", True
    if _FRAME.match(text):
        return "frame", True
    if _SHELL.match(text):
        return "shell", True
    if _PIPE_ROW.match(text):
        return "table", True  # a Markdown table's row, in any script
    if _BANNER.match(text) or _PROGRESS.match(text):
        return "output", True
    if _QUOTE.match(text):
        return "quote", False  # "> the proposal — yes, that one" is an assent; only next to material is it pasted
    cjk = bool(_CJK.search(text))
    if _TIMESTAMP.match(text) and (
        _LEVEL.search(text) or _LEVEL_LOWER.search(text) or _PID_LEVEL.search(text) or _symbol_share(text) > 0.08
    ):
        return "log", True
    if (_LEVEL.search(text[:40]) or _LEVEL_LOWER.search(text)) and not cjk and _symbol_share(text) > 0.05:
        return "log", False
    if _OUTPUT_TAG.match(text) or _OUTPUT_TAG.match(_after_mark(text)):
        return "output", not cjk
    fields = len(_FIELD.findall(text)) if not cjk else 0
    if fields >= 2:  # logfmt or a record's fields: three or more stand alone
        return "log", fields >= 3
    if _LOCATION.search(text) and (_symbol_share(text) > 0.1 or text.lstrip().startswith(("/", "./", "src", "at "))):
        return "location", not cjk
    if _DOTTED_EXCEPTION.match(text):
        return "frame", True
    if (_BRACKET_TAG.match(text) or _PATH_START.match(text)) and not cjk:
        return "log", False
    if _EXCEPTION.match(text) and not cjk:
        return "frame", False
    if _NUMBERED_OUTPUT.match(text) and not cjk:
        return "output", False
    if not cjk and (_table_row(text) or _CONSTRAINT.search(text)):
        return "output", False  # columns of a command's table; version constraints of a resolver's output
    if _TOML_TABLE.match(text) or _DATA_OPEN.match(text):
        return "data", False
    if _KEY_VALUE.match(text) and not cjk and _config_key(text):
        return "data", False
    if (
        not cjk
        and (_CODE_END.search(text) or _CODE_START.match(text))
        and _symbol_share(text) > 0.08
        and not (LIST_ITEM.match(text) and reads_as_words(text[item_marker(text) :]))
    ):
        return "code", False
    if not cjk and len(text.strip()) >= 12 and _symbol_share(text) > 0.3:
        return "code", False
    return "", False


def _after_mark(text: str) -> str:
    """The rest of a line opening with a pictograph or another symbol and a space (`❌  error: …`),
    "" for any other line: a status mark of a tool's output when an output tag follows it."""
    body = text.lstrip()
    mark = 0
    while mark < len(body) and unicodedata.category(body[mark]) in ("So", "Sk", "Mn", "Cf"):
        mark += 1
    return body[mark:].lstrip() if mark and body[mark : mark + 1].isspace() else ""


def _table_row(line: str) -> bool:
    """A row of columns (`kubectl get`, `docker ps`): at least three cells set apart by runs of two or
    more spaces, every cell but the last at most three words."""
    if len(_COLUMN_GAP.findall(line.strip())) < 2:
        return False
    cells = re.split(r"\s{2,}", line.strip())
    return all(len(cell.split()) <= 3 for cell in cells[:-1])


def _config_key(line: str) -> bool:
    """`key: value` / `key = value` the way configs write it: a lowercase or quoted key, or a value
    that is one token ("- Cause: stale cache" is a bullet of prose, "image: postgres:15" is YAML)."""
    key, _, value = line.strip().removeprefix("- ").partition("=" if "=" in line.split(":")[0] else ":")
    key, value = key.strip(), value.strip()
    if not key or " " in key or reads_as_words(value):
        return False
    return key[0] in "\"'" or key[0].islower() or not value or " " not in value


def reads_as_words(text: str) -> bool:
    """Most of `text`'s tokens are words as prose writes them, and at least `PROSE_WORDS` of them."""
    tokens = text.split()
    plain = sum(1 for token in tokens if _PLAIN_WORD.match(token))
    return plain >= PROSE_WORDS and plain >= PROSE_SHARE * len(tokens)


def _units(line: str) -> float:
    """The length of a line in words: Latin words and numbers, and two CJK characters per word."""
    return len(re.findall(r"[A-Za-z0-9]+", line)) + len(_CJK.findall(line)) / 2


def _pastable(line: str) -> bool:
    return not _CJK.search(line) and len(_WORD.findall(line)) <= 12 and _symbol_share(line) > 0.02


@functools.lru_cache(maxsize=512)
def parse(text: str, answer: str | None = None) -> Structure:
    """Label every line of `text` (see the module docstring); with the assistant's `answer` before the
    turn ("" for none), a `>` block that is no slice of it is someone else's words (`blocks.quoted_rows`)."""
    raw: list[tuple[int, int, str]] = []
    at = 0
    for piece in text.split("\n"):
        raw.append((at, at + len(piece), piece))
        at += len(piece) + 1
    n = len(raw)
    shape = [""] * n
    strong = [False] * n
    fenced = False
    for i, (_, _, s) in enumerate(raw):
        if _FENCE.match(s):
            shape[i], strong[i] = "fence", True
            fenced = not fenced
            continue
        if fenced:
            shape[i], strong[i] = "fence", True
            continue
        shape[i], strong[i] = _shape(s)
        if shape[i] and not strong[i] and len(s.strip()) >= 24 and _symbol_share(s) > 0.1:
            strong[i] = True  # a weak shape dense with symbols stands alone: `Error: … (https://…) on …`
    blank = [not s.strip() for _, _, s in raw]
    # Blocks no single line gives away (`blocks.py`): tables, and messages relayed from a chat or a tracker.
    texts = [s for _, _, s in raw]
    for rows, name in ((table_rows(texts, strong), "table"), (relayed_rows(texts, strong), "relayed")):
        for i in rows:
            shape[i], strong[i] = name, True
    for i in quoted_rows(texts, strong, answer) if answer is not None else ():
        shape[i], strong[i] = "relayed", True
    # Someone else's words: a weak shape, material when introduced or next to material.
    for i, j in [*_quotations(raw, shape, blank), *_foreign_paragraphs(raw, blank)]:
        shape[i : j + 1] = [shape[k] or "quoted" for k in range(i, j + 1)]
    # Diff bodies and shell output: lines after a hunk header / prompt up to a blank line.
    for i in range(n):
        if shape[i] in ("diff", "shell") and strong[i]:
            j = i + 1
            while j < n and not blank[j] and shape[j] != "fence":
                if shape[i] == "diff" and not (_DIFF_BODY.match(raw[j][2]) or raw[j][2].startswith(" ") or shape[j]):
                    break
                if shape[i] == "shell" and _CJK.search(raw[j][2]) and not shape[j]:
                    break
                if not shape[j]:
                    shape[j] = shape[i]
                strong[j] = True
                j += 1
    # A weak shape is material inside a run (no blank line) holding strong material or another weak line.
    material = [bool(shape[i]) and strong[i] for i in range(n)]
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if material[i] or not shape[i]:
                continue
            near = [j for j in (i - 1, i + 1) if 0 <= j < n and not blank[j]]
            if any(material[j] or (shape[j] and j != i) for j in near):
                material[i] = True
                changed = True
    # A weak shape under a line ending in a colon (blank lines between), a quotation under a short one: a paste.
    for i in range(n):
        if shape[i] and not material[i]:
            j = i - 1
            while j >= 0 and blank[j]:
                j -= 1
            intro = raw[j][2] if j >= 0 and not material[j] else None
            short = intro is not None and shape[i] == "quoted" and 0 < _units(intro) <= REPORT_UNITS
            material[i] = short or (intro is not None and bool(COLON_END.search(intro)))
    # A Latin line right under strong material (no blank line), with some symbols, goes on with it
    # (the message line under `ERROR in ./src/x.js 43:22`).
    for i in range(1, n):
        if (
            not material[i]
            and not blank[i]
            and material[i - 1]
            and strong[i - 1]
            and shape[i - 1] != "fence"
            and _pastable(raw[i][2])
        ) and _symbol_share(raw[i][2]) > 0.05:
            material[i] = True
            strong[i] = True
            shape[i] = shape[i] or shape[i - 1]
    # Prose lines between two material lines of one run belong to the paste when they have no CJK and
    # few words each (the message line of a trace, wrapped log lines).
    i = 0
    while i < n:
        if material[i] or blank[i] or i == 0 or not material[i - 1]:
            i += 1
            continue
        j = i
        while j < n and not material[j] and not blank[j] and _pastable(raw[j][2]):
            j += 1
        if j < n and material[j] and j > i:
            for k in range(i, j):
                material[k] = True
                shape[k] = shape[k] or shape[i - 1] or "output"
        i = max(j, i + 1)
    labels: list[Label] = ["pasted" if material[i] else "prose" for i in range(n)]
    # Reports: the last prose line before a paste (blank lines allowed between) introduces or reports
    # it when it ends in a colon ("log below:", "日志：") or is short ("vite build 报错了", "next one");
    # a longer line is read like any prose ("帮我 review 下这个 hook 只说问题 以后 review 都这样").
    for i in range(n):
        if labels[i] != "prose" or blank[i]:
            continue
        j = i + 1
        while j < n and blank[j]:
            j += 1
        if j < n and labels[j] == "pasted" and (COLON_END.search(raw[i][2]) or _units(raw[i][2]) <= REPORT_UNITS):
            labels[i] = "report"
    glosses = _glosses(raw, labels, blank)
    # a colleague's words quoted inline, in another language: a gloss too
    glosses |= inline_quotations([t for _, _, t in raw], text, lambda i: labels[i] == "prose" and i not in glosses)
    for i, length in glosses.items():
        if not raw[i][2][length:].strip():  # the whole line glosses the paste
            labels[i], shape[i] = "pasted", "gloss"
    lines = tuple(
        Line(
            start=s,
            end=e,
            text=t,
            label=labels[i],
            shape=shape[i] if labels[i] == "pasted" else "",
            # the sentences before the one introducing the paste are prose
            lead=last_sentence_start(t) if labels[i] == "report" and COLON_END.search(t) else 0,
            gloss=glosses.get(i, 0) if labels[i] == "prose" else 0,
        )
        for i, (s, e, t) in enumerate(raw)
    )
    return Structure(text=text, lines=lines)


def _glosses(raw: Sequence[tuple[int, int, str]], labels: Sequence[Label], blank: Sequence[bool]) -> dict[int, int]:
    """The prose lines opening with a gloss of the paste right above them (blank lines between), with
    the gloss's length (`blocks.gloss_length`)."""
    found: dict[int, int] = {}
    for i in range(1, len(raw)):
        if labels[i] != "prose" or blank[i]:
            continue
        j = i - 1
        while j > 0 and blank[j]:
            j -= 1
        length = gloss_length(raw[i][2]) if labels[j] == "pasted" else 0
        if length:
            found[i] = length
    return found


def _quotations(
    raw: Sequence[tuple[int, int, str]], shape: Sequence[str], blank: Sequence[bool]
) -> list[tuple[int, int]]:
    """The runs of prose lines (first, last) that are one quotation: the first opens with a quotation
    mark, the last closes with its match, no blank line between."""
    found: list[tuple[int, int]] = []
    i = 0
    while i < len(raw):
        end = _quotation_end(raw, shape, blank, i)
        if end is None:
            i += 1
        else:
            found.append((i, end))
            i = end + 1
    return found


def _quotation_end(
    raw: Sequence[tuple[int, int, str]], shape: Sequence[str], blank: Sequence[bool], first: int
) -> int | None:
    closer = _QUOTATION_MARKS.get(raw[first][2].strip()[:1])
    if closer is None:
        return None
    for j in range(first, len(raw)):
        if blank[j] or shape[j]:
            return None
        line = raw[j][2].strip()
        if line.endswith(closer) and (j > first or len(line) > 1):
            return j
    return None


def _foreign_paragraphs(raw: Sequence[tuple[int, int, str]], blank: Sequence[bool]) -> list[tuple[int, int]]:
    """The paragraphs (first, last line) set apart by a blank line under a line ending in a colon, in
    another script than the rest of the turn: two lines or more, or one in a script of its own."""
    paragraphs: list[tuple[int, int]] = []
    for i in range(len(raw)):
        if blank[i]:
            continue
        if paragraphs and paragraphs[-1][1] == i - 1:
            paragraphs[-1] = (paragraphs[-1][0], i)
        else:
            paragraphs.append((i, i))
    counts = [_script_counts(line) for _, _, line in raw]
    total = _summed(counts)
    found: list[tuple[int, int]] = []
    own: set[int] | None = None
    for (_, before_last), (first, last) in itertools.pairwise(paragraphs):
        if not COLON_END.search(raw[before_last][2]):
            continue
        inside = _summed(counts[first : last + 1])
        inside_script, outside_script = _script(inside), _script((total[0] - inside[0], total[1] - inside[1]))
        if last == first:  # one line: only in a script of its own, the turn's lines weighed once
            own = blocks.own_script_lines([t for *_, t in raw]) if own is None else own
            found += [(first, first)] if first in own else []
        elif inside_script is not None and outside_script is not None and inside_script != outside_script:
            found.append((first, last))
    return found


def _script_counts(line: str) -> tuple[int, int]:
    """The CJK characters and the Latin words of `line`."""
    return len(_CJK.findall(line)), len(_LATIN_WORD.findall(line))


def _summed(counts: Sequence[tuple[int, int]]) -> tuple[int, int]:
    return sum(cjk for cjk, _ in counts), sum(latin for _, latin in counts)


def _script(counts: tuple[int, int]) -> str | None:
    """ "cjk" or "latin": the script most of the words counted (`_script_counts`) are written in (None:
    no words)."""
    cjk, latin = counts[0] / CJK_CHARS_PER_WORD, counts[1]
    if not cjk and not latin:
        return None
    return "cjk" if cjk > latin else "latin"


def item_marker(text: str) -> int:
    """The length of the list marker opening `text` ("- ", "2. ", "（3）"), 0 without one."""
    match = LIST_ITEM.match(text)
    return match.end() if match else 0


def prose_request(request: ExtractionRequest) -> ExtractionRequest:
    """The request with every turn's texts cut down to their prose (`structure.parse`): pasted
    material and the user's lines introducing it are gone, the rest keeps its exact characters."""

    def cut(turn: Turn) -> Turn:
        before = request.predecessor(turn)
        user = parse(turn.user_text, (before.assistant_text or "") if before else "").prose()
        assistant = parse(turn.assistant_text).prose(keep_reports=True) if turn.assistant_text else turn.assistant_text
        if user == turn.user_text and assistant == turn.assistant_text:
            return turn
        return dataclasses.replace(turn, user_text=user, assistant_text=assistant)

    return dataclasses.replace(
        request,
        turns=tuple(cut(t) for t in request.turns),
        prior_turn=cut(request.prior_turn) if request.prior_turn else None,
    )


def quotes_raw(sources: Sequence[SourceOut], request: ExtractionRequest) -> bool:
    """Every quote is an exact substring of its RAW turn text (never read across a paste)."""
    for src in sources:
        turn = request.turn(src.turn_id)
        text = (turn.user_text if src.role == "user" else turn.assistant_text or "") if turn else ""
        if src.quote not in text:
            return False
    return True
