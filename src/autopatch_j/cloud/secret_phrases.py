"""Secrets written as words: a wallet's recovery phrase (C-24).

A BIP-39 mnemonic is 12, 15, 18, 21 or 24 words of the standard English word list
(`bip39_english.txt`, 2,048 words), one space apart. Ordinary English seldom strings twelve of
those words together, and a label says what such a run is: the rule takes a run of at least 12
word-list words (up to 24) when a label naming a seed, a mnemonic or a recovery phrase stands within
`LABEL_REACH` characters before it (`seed (do not commit): …`, `mnemonic | …`, `助记词：…`). The run
is one regular expression of bounded word runs, and each word is a set lookup, so the rule is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib import resources

from autopatch_j.cloud.secret_rules import Rule
from autopatch_j.cloud.secret_values import Span

__all__ = ["PHRASE_RULES", "mnemonic_spans"]

PHRASE_MIN = 12
PHRASE_MAX = 24
LABEL_REACH = 80
# twelve or more lowercase words of three to eight letters, one space (or a wrap's line break) apart
_RUN = re.compile(r"(?<![\w-])[a-z]{3,8}+(?:[ \t]{1,2}+[a-z]{3,8}+){11,40}+(?![\w-])")
_WORD = re.compile(r"[a-z]++")
_LABEL = re.compile(r"(?i)seed|mnemonic|recovery[ _-]?phrase|secret[ _-]?phrase|wallet[ _-]?words|助记词|种子")


@cache
def word_list() -> frozenset[str]:
    """The BIP-39 English word list."""
    text = resources.files("autopatch_j.cloud").joinpath("bip39_english.txt").read_text(encoding="utf-8")
    return frozenset(text.split())


def mnemonic_spans(view: str) -> Iterator[Span]:
    """Runs of `PHRASE_MIN`–`PHRASE_MAX` word-list words after a label naming a seed phrase (the
    first words of a longer run that all belong to the list)."""
    words = word_list()
    for run in _RUN.finditer(view):
        if _LABEL.search(view, max(0, run.start() - LABEL_REACH), run.start()) is None:
            continue
        end, count = run.start(), 0
        for word in _WORD.finditer(view, run.start(), run.end()):
            if word.group() not in words or count == PHRASE_MAX:
                break
            end, count = word.end(), count + 1
        if count >= PHRASE_MIN:
            yield run.start(), end


PHRASE_RULES: tuple[Rule, ...] = (
    Rule("mnemonic_phrase", mnemonic_spans, ("seed", "mnemonic", "phrase", "wallet", "助记词", "种子")),
)
