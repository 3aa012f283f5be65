"""The bilingual word table (`bilingual.txt`, generated from CC-CEDICT by scripts/build_bilingual.py):
Chinese words and the English stems of their one-word glosses, read both ways.

A query's Chinese word also asks for its glosses (`缓存` → cache), an English word for the Chinese
words it glosses (`user` → 用户 …), so a question finds a memory written in the other language by the
words they share in meaning. English is compared by stem (memory/words.py). The table is read once,
on the first query that needs it; an English stem's Chinese words are listed in it too (the few whose
glosses name it earliest).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class _Table:
    english: dict[str, tuple[str, ...]]  # Chinese word → its glosses' stems
    chinese: dict[str, tuple[str, ...]]  # English stem → the Chinese words it glosses


@functools.cache
def _table() -> _Table:
    raw = resources.files("autopatch_j.memory.text").joinpath("bilingual.txt").read_text(encoding="utf-8")
    english: dict[str, tuple[str, ...]] = {}
    chinese: dict[str, tuple[str, ...]] = {}
    for line in raw.splitlines():
        if not line or line.startswith("#"):
            continue
        word, _, listed = line.partition("\t")
        if word.startswith("@"):
            chinese[word[1:]] = tuple(listed.split(" "))
        else:
            english[word] = tuple(listed.split(" "))
    return _Table(english=english, chinese=chinese)


def english_of(word: str) -> tuple[str, ...]:
    """The stems of a Chinese word's English glosses (none for a word the table does not hold)."""
    return _table().english.get(word, ())


def chinese_of(key: str) -> tuple[str, ...]:
    """The Chinese words an English stem glosses (the few whose glosses name it earliest)."""
    return _table().chinese.get(key, ())
