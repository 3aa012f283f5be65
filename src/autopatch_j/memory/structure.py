"""Structure before words: a turn's text as prose and pasted material, recognised by shape.

People paste into coding-agent chats: tracebacks and stack frames, compiler, linter and test-runner
output, log lines, diffs, shell sessions, JSON/YAML/TOML, code. None of it is something the user
*says*, so none of it may become a memory, and neither may a prose line that only introduces or
reports a paste ("seeing this since the bump, log below:", "报错如下："). `parse(text)` splits a
text into lines and labels each one:

- `prose` — what the user writes;
- `pasted` — material, with the shape that gave it away (`fence`, `indented`, `diff`, `frame`, `location`,
  `log`, `shell`, `output`, `data`, `table`, `relayed`, `document`, `form`, `gloss`, `quote`, `quoted`, `code`);
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

The shape of each line on its own is `shapes.line_shape`'s. Shapes only — fences, indentation, hunk
headers, Markdown table rows, `file:line` locations,
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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from autopatch_j.memory import blocks
from autopatch_j.memory.blocks import gloss_length, inline_quotations, quoted_rows, relayed_rows, table_rows
from autopatch_j.memory.documents import document_rows
from autopatch_j.memory.forms import form_rows, headed_rows
from autopatch_j.memory.sentences import last_sentence_start
from autopatch_j.memory.shapes import (
    CJK,
    CJK_CHARS_PER_WORD,
    COLON_END,
    DIFF_BODY,
    FENCE,
    LATIN_WORD,
    QUOTATION_MARKS,
    REPORT_UNITS,
    dense,
    line_shape,
    pastable,
    symbol_share,
    units,
)

if TYPE_CHECKING:
    from autopatch_j.memory.batches import ExtractionRequest
    from autopatch_j.memory.contracts import SourceOut
    from autopatch_j.memory.records import Turn

Label = Literal["prose", "pasted", "report"]


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


@functools.lru_cache(maxsize=512)
def parse(text: str, answer: str | None = None) -> Structure:
    """Label every line of `text` (see the module docstring); with the assistant's `answer` before the
    turn ("" for none) `text` is a user's turn: a `>` block that is no slice of the answer is someone
    else's words (`blocks.quoted_rows`), and so is a pasted document (`documents.document_rows`)."""
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
        if FENCE.match(s):
            shape[i], strong[i] = "fence", True
            fenced = not fenced
            continue
        if fenced:
            shape[i], strong[i] = "fence", True
            continue
        shape[i], strong[i] = line_shape(s)
        if shape[i] and not strong[i] and len(s.strip()) >= 24 and symbol_share(s) > 0.1:
            strong[i] = True  # a weak shape dense with symbols stands alone: `Error: … (https://…) on …`
    blank = [not s.strip() for _, _, s in raw]
    # Blocks no single line gives away (`blocks.py`): tables, and messages relayed from a chat or a tracker.
    texts = [s for _, _, s in raw]
    for rows, name in ((table_rows(texts, strong), "table"), (relayed_rows(texts, strong), "relayed")):
        for i in rows:
            shape[i], strong[i] = name, True
    for i in quoted_rows(texts, strong, answer) if answer is not None else ():
        shape[i], strong[i] = "relayed", True
    # A document someone else pasted (`documents.py`), in a user's turn: introduced, under its heading, a speaker's.
    for i in document_rows(texts, strong) if answer is not None else ():
        shape[i], strong[i] = "document", True
    # Structured material (`forms.py`): marked or timed runs, a ticket's form, a pasted heading.
    for rows in (form_rows(texts, strong), headed_rows(texts, strong)):
        for i in rows:
            shape[i], strong[i] = "form", True
    # Someone else's words: a weak shape, material when introduced or next to material.
    for i, j in [*_quotations(raw, shape, blank), *_foreign_paragraphs(raw, blank)]:
        shape[i : j + 1] = [shape[k] or "quoted" for k in range(i, j + 1)]
    # Diff bodies and shell output: lines after a hunk header / prompt up to a blank line.
    for i in range(n):
        if shape[i] in ("diff", "shell") and strong[i]:
            j = i + 1
            while j < n and not blank[j] and shape[j] != "fence":
                if shape[i] == "diff" and not (DIFF_BODY.match(raw[j][2]) or raw[j][2].startswith(" ") or shape[j]):
                    break
                if shape[i] == "shell" and CJK.search(raw[j][2]) and not shape[j]:
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
            short = intro is not None and shape[i] == "quoted" and 0 < units(intro) <= REPORT_UNITS
            material[i] = short or (intro is not None and bool(COLON_END.search(intro)))
    # A Latin line right under strong material (no blank line), with some symbols, goes on with it
    # (the message line under `ERROR in ./src/x.js 43:22`), and so does a long line dense with them.
    for i in range(1, n):
        if (
            not material[i]
            and not blank[i]
            and material[i - 1]
            and strong[i - 1]
            and shape[i - 1] != "fence"
            and (pastable(raw[i][2]) or dense(raw[i][2]))
        ) and symbol_share(raw[i][2]) > 0.05:
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
        while j < n and not material[j] and not blank[j] and pastable(raw[j][2]):
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
        if j < n and labels[j] == "pasted" and (COLON_END.search(raw[i][2]) or units(raw[i][2]) <= REPORT_UNITS):
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
    closer = QUOTATION_MARKS.get(raw[first][2].strip()[:1])
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
    return len(CJK.findall(line)), len(LATIN_WORD.findall(line))


def _summed(counts: Sequence[tuple[int, int]]) -> tuple[int, int]:
    return sum(cjk for cjk, _ in counts), sum(latin for _, latin in counts)


def _script(counts: tuple[int, int]) -> str | None:
    """ "cjk" or "latin": the script most of the words counted (`_script_counts`) are written in (None:
    no words)."""
    cjk, latin = counts[0] / CJK_CHARS_PER_WORD, counts[1]
    if not cjk and not latin:
        return None
    return "cjk" if cjk > latin else "latin"


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
