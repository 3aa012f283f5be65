"""Members of a family of variants a question and a memory name: rev B / rev C, v2 / v3, P0 / P1, 二期 / 三期.

A family is read by the shape of a token, not from a list of families: a head word and a short label
that tells its members apart —

- a word and a one-letter label after it (`rev B`, `Model X`, `board-C`): the head is the word folded,
  the label the letter; the word is no common word of the language (`MAX_HEAD_ZIPF`: "the R scripts"
  names no family), and `a`, `i` or `I` is a word of the sentence, not a label;
- one capital letter before a Chinese head (`A 版`, `B板`): the head is the Chinese character;
- a word of one to three letters glued to one digit (`v2`, `P0`, `gen3`, `L2`): the head is the
  letters, the label the digit;
- a number (digits or Chinese numerals, `第` before it or not) before one of the `ordinal_heads` of
  `scopes.json` (`二期`, `第三版`, `2 代`): a phase, an edition, a generation; 二 and 2 are one label.
  Which Chinese characters count there is data: a number before any other character is a quantity
  (`3 秒`), the value a memory states.

Identifiers are kept whole: a token joined to a word by `_`, `-`, `.` or `/`, or after `@`, `%` or `$`
(`claims-v2`, `api/v2/users`, `-O2`, `checkout@v4`) names a thing, and its parts count as no member;
`C++` and `C#` are no labels. A longer number after a word (`node 18`, `python 3.11`, `p99`) is a value a
memory states, not a member, and is not read.

`variant_mismatch(asked, text, limits)` is what search.py asks of each hit after ranking: whether the
memory names members of a family the question names, and none the question names in it (`rev C 的看门狗
超时` is not answered by *rev B IWDG 超时 2s*); a memory naming no member of the family, one naming the
question's, or one limiting something to a member (`only rev B`, 仅 v2: the `restrictors` of scopes.py)
still answers.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from collections.abc import Mapping
from importlib import resources
from typing import Protocol

from autopatch_j.memory.text import fold
from autopatch_j.memory.text.frequencies import zipf


class Limits(Protocol):
    """What limits a scope named at `folded[start:end]` ("only in", 只在): scopes.py's `Restrictors`."""

    def limit(self, folded: str, start: int, end: int) -> bool: ...


#: Chinese numerals as digits, so 二期 and 2 期 name one member.
_DIGITS = str.maketrans("零〇一二三四五六七八九", "00123456789")

#: A family: (head, label), both folded.
Member = tuple[str, str]

_NUMERALS = "0-9零〇一二三四五六七八九十"
#: a label starts a token: no letter, digit or joiner before it, and no sign that makes it part of a path, a
#: flag or a reference (`/v2`, `-O2`, `@v4`, `%w`).
_LATIN_BEFORE = r"(?<![0-9A-Za-z_/@%$\\.-])"
#: a label ends the token: no letter, digit or `_` after it, no joined part (`-x`, `.y`), no `C++` or `C#`.
_LATIN_AFTER = r"(?![0-9A-Za-z_+#]|[-./][0-9A-Za-z])"
#: a word, then a space or hyphen, then one letter: `rev B`, `board-C`.
_WORD_LETTER = rf"{_LATIN_BEFORE}(?P<head1>[A-Za-z]{{2,}})[ \-](?P<label1>[A-Za-z]){_LATIN_AFTER}"
#: one capital letter before a Chinese head: `A 版`, `B板`.
_LETTER_CJK = rf"{_LATIN_BEFORE}(?P<label2>[A-Z]) ?(?P<head2>[\u4e00-\u9fff])"
#: a short word glued to one digit: `v2`, `P0`, `gen3`.
_GLUED = rf"{_LATIN_BEFORE}(?P<head3>[A-Za-z]{{1,3}})(?P<label3>[0-9]){_LATIN_AFTER}"
#: A word before a letter is a head only when it is no common word of the language (Zipf × 10 below
#: this in `frequencies.txt`): "the R scripts", "about N+1" name no family, "rev B", "board C" do.
MAX_HEAD_ZIPF = 55


@functools.cache
def _pattern() -> re.Pattern[str]:
    """The shapes above, with the ordinal heads of `scopes.json`, compiled once per process."""
    data = json.loads(resources.files(__package__).joinpath("scopes.json").read_text(encoding="utf-8"))
    heads = "".join(re.escape(head) for head in data["variants"]["ordinal_heads"])
    ordinal = rf"(?<![0-9.])(?P<label4>第?[{_NUMERALS}]{{1,3}}) ?(?P<head4>[{heads}])"
    return re.compile("|".join((_WORD_LETTER, _LETTER_CJK, _GLUED, ordinal)))


def members(text: str) -> dict[str, set[str]]:
    """Per head, the labels of the members a text names."""
    raw = unicodedata.normalize("NFKC", text)
    found: dict[str, set[str]] = {}
    for match in _pattern().finditer(raw):
        head, label = _member(match)
        if head:
            found.setdefault(head, set()).add(label)
    return found


def _member(match: re.Match[str]) -> Member:
    """The (head, label) of one match, or ("", "") when its letter is a word of the sentence."""
    groups = match.groupdict()
    for n in "1234":
        head = groups[f"head{n}"]
        if head is not None:
            label = groups[f"label{n}"]
            if n in "12" and label in ("a", "i", "I"):  # an article or a pronoun, not a label
                return "", ""
            if n == "1" and (zipf(fold(head)) or 0) >= MAX_HEAD_ZIPF:  # a common word, not a head
                return "", ""
            return fold(head), fold(label).removeprefix("第").translate(_DIGITS)
    return "", ""  # pragma: no cover - every alternative names a head


def query_members(query: str) -> Mapping[str, frozenset[str]]:
    """Per head, the labels a question names (empty when it names no member of any family)."""
    return {head: frozenset(labels) for head, labels in members(query).items()}


def variant_mismatch(asked: Mapping[str, frozenset[str]], text: str, limits: Limits) -> bool:
    """Whether a memory's text names members of a family the question names and none of the question's
    members of it, without limiting something to one of them (`asked`: `query_members` of the question;
    `limits`: the words that limit a scope, scopes.py's `restrictors()`)."""
    if not asked:
        return False
    held = members(text)
    if not any(held.get(head) and not wanted & held[head] for head, wanted in asked.items()):
        return False
    raw = unicodedata.normalize("NFKC", text)
    folded = fold(raw)  # one character for one: the positions of `raw`
    return not any(limits.limit(folded, m.start(), m.end()) for m in _pattern().finditer(raw))
