"""Chinese word segmentation: a CJK run split into the words it contains (rjieba, jieba's Rust port).

The segmenter's dictionary costs ~0.17 s of CPU to load, so it is imported on the first text that
holds CJK, never at start-up (`memory status`, an English-only search and the CLI's cold start never
load it). `words` uses the search mode for an item: a long word also yields the shorter dictionary
words inside it ("国际化方案" → 国际, 国际化, 方案), so a query and a memory that split a compound
differently still share its words. A query is cut into dictionary words only: the segmenter's guesses
(its HMM) glue particles to their neighbours in questions ("时要", "名里"), words no memory
holds that would weigh as rare ones; only a run the dictionary splits into lone characters (先给)
keeps the guessed cut, so a short phrase still asks for a word.
"""

from __future__ import annotations

import functools


@functools.cache
def _rjieba() -> object:
    import rjieba  # loads its dictionary on import

    return rjieba


@functools.lru_cache(maxsize=4096)
def words(run: str, *, search_mode: bool = True) -> tuple[str, ...]:
    """The words of one CJK run, in order, each once; in search mode a long word's shorter dictionary
    words too (what an item is indexed by), else the ordinary cut into dictionary words, no guessed
    word (what a query asks for: `dictionary_words`) — but for a run the dictionary splits into lone
    characters only, whose guessed cut is kept (a short phrase such as 先给 still asks for a word)."""
    module = _rjieba()
    if not search_mode:
        found = dictionary_words(run)
        if any(len(word) > 1 for word in found):
            return found
        # a run the dictionary splits into lone characters only (先给): the segmenter's guess
        return tuple(dict.fromkeys(word for word in module.cut(run) if word.strip()))  # type: ignore[attr-defined]
    return tuple(dict.fromkeys(word for word in module.cut_for_search(run) if word.strip()))  # type: ignore[attr-defined]


@functools.lru_cache(maxsize=1024)
def dictionary_words(run: str) -> tuple[str, ...]:
    """The run cut into dictionary words only (no guessed words: 图片尺寸 → 图片, 尺寸)."""
    module = _rjieba()
    return tuple(dict.fromkeys(word for word in module.cut(run, False) if word.strip()))  # type: ignore[attr-defined]
