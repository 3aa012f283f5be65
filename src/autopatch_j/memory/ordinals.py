"""The ordinals a short reply points to ("2 可以", "the first one", "option B", "第二个"), read one way
by the assent chooser (`assent_choice`) and the option selection (`options`)."""

from __future__ import annotations

import re

CODE_SPAN = re.compile(r"`[^`]+`")
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
_LETTERS = "ABCDEF"
# What a reply points to: "option 2", "the second", "第二个", "2 可以", "1、2、4 同意", "B 吧".
# a full stop after the number ends the reply ("2."), not a decimal or a version ("2.5", "v1.2")
_REPLY_NUMBER = re.compile(r"(?<![\w.])([1-9])(?![\w%]|\.\w)")
_REPLY_CN = re.compile(r"第\s*([一二三四五六1-9])")
_REPLY_EN = re.compile(r"\b(first|second|third|fourth|fifth|last)\b")
_REPLY_LETTER = re.compile(
    r"(?i:\b(?:option|plan)\s*|方案\s*|选项\s*)([A-Fa-f])(?![A-Za-z])|(?<![A-Za-z])([A-F])(?![A-Za-z])"
)


def ordinal(token: str) -> int:
    """The 1-based ordinal a digit, an option letter (A–F) or a Chinese numeral names; 0 for none."""
    if token.isdigit():
        return int(token)
    if token.upper() in _LETTERS:
        return _LETTERS.index(token.upper()) + 1
    return _CN_DIGITS.get(token, 0)


def reply_pointers(reply: str) -> set[int]:
    """The ordinals `reply` points to ("2 可以" → {2}, "the first one" → {1}, "option B" → {2}; -1: the last)."""
    found: set[int] = set()
    without_code = CODE_SPAN.sub(" ", reply)
    for match in _REPLY_NUMBER.finditer(without_code):
        found.add(int(match.group(1)))
    for match in _REPLY_CN.finditer(without_code):
        found.add(ordinal(match.group(1)))
    for match in _REPLY_EN.finditer(without_code.lower()):
        found.add(_EN_ORDINALS[match.group(1)])
    for match in _REPLY_LETTER.finditer(without_code):
        found.add(ordinal(match.group(1) or match.group(2)))
    return {n for n in found if n}


# An item label written inline before a reply: "(2) ", "2) ", "（2）".
_LABEL_BEFORE = re.compile(r"(?:^|\s)[(（]?([1-9])[)）]\s*$")
_LABEL_OPENING = re.compile(r"\s*[(（]?([1-9])[)）]\s")


def item_label(text: str, quote: str) -> int:
    """The item `quote` (a sentence of `text`) answers by its label: the ordinal of "(2)", "2)" or "（2）"
    opening it or written right before it in `text`; 0 when it has none."""
    opening = _LABEL_OPENING.match(quote)
    if opening:
        return int(opening.group(1))
    at = text.find(quote)
    before = _LABEL_BEFORE.search(text[max(0, at - 12) : at]) if at > 0 else None
    return int(before.group(1)) if before else 0
