"""The bilingual word table (`bilingual.txt`, generated from CC-CEDICT by scripts/build_bilingual.py):
Chinese words and their one-word English glosses, read both ways.

A query's Chinese word also asks for its glosses (`缓存` → cache), an English word for the Chinese
words it glosses (`user` → 用户 …), so a question finds a memory written in the other language by the
words they share in meaning. English is compared by stem (memory/words.py). The table is read on the
first query that needs it (≈ 28,000 lines); an English gloss's Chinese words are the `MAX_CHINESE`
whose glosses name it earliest.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

#: Chinese words an English word asks for, at most (the ones whose glosses name it earliest).
MAX_CHINESE = 6


@dataclass(frozen=True, slots=True)
class _Table:
    english: dict[str, tuple[str, ...]]  # Chinese word → its glosses' stems
    chinese: dict[str, tuple[str, ...]]  # English stem → the Chinese words it glosses


@functools.cache
def _table() -> _Table:
    from autopatch_j.memory.words import stem

    raw = resources.files("autopatch_j.memory.text").joinpath("bilingual.txt").read_text(encoding="utf-8")
    english: dict[str, tuple[str, ...]] = {}
    ranked: dict[str, list[tuple[int, int, str]]] = {}
    for line in raw.splitlines():
        if not line or line.startswith("#"):
            continue
        word, _, glosses = line.partition("\t")
        stems = tuple(dict.fromkeys(stem(gloss) for gloss in glosses.split(" ")))
        english[word] = stems
        for position, key in enumerate(stems):
            ranked.setdefault(key, []).append((position, len(word), word))
    chinese = {key: tuple(w for _, _, w in sorted(words)[:MAX_CHINESE]) for key, words in ranked.items()}
    return _Table(english=english, chinese=chinese)


def english_of(word: str) -> tuple[str, ...]:
    """The stems of a Chinese word's English glosses (none for a word the table does not hold)."""
    return _table().english.get(word, ())


def chinese_of(key: str) -> tuple[str, ...]:
    """The Chinese words an English stem glosses (at most `MAX_CHINESE`)."""
    return _table().chinese.get(key, ())
