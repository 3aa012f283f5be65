"""The text primitives the lexicon judges: folding, sentences and clauses with their exact offsets,
and the names and values a text writes. No word lists live here; they are in
`lexicon.json`."""

from __future__ import annotations

import re

from autopatch_j.memory.text import CJK as CJK
from autopatch_j.memory.text import fold as text_fold

CJK_RUN = re.compile(f"[{CJK}]+")
WORD = re.compile(f"[^\\W_{CJK}]+", re.UNICODE)
NUMBER = re.compile(r"\d")

# A concrete thing a rule may name: a number; a Latin word inside Chinese text (a tool, a library:
# "就用 httpx"); in English, a capitalized word after the first ("Friday", "PostgreSQL") or an
# identifier-like token ("snake_case", "v2", "package.json").
_LATIN_IN_CJK = re.compile(f"(?=.*[{CJK}]).*[A-Za-z]{{2,}}")
_NAMED = re.compile(r"(?<=[\w,;:—–-] )[A-Z][\w.+#-]+|\b[A-Za-z]+[_.][\w.]+\b|\b[a-z]+[A-Z]\w*")


# A Latin ";" ends a clause only before a space or the end: "TL;DR" is one word. An end mark right
# before a closing quote ends the sentence only where a new one starts after the quote (a capital, or
# the end): "Stop asking 'Shall I continue?' at the end." and "别再问“要不要继续？”了。" are one sentence.
_CLOSE = "\"'’”」』"
_SENTENCE = re.compile(
    f"(?:[^。！？!?；;\\n]|;(?=\\S)|[。！？!?.]+[{_CLOSE}](?!\\s+[A-Z]|\\s*$))+?"
    f"(?:[。！？!?.]+[{_CLOSE}](?=\\s+[A-Z]|\\s*$)|[。！？!?；]+(?![{_CLOSE}])|;+(?=\\s|$)|\\.(?=\\s|$)|\\n|$)"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, each an exact substring (stripped), in order."""
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def last_sentence_start(text: str) -> int:
    """The offset in `text` where its last sentence starts (0 when it has one sentence or none)."""
    start = 0
    for m in _SENTENCE.finditer(text):
        body = m.group(0)
        if body.strip():
            start = m.start() + len(body) - len(body.lstrip())
    return start


_CLAUSE_TEXT = re.compile(r"(?:[^,，。!！;；:：、—–\s]|\s(?!-\s)|(?<=\S)-|-(?=\S))+")


def clauses(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of the clauses of a sentence, separators and outer space excluded."""
    spans = []
    for m in _CLAUSE_TEXT.finditer(text):
        body = m.group()
        start = m.start() + len(body) - len(body.lstrip())
        end = m.start() + len(body.rstrip())
        if end > start:
            spans.append((start, end))
    return spans


_NUMBER_RUN = re.compile(r"\d+")
_LATIN_RUN = re.compile(r"[A-Za-z][\w.+#-]*")


def given_values(text: str) -> set[str]:
    """The values a statement gives that its content words may miss (folded): numbers of any length
    ("是 3 秒"), and in Chinese text Latin names of any length ("示例脚本今后改用 Go")."""
    latin = {fold(w) for w in _LATIN_RUN.findall(text)} if CJK_RUN.search(text) else set()
    return latin | set(_NUMBER_RUN.findall(text))


def proper_names(text: str) -> set[str]:
    """The words `text` writes as names (folded): in English, capitalized after the first word
    ("every Monday", "I misspoke: Wednesdays") or identifier-like ("snake_case", "camelCase"); in
    Chinese text, every Latin word ("就用 webpack")."""
    if CJK_RUN.search(text):
        return {fold(w) for w in _LATIN_RUN.findall(text)}
    return {fold(m.group()).rstrip(".") for m in _NAMED.finditer(text)}


def names_a_thing(text: str) -> bool:
    """Names a concrete thing (a number, a tool, a library, a day): see `_NAMED`."""
    return bool(NUMBER.search(text) or _LATIN_IN_CJK.search(text) or _NAMED.search(text))


def fold(text: str) -> str:
    """The text layer's fold (`memory.text.fold`), with typographic apostrophes made plain (so "let’s"
    matches "let's")."""
    return text_fold(text).replace("\u2019", "'").replace("\u2018", "'")
