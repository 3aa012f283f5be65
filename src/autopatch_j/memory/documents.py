"""Documents the user pastes: someone else's prose, told by how the user introduces it and by its layout.

A forwarded message, a standard, meeting minutes, a ticket or a client's words are pasted as plain
sentences, often numbered clauses ("1. 单个方法不超过 80 行。", "二、投产窗口统一为每周四…"); no line
gives them away, and the words of a clause read like a rule. None of it is the user's: what the user
says about the document, before or after it ("纪要第一、三项已经确认，按此执行", "we follow these"), is.
`document_rows` finds, in a user's turn (`structure.parse` given the answer before it; an assistant
quotes and proposes, it pastes nothing), three shapes (the words naming a document are data, `document_words.json`, with
`relay_words.json`'s owners, documents and greetings):

- **an intro naming someone else's text** — a line ending in a colon, one part of whose last sentence
  (parts split by commas) is short (`blocks.INTRO_UNITS`), not in the first person singular, and names
  a message ("minutes from this morning's sync:", "11 月 28 日投产评审会纪要：", "kevin msg in the group
  chat:"), a document with an owner or a title in 《》 ("下面是行内《Java 代码
  评审规范》的要点"), or a source with an owner ("From the client:"). Another part may be the user's
  request ("请帮我整理成待办"). The block is the run of list
  items under it, the run of `>` lines, or else the paragraph (`blocks.introduced`);
- **a document's heading** — a short line opening a paragraph, ending in neither a colon nor a
  sentence mark, that names a message or a document and carries a date or a title in 《》
  ("核心系统对接组会议纪要（2024年11月21日）"), over at least two numbered or `label：value` lines: the
  paragraph is the document;
- **a speaker's greeting** — a paragraph after the turn's first, opening with a speaker's label
  ("陈老板：", "Kevin:") and then a greeting ("Marvin 你好，", "Hi Marvin"): a chat message copied with
  its sender. A label alone is not enough: a user opens their own line with one ("规则：…", "顺便:").

What the user says about the document in the same turn, right under it, is read by the relay path
(`relays.py`) as it reads a reply to a `>` message: an assent ("ok agree with him", "按这个来") adopts
the document's stated sentences, quoting them and the user's words; a sentence of the next turn
pointing at the document's numbered items ("纪要第一、三项已经确认，按此执行") adopts those items
(`RelayReader.items`).

The user's own numbered rules ("本项目的几条硬性规定：", "house rules for this repo from now on:") name
no message, no owned or titled document and no source, and stay prose; so does a document word alone
("表命名规范：…"): a user titles their own rules that way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.blocks import (
    HAN,
    INTRO_UNITS,
    LIST_ITEM,
    RELAY_WORDS,
    introduced,
    read_word_fields,
    word_alternatives,
)
from autopatch_j.memory.shapes import COLON_END, units

DOCUMENT_WORDS_FILE = Path(__file__).with_name("document_words.json")
_FIELDS = ("messages", "documents", "presenters", "sources")
_LANGUAGES = ("en", "zh")
#: A document's heading is at most this long in words (a CJK character counts half a word).
HEADING_UNITS = 16
_FIRST_PERSON = re.compile(r"(?:^|[^A-Za-z])(?:i|my|i've|i'm|me)(?![A-Za-z'])|我(?!们)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?。！？]\s+|[。！？]")
_PART = re.compile(r"[,，;；、]\s*")
_TITLE = re.compile(r"《[^》\n]+》")
_DATE = re.compile(
    r"\d{4}\s*[-/.年]\s*\d{1,2}|\d{1,2}\s*月\s*\d{1,2}\s*日|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|(?<![A-Za-z])(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?!\d)",
    re.IGNORECASE,
)
_SENTENCE_MARK = re.compile(r"[.!?。！？;；]\s*$")
_LABEL_LINE = re.compile(rf"^\s*(?:[A-Za-z][\w ]{{0,20}}|[{HAN}]{{1,6}})\s*[:：]\s*\S")
_SPEAKER = re.compile(rf"^\s*(?:[A-Z][a-z]+(?: [A-Z][a-z]+)?|[{HAN}]{{1,4}})\s*[:：]\s*(?=\S)")


@dataclass(frozen=True, slots=True)
class DocumentWords:
    """The words that name a document (`document_words.json`), one pattern per field."""

    message: re.Pattern[str]  # someone else's text by itself: minutes, a message, a ticket
    document: re.Pattern[str]  # someone else's only with an owner or a title: a standard, a policy
    presenter: re.Pattern[str]
    source: re.Pattern[str]  # someone else's with an owner: "from the client"


def load_document_words(path: Path = DOCUMENT_WORDS_FILE) -> DocumentWords:
    """Read and check `path`: exactly the four fields, each a map of known languages to lists of words;
    anything else is an error, never silence."""
    data = read_word_fields(path, _FIELDS, _LANGUAGES)
    return DocumentWords(**{field[:-1]: re.compile(word_alternatives(data[field]), re.IGNORECASE) for field in _FIELDS})


DOCUMENT_WORDS = load_document_words()


def names_document(part: str) -> bool:
    """`part` (one comma-separated part of an intro) names someone else's text."""
    words, relay = DOCUMENT_WORDS, RELAY_WORDS
    owned = bool(relay.owner.search(part))
    if words.message.search(part):
        return True
    if (words.document.search(part) or relay.document.search(part)) and (owned or _TITLE.search(part)):
        return True
    return bool(_TITLE.search(part) and words.presenter.search(part)) or bool(words.source.search(part) and owned)


def document_intro(line: str) -> bool:
    """`line` ends in a colon and introduces a document (see the module docstring)."""
    if not COLON_END.search(line) or LIST_ITEM.match(line):
        return False
    body = COLON_END.sub("", line)
    starts = [m.end() for m in _SENTENCE_END.finditer(body)]
    last = body[starts[-1] if starts else 0 :]
    return any(
        0 < units(part) <= INTRO_UNITS and not _FIRST_PERSON.search(part) and names_document(part)
        for part in _PART.split(last)
    )


def _paragraph(lines: Sequence[str], taken: Sequence[bool], n: int) -> list[int]:
    """Line `n` and the non-blank lines after it up to a blank line or a line already `taken`."""
    rows = [n]
    while rows[-1] + 1 < len(lines) and lines[rows[-1] + 1].strip() and not taken[rows[-1] + 1]:
        rows.append(rows[-1] + 1)
    return rows


def _heading(lines: Sequence[str], taken: Sequence[bool], n: int) -> list[int]:
    """The paragraph a document's heading at `n` opens, [] when `n` is no such heading."""
    line = lines[n]
    if COLON_END.search(line) or _SENTENCE_MARK.search(line) or LIST_ITEM.match(line) or units(line) > HEADING_UNITS:
        return []
    words = DOCUMENT_WORDS
    named = words.message.search(line) or words.document.search(line) or RELAY_WORDS.document.search(line)
    if not named or not (_DATE.search(line) or _TITLE.search(line)) or _FIRST_PERSON.search(line):
        return []
    rows = _paragraph(lines, taken, n)
    clauses = sum(1 for k in rows[1:] if LIST_ITEM.match(lines[k]) or _LABEL_LINE.match(lines[k]))
    return rows if clauses >= 2 else []


def _speaker_paragraph(lines: Sequence[str], taken: Sequence[bool], n: int) -> list[int]:
    """The paragraph a speaker's label at `n` opens (see the module docstring), [] for any other line."""
    match = _SPEAKER.match(lines[n])
    if match is None or _FIRST_PERSON.search(match.group(0)):
        return []
    rows = _paragraph(lines, taken, n)
    return rows if RELAY_WORDS.greeting.match(lines[n][match.end() :]) else []


def document_rows(lines: Sequence[str], taken: Sequence[bool]) -> set[int]:
    """The indices of the lines of a pasted document (see the module docstring); `taken` marks lines
    already known as material."""
    found: set[int] = set()
    first_text = next((k for k, s in enumerate(lines) if s.strip()), len(lines))
    n = 0
    while n < len(lines):
        if taken[n] or not lines[n].strip() or n in found:
            n += 1
            continue
        opens_paragraph = n == first_text or not lines[n - 1].strip()
        if document_intro(lines[n]):
            rows = introduced(lines, taken, n)
        elif opens_paragraph:
            rows = _heading(lines, taken, n) or (_speaker_paragraph(lines, taken, n) if n > first_text else [])
        else:
            rows = []
        found.update(rows)
        n = rows[-1] + 1 if rows else n + 1
    return found
