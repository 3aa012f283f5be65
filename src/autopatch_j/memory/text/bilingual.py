"""The bilingual word table (`bilingual.txt`, generated from CC-CEDICT by scripts/build_bilingual.py):
Chinese words and the English stems of their glosses, read both ways.

A query's Chinese word also asks for its glosses (`缓存` → cache), an English word for the Chinese
words it glosses (`user` → 用户 …), so a question finds a memory written in the other language by the
words they share in meaning. English is compared by stem (memory/words.py). The table is read once,
on the first query that needs it; an English stem's Chinese words are listed in it too (the few whose
glosses name it best). `families.txt` (scripts/build_families.py) joins the stems of one English word's
irregular forms that the stemmer keeps apart (keep / kept), read with it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class _Table:
    english: dict[str, tuple[str, ...]]  # Chinese word → its glosses' stems
    chinese: dict[str, tuple[str, ...]]  # English stem → the Chinese words it glosses
    families: dict[str, tuple[str, ...]]  # English stem → the stems of the same word's other forms


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
    families: dict[str, tuple[str, ...]] = {}
    raw = resources.files("autopatch_j.memory.text").joinpath("families.txt").read_text(encoding="utf-8")
    for line in raw.splitlines():
        if line and not line.startswith("#"):
            key, _, listed = line.partition("\t")
            families[key] = tuple(listed.split(" "))
    return _Table(english=english, chinese=chinese, families=families)


def english_of(word: str) -> tuple[str, ...]:
    """The stems of a Chinese word's English glosses (none for a word the table does not hold)."""
    return _table().english.get(word, ())


def forms_of(key: str) -> tuple[str, ...]:
    """The stems of the other forms of the English word a stem is of (`keep` → kept, `driven` →
    drive: forms the stemmer does not join), none for most stems (`families.txt`)."""
    return _table().families.get(key, ())


def chinese_of(key: str) -> tuple[str, ...]:
    """The Chinese words an English stem glosses (the few whose glosses name it earliest)."""
    return _table().chinese.get(key, ())
