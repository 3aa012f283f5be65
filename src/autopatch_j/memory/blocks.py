"""Material no single line gives away, recognised by the shape of a block of lines.

`structure.parse` labels a text line by line; some pastes only show as a block:

- **tables** (`table_rows`): a run of two lines or more split into cells by one column separator —
  pipes (`a | 1.2 | 3`, with or without the opening and closing pipe), tabs, or runs of two or more
  spaces — holding numbers (a query profile, `nvidia-smi`, a memory-usage table, training steps) or
  with the separators at the same columns in every row (`psql` output); a single line of three
  pipe-separated cells or more, each with a number, is one too (`Total 612 | Passed 571 | Failed 29`).
  A rule line (`---|---`, `+-----+`) inside the run belongs to it. A line with inline code or with
  cells of prose is no row.
- **relayed messages** (`relayed_rows`): what someone else wrote, copied from a chat or a tracker —
  a line opening with a chat timestamp and a name (`[10:42] anna: …`), a name or handle with a
  timestamp standing alone over the message (`Anna Kowal  10:42 AM`, `王工 2024/05/03 10:42`,
  `anna — Today at 10:42`), a handle and a colon (`@anna: …`), a name tag in brackets addressing
  someone (`【运维-小李】@所有人 …`), or an issue key and a colon (`OPS-481: …`, an error code
  too: `ORA-00942: …`); the message goes on to the next blank line. What the user writes after it
  is prose: an endorsement in the user's own words is read like any statement.
- **someone else's words without a marker** (also `relayed_rows`), told by who the user says wrote
  them, by a greeting or by a signature (the words are data, `relay_words.json`): a short line ending
  in a colon that names a source other than the user — a document, an e-mail, a notice, someone's
  saying ("the gateway's docs say:", "mtn email:", "他们文档里写的：") — introduces a block: the run of
  list items under it (an item's indented continuation with it; the first line that is neither ends
  it) or, when no item opens it, the paragraph under it; such an intro followed on its own line by a
  quotation closing the line (`mtn email: "fix deployed …"`) is a message reported whole. A line
  opening with a greeting — after a bracketed name tag (`【某某科技】您好，…`), or opening a paragraph
  that is not the turn's first (`Hi team,`; after the name it addresses, with a comma: `Maria 你好，`)
  — starts a message running to the next blank line, and a
  paragraph closing with a sign-off and a name on their own lines (`Thanks,` / `Dana`) is one. An
  intro in the first person singular ("I wrote:", "我说的：") is the user's own and introduces nothing.
- **quoted words of someone else** (`quoted_rows`): a block of `>` lines (an e-mail reply, a message
  pasted with a quote marker: `> 陈宇: …`, `> Your organization has used 82% …`) whose words are not a
  close slice of the assistant's answer before the turn: at least `SLICE_SHARE` of its words (Latin
  words and numbers, CJK characters, case folded) must occur in that answer, or, for a one-line block
  answered on the same line after a dash ("> use pnpm workspaces — yes, that one"), the part before
  the dash. A quoted slice of the answer stays prose: the user answers it (an assent by quoting, an
  inline reply under each quoted point). With no answer before the turn every quoted block is someone
  else's. Only `structure.parse` given the answer reads this block.
- **inline quotations in another language** (`inline_quotation`): a line opening with a short intro
  that is not in the first person and ends in a colon, then a quotation closing on the same line
  (`Rafa in the PR: "…". ok, 3s then`, `PM 在评论里：“…”。行`), the quotation written in another
  language than the rest of the turn — another script, or Latin words mostly unknown to the general
  word table (`text/frequencies.txt`) where the rest's are mostly known: a colleague's message the
  user relays, its intro included; the user's answer after it on the line is prose.
- **glosses** (`gloss_length`): a sentence wholly in parentheses opening the first prose line after a
  paste ("(roughly: nobody may …)", "（刷了几百次）") comments on that paste; it restates what someone
  else wrote and states nothing of the user's own.

Shapes only, never a list of names or of messages.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.text.frequencies import zipf

# The marker opening a list item: a bullet, a number ("1.", "2)", "3、", "（4）"), a Chinese numeral ("一、",
# "（二）") or a circled number.
_CN_NUMERAL = "[一二三四五六七八九十]{1,3}"
LIST_ITEM = re.compile(
    rf"^\s*(?:[-*•·]\s+|\d{{1,2}}[.)、）](?![\d.])\s*|[（(]\d{{1,2}}[)）]\s*|[\u2460-\u2473]\s*"
    rf"|{_CN_NUMERAL}[、．]\s*|[（(]{_CN_NUMERAL}[)）]\s*)(?=\S)"
)
_DIGIT = re.compile(r"\d")
_RULE = re.compile(r"^\s*[|+:=\-\s]{3,}$")
_GAP = re.compile(r"\s{2,}")
_TAB = re.compile(r"\t+")
_PLAIN_WORD = re.compile(r"^[A-Za-z][a-z]+[,.;:!?]*$")
#: A cell with more prose words than this is prose, not a cell.
CELL_WORDS = 6
_TIME = (
    r"(?:(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|Today|Yesterday|今天|昨天)\s*(?:at\s+)?)?"
    r"\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp]\.?[Mm]\.?)?"
)
_NAME = r"@?[^\W\d_][\w.'-]*(?: [^\W\d_][\w.'-]*){0,2}"
_CHAT_LINE = re.compile(rf"^\s*\[{_TIME}\]\s*{_NAME}\s*[:：]\s*\S")
_CHAT_HEADER = re.compile(rf"^\s*{_NAME}\s*(?:[—–-]\s*|,\s*)?\[?{_TIME}\]?\s*[:：]?\s*$")
_HANDLE_LINE = re.compile(r"^\s*@[\w.-]+\s*[:：]\s*\S")
_ISSUE_LINE = re.compile(r"^\s*\[?[A-Z]{2,}[A-Z0-9]*-\d+\]?\s*[:：]\s*\S")
# A name tag in brackets addressing someone (`【运维-小李】@所有人 …`, `[ops-bot] @here …`).
# a bracketed name tag (`【运维-小李】`, `[ops bot]`) and the Han characters, each written once
_NAME_TAG = r"(?:【[^】\n]{1,30}】|\[[^\]\n]{1,30}\])"
#: The Han characters, as a regular expression's character-class range.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# A name addressed before a greeting ("Maria 你好，", "王工您好，"): a capitalised word or two, or a few Han.
_ADDRESSEE = rf"(?-i:[A-Z][\w'-]*(?: [A-Z][\w'-]*)?|[{HAN}]{{1,4}})"
_TAGGED_MENTION = re.compile(rf"^\s*{_NAME_TAG}\s*@\S")
_HEADERS = (_CHAT_LINE, _CHAT_HEADER, _HANDLE_LINE, _ISSUE_LINE, _TAGGED_MENTION)
_QUOTED = re.compile(r"^\s*>(?:\s|$)")
#: A quote marker opening a line and the one space after it (`> `), as e-mail and chat replies write it.
QUOTE_MARK = re.compile(r"^\s*>\s?")
_QUOTED_WORD = re.compile(f"[A-Za-z0-9_]+|[{HAN}]")
# Where a reply on the quoted line itself starts: a dash set apart by spaces.
_REPLY_DASH = re.compile(r"\s[—–-]{1,2}\s")
#: The share of a quoted block's words the answer must hold for the block to be a slice of it. On the
#: realistic training parts' 338 quoted blocks the blocks quoting the answer hold 0.8 or more, the
#: pasted ones below 0.45 (`docs/quality.md`, "quoted words of other people").
SLICE_SHARE = 0.6
_GLOSS = re.compile(r"^\s*(?:\([^()\n]+\)|（[^（）\n]+）)\s*[.。!！]?(?=\s|$)")

RELAY_WORDS_FILE = Path(__file__).with_name("relay_words.json")
_RELAY_FIELDS = ("greetings", "sign_offs", "messages", "sayings", "documents", "owners")
_RELAY_LANGUAGES = ("en", "zh")
#: An intro naming someone else's text is short: its last sentence holds at most this many words.
INTRO_UNITS = 10
_CJK_CHAR = re.compile(f"[{HAN}]")
_FIRST_PERSON = re.compile(r"(?:^|[^A-Za-z])(?:i|my|i've|i'm)(?![A-Za-z'])|我(?!们)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?。！？]\s+|[。！？]")
_QUOTE_PAIRS = {'"': '"', "“": "”", "「": "」", "『": "』"}
_NAME_LINE = re.compile(r"^\s*[^\W\d_][\w.'-]*(?: [^\W\d_][\w.'-]*){0,2}\s*$")


@dataclass(frozen=True, slots=True)
class RelayWords:
    """The words that tell someone else's message (`relay_words.json`), one pattern per field."""

    greeting: re.Pattern[str]  # opening a line, after an optional name tag
    sign_off: re.Pattern[str]  # the whole line, a comma after it
    source: re.Pattern[str]  # a message or a saying anywhere in an intro names someone else's text
    document: re.Pattern[str]  # a document names someone else's text only with an owner
    owner: re.Pattern[str]


def word_alternatives(words: dict[str, list[str]]) -> str:
    """A regex alternation of a word list's languages: whole Latin words, CJK words anywhere; longest first."""
    latin = sorted({w.lower() for w in words.get("en", [])}, key=len, reverse=True)
    cjk = sorted(set(words.get("zh", [])), key=len, reverse=True)
    parts = [rf"(?<![A-Za-z])(?:{'|'.join(map(re.escape, latin))})(?![A-Za-z])"] if latin else []
    parts += [f"(?:{'|'.join(map(re.escape, cjk))})"] if cjk else []
    return "|".join(parts) or "(?!)"


def read_word_fields(path: Path, fields: Sequence[str], languages: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """Read a word-list file: exactly `fields`, each a map of `languages` to lists of non-empty words;
    anything else is a `ValueError` naming the file, never silence."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or set(data) != set(fields):
        raise ValueError(f"{path.name}: the fields must be exactly {tuple(fields)}")
    for field in fields:
        entry = data[field]
        if not isinstance(entry, dict) or not set(entry) <= set(languages):
            raise ValueError(f"{path.name}: {field} maps languages {tuple(languages)} to lists of words")
        if not all(isinstance(ws, list) and ws and all(isinstance(w, str) and w for w in ws) for ws in entry.values()):
            raise ValueError(f"{path.name}: {field} holds a list of non-empty words per language")
    return data


def load_relay_words(path: Path = RELAY_WORDS_FILE) -> RelayWords:
    """Read and check `path`: exactly the six fields, each a map of known languages to lists of words;
    anything else is an error, never silence."""
    data = read_word_fields(path, _RELAY_FIELDS, _RELAY_LANGUAGES)
    return RelayWords(
        greeting=re.compile(
            rf"^\s*(?:(?:{_NAME_TAG}\s*)?(?:{word_alternatives(data['greetings'])})"
            rf"|{_ADDRESSEE}\s*(?:{word_alternatives(data['greetings'])})\s*[,，!！])",
            re.IGNORECASE,
        ),
        sign_off=re.compile(rf"^\s*(?:{word_alternatives(data['sign_offs'])})\s*[,，]\s*$", re.IGNORECASE),
        source=re.compile(f"{word_alternatives(data['messages'])}|{word_alternatives(data['sayings'])}", re.IGNORECASE),
        document=re.compile(word_alternatives(data["documents"]), re.IGNORECASE),
        owner=re.compile(word_alternatives(data["owners"]), re.IGNORECASE),
    )


RELAY_WORDS = load_relay_words()
_OPENING_TAG = re.compile(rf"^\s*{_NAME_TAG}")


def source_intro(line: str) -> tuple[int, int] | None:
    """Where the last sentence of `line` introduces someone else's text: (its start, the end of its
    colon), or None. The colon ends the line or is followed by a quotation closing it."""
    colon = max(line.rfind(":"), line.rfind("："))
    if colon < 0:
        return None
    rest = line[colon + 1 :].strip()
    if rest and not (
        rest[0] in _QUOTE_PAIRS and rest.rstrip(".。!！").endswith(_QUOTE_PAIRS[rest[0]]) and len(rest) > 2
    ):
        return None
    starts = [m.end() for m in _SENTENCE_END.finditer(line, 0, colon)]
    start = starts[-1] if starts else 0
    intro = line[start:colon]
    units = len(re.findall(r"[A-Za-z0-9]+", intro)) + len(_CJK_CHAR.findall(intro)) / 2
    words = RELAY_WORDS
    if units > INTRO_UNITS or _FIRST_PERSON.search(intro):
        return None
    if not (words.source.search(intro) or (words.document.search(intro) and words.owner.search(intro))):
        return None
    return start, colon + 1


def introduced(lines: Sequence[str], taken: Sequence[bool], n: int) -> list[int]:
    """The lines under the intro at `n` that are someone else's: the run of list items (with indented
    continuations), the run of `>` lines, or else the paragraph under it."""
    i = n + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    rows: list[int] = []
    listed = i < len(lines) and bool(LIST_ITEM.match(lines[i]))
    marked = i < len(lines) and bool(_QUOTED.match(lines[i]))
    while i < len(lines) and lines[i].strip() and not taken[i]:
        if listed and not LIST_ITEM.match(lines[i]) and not lines[i].startswith((" ", "\t")):
            break
        if marked and not _QUOTED.match(lines[i]):
            break  # a `>` block is the message; the line under it is the user's
        rows.append(i)
        i += 1
    return rows


def _signed(lines: Sequence[str], end: int) -> bool:
    """The paragraph ending at line `end` closes with a sign-off line and a name line."""
    return end >= 2 and bool(_NAME_LINE.match(lines[end])) and bool(RELAY_WORDS.sign_off.match(lines[end - 1]))


def _cells(line: str, separator: str) -> list[str] | None:
    """The cells of `line` split by `separator` ("pipe", "tab" or "gap"), None when it is no row."""
    body = line.strip()
    if not body or "`" in body:
        return None
    if separator == "pipe":
        if "|" not in body.strip("|"):
            return None
        cells = [c.strip() for c in body.strip("|").split("|")]
    elif separator == "tab":
        if "\t" not in body:
            return None
        cells = [c.strip() for c in _TAB.split(body)]
    else:
        cells = [c.strip() for c in _GAP.split(body)]
        if len(cells) < 3 or any(len(c.split()) > 3 for c in cells[:-1]):
            return None
    if len(cells) < 2 or any(sum(1 for w in c.split() if _PLAIN_WORD.match(w)) > CELL_WORDS for c in cells):
        return None
    return cells


def _aligned(lines: Sequence[str], separator: str) -> bool:
    """The separators stand at the same columns in every row (two of them at least)."""
    mark = "|" if separator == "pipe" else "\t"
    if separator == "gap":
        return False
    columns = [{n for n, ch in enumerate(line) if ch == mark} for line in lines]
    return len(set.intersection(*columns)) >= 2 if columns else False


def table_rows(lines: Sequence[str], taken: Sequence[bool]) -> set[int]:
    """The indices of the lines that are rows (or rules) of a table; `taken` marks lines already
    known as material, never part of a run."""
    found: set[int] = set()
    for separator in ("pipe", "tab", "gap"):
        i = 0
        while i < len(lines):
            run: list[int] = []
            j = i
            while j < len(lines) and not taken[j] and lines[j].strip():
                if _cells(lines[j], separator) is not None:
                    run.append(j)
                elif not (run and _RULE.match(lines[j])):
                    break
                j += 1
            if _is_table([lines[k] for k in run if not _RULE.match(lines[k])], separator):
                found.update(range(run[0], run[-1] + 1))
            i = max(j, i + 1)
    return found


def _is_table(rows: list[str], separator: str) -> bool:
    cells = [_cells(row, separator) or [] for row in rows]
    if len(rows) == 1:
        return separator == "pipe" and len(cells[0]) >= 3 and all(_DIGIT.search(c) for c in cells[0])
    if len(rows) < 2:
        return False
    if separator == "pipe" and max(len(c) for c in cells) < 3 and not _aligned(rows, separator):
        return False
    numeric = sum(1 for row in cells if any(_DIGIT.search(c) for c in row))
    return 2 * numeric >= len(rows) or _aligned(rows, separator)


def relayed_rows(lines: Sequence[str], taken: Sequence[bool]) -> set[int]:
    """The indices of the lines that are someone else's message: a header (see the module docstring)
    and, under a header standing alone, the lines up to a blank line; a block a source intro introduces,
    a message opening with a greeting or closing with a signature."""
    found: set[int] = set()
    first_text = next((k for k, s in enumerate(lines) if s.strip()), len(lines))
    n = 0
    while n < len(lines):
        line = lines[n]
        if taken[n] or not line.strip():
            n += 1
            continue
        intro = source_intro(line)
        if intro is not None and line[intro[1] :].strip():
            found.add(n)  # `mtn email: "…"`: the message reported whole on its line
            n += 1
            continue
        if intro is not None:
            rows = introduced(lines, taken, n)
            found.update(rows)
            n = rows[-1] + 1 if rows else n + 1
            continue
        opens_paragraph = n > first_text and not lines[n - 1].strip()
        greeting = RELAY_WORDS.greeting.match(line)
        if (greeting and (opens_paragraph or _OPENING_TAG.match(line))) or any(shape.match(line) for shape in _HEADERS):
            while n < len(lines) and lines[n].strip():  # the message goes on to a blank line
                if not taken[n]:
                    found.add(n)
                n += 1
            continue
        if n == 0 or not lines[n - 1].strip():  # a paragraph closing with a signature
            end = n
            while end + 1 < len(lines) and lines[end + 1].strip():
                end += 1
            if _signed(lines, end):
                found.update(k for k in range(n, end + 1) if not taken[k])
                n = end + 1
                continue
        n += 1
    return found


def is_header(line: str) -> bool:
    """`line` is only the header of a relayed message: a name or handle with a time standing alone."""
    return bool(_CHAT_HEADER.match(line))


def quoted_rows(lines: Sequence[str], taken: Sequence[bool], answer: str) -> set[int]:
    """The indices of the `>` lines that quote someone else, not the assistant's `answer` (see the
    module docstring); `taken` marks lines already known as material."""
    words = {w.lower() for w in _QUOTED_WORD.findall(answer)}
    found: set[int] = set()
    n = 0
    while n < len(lines):
        if taken[n] or not _QUOTED.match(lines[n]):
            n += 1
            continue
        end = n
        while end < len(lines) and not taken[end] and _QUOTED.match(lines[end]):
            end += 1
        body = [QUOTE_MARK.sub("", line, count=1) for line in lines[n:end]]
        if not slice_of(body, words):
            found.update(range(n, end))
        n = end
    return found


def slice_of(body: Sequence[str], answer_words: set[str]) -> bool:
    """The quoted lines `body` (markers stripped) are a close slice of an answer holding `answer_words`;
    a block with no words at all is no one's message."""
    parts = [" ".join(body)]
    if len(body) == 1:
        parts += [body[0][: m.start()] for m in _REPLY_DASH.finditer(body[0])]
    shares = []
    for part in parts:
        own = [w.lower() for w in _QUOTED_WORD.findall(part)]
        if own:
            shares.append(sum(1 for w in own if w in answer_words) / len(own))
    return not shares or max(shares) >= SLICE_SHARE


def gloss_length(line: str) -> int:
    """The length of a parenthesised sentence opening `line` (its closing punctuation and the spaces
    after it included), 0 without one."""
    match = _GLOSS.match(line)
    if match is None:
        return 0
    end = match.end()
    while end < len(line) and line[end].isspace():
        end += 1
    return end


#: An inline quotation's intro has at most this many units (Latin words, two CJK characters each).
INLINE_INTRO_UNITS = 6
#: Latin words (three letters or more) a quotation needs to be weighed as a language.
INLINE_WORDS = 4
#: Shares of Latin words listed in the general word table: a quotation at most FOREIGN_SHARE of them
#: is in another language than a rest at least NATIVE_SHARE of them.
FOREIGN_SHARE = 0.5
NATIVE_SHARE = 0.75
_INLINE_OPEN = re.compile(r"^(\s*)([^:：\n]{1,60}?)\s*[:：]\s*([\"“「『])")
_LATIN = re.compile(r"[^\W\d_]{3,}")


def inline_quotations(lines: Sequence[str], text: str, prose: Callable[[int], bool]) -> dict[int, int]:
    """The length of the inline quotation in another language opening each line `prose(i)` accepts, by
    line index (`inline_quotation`); `text`: the whole turn, its language counted once, and only when
    a line has the shape."""
    found: dict[int, int] = {}
    counted: list[LanguageCounts] = []

    def counts() -> LanguageCounts:
        if not counted:
            counted.append(language_counts(text))
        return counted[0]

    for i, line in enumerate(lines):
        quoted = '"' in line or "“" in line or "「" in line or "『" in line
        if quoted and prose(i) and (length := inline_quotation(line, counts)):
            found[i] = length
    return found


def inline_quotation(line: str, counts: Callable[[], LanguageCounts]) -> int:
    """The length of the inline quotation in another language opening `line` (module docstring), its
    intro and the punctuation and spaces after its closing mark included; 0 for any other line.
    `counts`: the language counts of the whole turn holding `line` (asked only for a line of this shape)."""
    match = _INLINE_OPEN.match(line)
    if match is None:
        return 0
    intro = match.group(2)
    units = len(re.findall(r"[A-Za-z0-9]+", intro)) + len(_CJK_CHAR.findall(intro)) / 2
    if units > INLINE_INTRO_UNITS or _FIRST_PERSON.search(intro) or intro.lstrip().startswith(("-", "*", "#")):
        return 0
    close = line.find(_QUOTE_PAIRS[match.group(3)], match.end())
    if close < 0:
        return 0
    quoted = language_counts(line[match.end() : close])
    rest = counts() - language_counts(line[: close + 1])
    if not quoted.other_language(rest):
        return 0
    end = close + 1
    while end < len(line) and (line[end].isspace() or line[end] in ".。,，!！;；"):
        end += 1
    return end


@dataclass(frozen=True, slots=True)
class LanguageCounts:
    """A text's CJK characters, Latin words of three letters or more, and those of them the general
    word table lists."""

    cjk: int
    latin: int
    listed: int

    def __sub__(self, other: LanguageCounts) -> LanguageCounts:
        return LanguageCounts(self.cjk - other.cjk, self.latin - other.latin, self.listed - other.listed)

    def other_language(self, rest: LanguageCounts) -> bool:
        """This quotation is in another language than `rest`: another script, or both Latin with at most
        FOREIGN_SHARE of its words listed against at least NATIVE_SHARE of the rest's."""
        if (self.cjk > self.latin) != (rest.cjk > rest.latin):
            return self.latin + self.cjk / 2 >= INLINE_WORDS
        if self.cjk or rest.cjk or self.latin < INLINE_WORDS or rest.latin < INLINE_WORDS:
            return False
        return self.listed <= FOREIGN_SHARE * self.latin and rest.listed >= NATIVE_SHARE * rest.latin


def language_counts(text: str) -> LanguageCounts:
    words = _LATIN.findall(text.lower())
    return LanguageCounts(len(_CJK_CHAR.findall(text)), len(words), sum(1 for w in words if zipf(w) is not None))


#: A line is in a script of its own when at least this share of its units (a CJK or kana character, a
#: word of an alphabet) is in a script other than Han and Latin that the rest of its turn never uses.
OWN_SCRIPT_SHARE = 0.3
_BY_LETTER = ("KANA", "HANGUL")
_SCRIPT_WORD = re.compile(r"[^\W\d_]+")


def _script_of(ch: str) -> str:
    """A letter's script as its Unicode name opens ("HIRAGANA", "CYRILLIC", …; kana as one script),
    "" for Han, Latin and anything unnamed."""
    head = unicodedata.name(ch, "").split(" ", 1)[0]
    if head.startswith(("HIRAGANA", "KATAKANA")):
        return "KANA"
    return "" if head in ("CJK", "LATIN", "") else head


def _script_units(text: str) -> Counter[str]:
    """The units of `text` by script: each CJK, kana or hangul letter one, each word of another
    alphabet one ("" for Han and Latin)."""
    units: Counter[str] = Counter()
    for word in _SCRIPT_WORD.findall(text):
        by_letter = [ch for ch in word if _CJK_CHAR.match(ch) or _script_of(ch) in _BY_LETTER]
        units.update(_script_of(ch) for ch in by_letter)  # Han, kana and hangul count by letter
        rest = "".join(" " if ch in by_letter else ch for ch in word).split()
        units.update(_script_of(piece[0]) for piece in rest)  # an alphabet's word counts once
    return units


def own_script_lines(lines: Sequence[str]) -> set[int]:
    """The indices of the lines written in a script of their own (`OWN_SCRIPT_SHARE`) against the rest
    of `lines`: a Japanese note in an English or Chinese turn, a Russian sentence in an English one."""
    units = [_script_units(line) for line in lines]
    total: Counter[str] = sum(units, Counter())
    found = set()
    for i, own in enumerate(units):
        used = {name for name, n in (total - own).items() if n > 0}
        alone = sum(n for name, n in own.items() if name and name not in used)
        if alone and alone >= OWN_SCRIPT_SHARE * sum(own.values()):
            found.add(i)
    return found
