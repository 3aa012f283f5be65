"""The options an assistant answer lists, and a short reply read as a selection over them.

An answer often offers its choice as options side by side: a bulleted or numbered list ("- **api**:
a pool of 20 …", "1. 本地保留 7 天 …"), lettered lines ("A) sign every tag …"), labelled options
standing as a heading ("**Option 2 — log/slog**", "方案二：", not "Option 1 has the biggest
effect"). `options_in` finds them by layout alone: the list items of `lists.layout`, lines opening
with a letter and a bracket or colon, a label ("option", "方案" + a number or letter and a
separator) — each with its ordinal (its number or letter, else its place in its list). An option
is a structure: its head line(s), and the sub-points nested under it ("   - pro: …", "- 缺点：…"
under "1. …" or "**Option 1**") — an item indented deeper than the head, or a bulleted item right
under a numbered, lettered or labelled head. Sub-points belong to their option (`Option.holds`)
but are never options of their own, and never what a selection decides (`Option.in_head`). A list
whose heads open with severity marks ("1. 🔴 …", "[P1] …") is a review's findings (`forms.findings`):
no options.

A short reply selects over them (`read_selection`): every option ("yes both", "两个都要"), some by
ordinal ("2", "the first one", "第二个", "B 吧"), all but those it negates ("a but not b", "除了 2
都要"), the one option holding every word it names ("Caffeine 吧"; words two options share name
neither), or none ("neither", "两个都不要"). The words of "every", "neither" and "except" are data
(`assent_words.json`), and so are the informal assent words read as "ok" (`as_assent`: "ja", "k",
"yup", "好嘞"); the ordinals are read by `ordinals.reply_pointers`. What the selection picks is a
feature of the assent model's candidates (`assent_choice.choice_features`); over options the answer
offers (`offered_by`), the assent reader stores the likeliest sentence of each option picked, and over
options it lists without offering them, a reply that only points (`only_points`: "1 and 2.", not "do
2 now") is read the same way when the assent model's floor is reached (`assent.AssentReader.chosen`).
The same layout in a user's own turn, under a line naming its items as options (`weighed_in`: "two
options I can think of:"), lists alternatives the user weighs: none is decided by being listed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.forms import findings
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.lists import layout
from autopatch_j.memory.ordinals import ordinal, reply_pointers
from autopatch_j.memory.replacement import stemmed
from autopatch_j.memory.sentences import CJK_RUN, fold

# A line opening with a letter option: "A) …", "b. …", "(c) …", "**A** — …", "A：…".
# a full-width colon or parenthesis takes no space after it ("A：每 5000 步…"), an ASCII one does ("A: …")
_LETTERED = re.compile(r"^[ \t]*(?:\*\*)?[(（]?([A-Fa-f])(?:\*\*)?(?:[).:][ \t]+|[）：][ \t]*)(?=\S)", re.MULTILINE)
_LABELLED = re.compile(
    r"^[ \t#*-]*(?:\*\*)?(?i:option|plan|approach|choice|方案|选项|做法)\s*([1-9A-Fa-f一二三四五六])(?![A-Za-z0-9])"
    r"(?=\s*(?:\*\*)?\s*(?:[:：—–.)）-]|$))",
    re.MULTILINE,
)
_NUMBER = re.compile(r"^\s*(\d{1,2})[.)、）]")
_BULLET = re.compile(r"^\s*[-*•·]\s")
_CLAUSE = re.compile(r"[,，;；、]|\bbut\b|\band\b|但是?|不过")
#: A reply that selects is short: at most this many content words besides its assent and what it
#: points with, and at most one of them not in the answer.
MAX_SELECTION_WORDS = 4
# The words that point at an ordinal: "第二个", "the first one", "option b", "2", "1、3".
_POINTING = re.compile(
    r"第\s*[一二三四五六1-9]\s*[个条种步项]?|\b(?:the\s+)?(?:first|second|third|fourth|fifth|last)(?:\s+one)?\b"
    r"|\b(?:option|plan)\s*[a-f1-9]\b|方案\s*[一二三四五六a-f1-9]|选项\s*[一二三四五六a-f1-9]|(?<![\w.])[1-9a-f](?![\w%]|\.\w)"
)


# What joins the ordinals of a reply that only points: "1 and 2", "1 和 3", "a + c", "2、3".
_JOINERS = re.compile(r"\b(?:and|or|plus|also)\b|[和与及跟]|[\W_]+")


@dataclass(frozen=True, slots=True)
class Option:
    """One option of an answer: where it lies (offsets into the answer) and its ordinal (1-based)."""

    start: int
    end: int
    ordinal: int
    lettered: bool
    head_end: int  # where its head ends and its sub-points begin (`end` when it has none)

    def holds(self, at: int) -> bool:
        """Offset `at` of the answer lies in this option (its head or a sub-point under it)."""
        return self.start <= at < self.end

    def in_head(self, at: int) -> bool:
        """Offset `at` lies in the option's head line(s), not in a sub-point nested under it."""
        return self.start <= at < self.head_end


@dataclass(frozen=True, slots=True)
class Selection:
    """What a reply selects over an answer's options (ordinals); `every`: all of them, `neither`: none."""

    chosen: frozenset[int]
    excluded: frozenset[int]
    every: bool
    neither: bool
    named: frozenset[int]  # the options holding every content word the reply names

    def picks(self, option: Option) -> bool:
        if self.neither or option.ordinal in self.excluded:
            return False
        if option.ordinal in self.chosen or option.ordinal in self.named:
            return True
        # "both", "除了 2 都要", "all but the last": every option the reply does not name or negate
        return (self.every or bool(self.excluded)) and not self.chosen and not self.named

    @property
    def selects(self) -> bool:
        return not self.neither and bool(self.chosen or self.every or self.excluded or self.named)


@dataclass(frozen=True, slots=True)
class _Entry:
    """A line that may open an option: a list item, a lettered or a labelled line."""

    start: int
    end: int
    ordinal: int  # 0: its place among its siblings
    lettered: bool
    indent: int
    bulleted: bool  # a "-"/"*"/"•" item (the marker sub-points take under an ordered head)
    head_only: bool  # a lettered or labelled line: always a head, never a sub-point


@lru_cache(maxsize=256)
def options_in(answer: str) -> tuple[Option, ...]:
    """The options `answer` lists, in order (see the module docstring); () when it lists fewer than two."""
    found: dict[int, _Entry] = {}
    lines = layout(answer)
    for start, end in lines.items:
        text = answer[start:end]
        number = _NUMBER.match(text)
        ordinal_of = int(number.group(1)) if number else 0
        found[start] = _Entry(start, end, ordinal_of, False, _indent(text), bool(_BULLET.match(text)), False)
    for pattern, lettered in ((_LETTERED, True), (_LABELLED, False)):
        for match in pattern.finditer(answer):
            end = answer.find("\n", match.end())
            end = len(answer) if end < 0 else end
            held = next((e for e in found.values() if e.start <= match.start() < e.end), None)
            if held is None or not lettered:
                line = answer[match.start() : end]
                # a labelled item keeps its own span (its continuation lines) and takes the label's ordinal
                span_end = held.end if held is not None and held.start == match.start() else end
                found[match.start()] = _Entry(
                    match.start(), span_end, ordinal(match.group(1)), lettered, _indent(line), False, True
                )
    heads: list[tuple[_Entry, int]] = []  # each head line and where its option ends (its sub-points)
    for entry in sorted(found.values(), key=lambda e: e.start):
        if heads and heads[-1][1] > entry.start:
            continue  # a line inside the option before it (a labelled line within an item)
        adjacent = bool(heads) and not answer[heads[-1][1] : entry.start].strip()
        if adjacent and not entry.head_only and _nests(heads[-1][0], entry):
            heads[-1] = (heads[-1][0], entry.end)  # a sub-point: its option goes on to its end
            continue
        heads.append((entry, entry.end))
    options: list[Option] = []
    run = 0
    for n, (head, end) in enumerate(heads):
        run = run + 1 if n and not answer[heads[n - 1][1] : head.start].strip() else 1
        options.append(Option(head.start, end, head.ordinal or run, head.lettered, head.end))
    if findings([answer[o.start : o.head_end] for o in options]):
        return ()  # a review's findings, each with its severity: what to fix, never a choice to keep
    return tuple(options) if len(options) >= 2 else ()


def _indent(line: str) -> int:
    """The width of the space opening `line` (a tab counts four)."""
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip(" "))


def _nests(head: _Entry, entry: _Entry) -> bool:
    """`entry` is a sub-point of the option `head` opens: indented deeper, or a bulleted item right
    under a numbered, lettered or labelled head."""
    return entry.indent > head.indent or (entry.bulleted and not head.bulleted)


def intro(answer: str, options: tuple[Option, ...]) -> str:
    """The last non-blank line before the first of `options` ("I suggest:", "几种做法：", "Plan:")."""
    if not options:
        return ""
    lines = [line for line in answer[: options[0].start].split("\n") if line.strip()]
    return lines[-1] if lines else ""


def labels_options(line: str) -> bool:
    """`line` introduces what follows as options by naming them so ("Options:", "Two options:",
    "Options on AKS:", "有两个选项："): its last sentence ends with a colon and holds a label word
    (`assent_words.json` "label") — not "Plan:", "Steps:", "Review:"."""
    text = line.strip().strip("*#").strip()
    if not text.endswith((":", "：")):
        return False
    last = re.split(r"(?<=[.!?。！？])\s*", text)[-1]
    return bool(_selection_words()["label"].search(fold(last)))


def weighed_in(text: str) -> tuple[Option, ...]:
    """The options a user's own turn `text` lists under a line naming them as options
    (`labels_options`: "two options I can think of:", "有两个方案在考虑："): alternatives the user
    weighs, none of them decided by being listed; () when its list is not introduced so."""
    options = options_in(text)
    return options if options and labels_options(intro(text, options)) else ()


def offered_by(answer: str, signal: Callable[[str], bool]) -> str:
    """How `answer` offers its options as a choice, "" when it does not (a plan's steps, a review's
    findings, a closing "Want me to change all three?"): "intro" or "option" — that line, or one of
    the options, carries a proposal signal (`signal`, the lexicon's) — else "label" — the introducing
    line names them as options."""
    options = options_in(answer)
    if not options:
        return ""
    if signal(intro(answer, options)):
        return "intro"
    if any(signal(answer[o.start : o.end]) for o in options):
        return "option"
    return "label" if labels_options(intro(answer, options)) else ""


@lru_cache(maxsize=1)
def _selection_words() -> dict[str, re.Pattern[str]]:
    data = json.loads(resources.files("autopatch_j.memory").joinpath("assent_words.json").read_text("utf-8"))
    out: dict[str, re.Pattern[str]] = {}
    for key in ("every", "neither", "except", "label", "assent"):
        if set(data.get(key, {})) - {"en", "zh"}:
            raise MemoryEngineError(f"assent_words.json: {key} holds an unknown language.")
        words = [fold(w) for ws in data[key].values() for w in ws]
        parts = [re.escape(w) if CJK_RUN.search(w) else rf"\b{re.escape(w)}\b" for w in words]
        out[key] = re.compile("|".join(sorted(parts, key=len, reverse=True)))
    return out


def as_assent(text: str) -> str:
    """`text` folded, with the informal assent words of `assent_words.json` ("ja", "k", "yup", "好嘞") read
    as "ok", the word the lexicon's confirmations hold ("ja, tests included" → "ok, tests included")."""
    return _selection_words()["assent"].sub("ok", fold(text))


def only_points(reply: str, lexicon: Lexicon) -> bool:
    """`reply` says nothing but what it points at and its assent ("1 and 2.", "1 和 3", "2", "b, d 可以"):
    no verb or word of its own ("do 2 now", "用 2", "fix the second one")."""
    rest = lexicon.confirmation_fillers.blank(lexicon.confirmations.blank(as_assent(reply)))
    return not _JOINERS.sub(" ", _POINTING.sub(" ", rest)).strip()


def read_selection(reply: str, answer: str, lexicon: Lexicon) -> Selection | None:
    """What the short `reply` selects over the options of `answer`; None when the answer lists none,
    the reply is no selection (a question, too long, nothing that points), or fails a hard gate."""
    options = options_in(answer)
    if not options or lexicon.is_question(reply) or not lexicon.passes_gates(reply):
        return None
    words = _selection_words()
    folded = fold(reply)
    if words["neither"].search(folded):  # "neither", "两个都不要": declines them all, whatever else it says
        return Selection(frozenset(), frozenset(), every=False, neither=True, named=frozenset())
    lettered = any(o.lettered for o in options)
    chosen: set[int] = set()
    excluded: set[int] = set()
    for clause in _CLAUSE.split(folded):
        pointed = reply_pointers(clause.upper() if lettered and len(clause.split()) <= 3 else clause)
        if words["except"].search(clause) and not words["every"].search(clause):
            excluded |= pointed
        else:
            chosen |= pointed
    ordinals = {o.ordinal for o in options}
    chosen &= ordinals
    excluded &= ordinals
    # what the reply says besides assenting and pointing: few words, all but one of them the answer's
    rest = lexicon.confirmation_fillers.blank(lexicon.confirmations.blank(folded))
    for key in ("every", "except", "neither", "assent"):
        rest = words[key].sub(" ", rest)
    content = stemmed(lexicon.anchor_tokens(_POINTING.sub(" ", rest)))
    if len(content) > MAX_SELECTION_WORDS or len(content - stemmed(lexicon.anchor_tokens(answer))) > 1:
        return None
    named = frozenset(
        o.ordinal for o in options if content and content <= stemmed(lexicon.anchor_tokens(answer[o.start : o.end]))
    )
    if len(named) > 1:
        named = frozenset()  # words two options share name neither of them
    selection = Selection(
        chosen=frozenset(chosen),
        excluded=frozenset(excluded),
        every=bool(words["every"].search(folded)),
        neither=False,
        named=named,
    )
    return selection if selection.selects else None
