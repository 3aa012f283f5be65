"""Normalization of texts and queries (M-62, M-64); the term index itself is memory/index.py.

`normalize`: the one fold of memory/text (NFKC, casefold), every run of whitespace/punctuation folded
into one space, and no space next to a CJK character (so "使用 Python", "使用Python" and "回答，先给"
vs "回答先给" normalize alike). Used to compare whole titles and subjects, and to bound queries.
"""

from __future__ import annotations

import re

from autopatch_j.memory.text import CJK, fold

__all__ = [
    "CJK_SUFFIX_CHARS",
    "MAX_QUERY_CHARS",
    "MAX_TERM_CHARS",
    "normalize",
    "prefix_end",
]

MAX_TERM_CHARS = 160
MAX_QUERY_CHARS = 256
CJK_SUFFIX_CHARS = 16

_SEPARATORS = re.compile(r"[\s\W_]+", re.UNICODE)
# A space next to a CJK character carries no meaning ("使用 Python" = "使用Python", "回答，先给" = "回答先给").
_CJK_SPACE = re.compile(f" (?=[{CJK}])|(?<=[{CJK}]) ")


def normalize(text: str) -> str:
    """The fold, every run of whitespace/punctuation folded into one space, none beside CJK."""
    spaced = _SEPARATORS.sub(" ", fold(text)).strip()
    return spaced if spaced.isascii() else _CJK_SPACE.sub("", spaced)  # CJK characters are not ASCII


def prefix_end(q: str) -> str:
    """The smallest string greater than every string starting with `q` (exclusive upper bound).

    SQLite compares TEXT as UTF-8 bytes, whose order is code point order, so bumping the last
    code point works; surrogates cannot be encoded and are skipped.
    """
    for cut in range(len(q), 0, -1):
        code = ord(q[cut - 1]) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000
        if code <= 0x10FFFF:
            return q[: cut - 1] + chr(code)
    return "\U0010ffff" * (len(q) + 1)
