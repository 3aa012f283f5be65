"""The bilingual word table (`bilingual.txt`, generated from CC-CEDICT by scripts/build_bilingual.py):
Chinese words and the English stems of their glosses, read both ways.

A query's Chinese word also asks for its glosses (`缓存` → cache), an English word for the Chinese
words it glosses (`user` → 用户 …), so a question finds a memory written in the other language by the
words they share in meaning. English is compared by stem (memory/words.py). `families.txt`
(scripts/build_families.py) joins the stems of one English word's irregular forms that the stemmer
keeps apart (keep / kept).

Both files are read by bisection (sorted_table.py), never parsed whole: `bilingual.txt` is its
Chinese words in key order, then its `@stem` lines (an English stem with the Chinese words whose
glosses name it best) in key order; `families.txt` is one run in key order. A lookup reads the
dozen-odd lines it compares, so a process pays for the words it asks about, not for 73,000 lines.
"""

from __future__ import annotations

import functools

from autopatch_j.memory.text.sorted_table import SortedTable

_PACKAGE = "autopatch_j.memory.text"
FAMILIES = SortedTable(_PACKAGE, "families.txt")


@functools.cache
def sections() -> tuple[SortedTable, SortedTable]:
    """`bilingual.txt`'s two runs: Chinese word → its glosses' stems; `@stem` → the Chinese words."""
    return SortedTable(_PACKAGE, "bilingual.txt").section(b"@")


@functools.lru_cache(maxsize=65536)  # a long-lived process asks the same words again
def _listed(table: SortedTable, key: str) -> tuple[str, ...]:
    if not key or "\n" in key or "\t" in key:
        return ()  # no line has such a key
    value = table.get(key)
    return () if value is None else tuple(value.split(" "))


def english_of(word: str) -> tuple[str, ...]:
    """The stems of a Chinese word's English glosses (none for a word the table does not hold)."""
    return _listed(sections()[0], word)


def forms_of(key: str) -> tuple[str, ...]:
    """The stems of the other forms of the English word a stem is of (`keep` → kept, `driven` →
    drive: forms the stemmer does not join), none for most stems (`families.txt`)."""
    return _listed(FAMILIES, key)


def chinese_of(key: str) -> tuple[str, ...]:
    """The Chinese words an English stem glosses (the few whose glosses name it earliest)."""
    return _listed(sections()[1], "@" + key)
