"""Chinese word segmentation: a CJK run split into the words it contains (rjieba, jieba's Rust port).

The segmenter's dictionary costs ~0.17 s of CPU to load, so it is imported on the first text that
holds CJK, never at start-up (`memory status`, an English-only search and the CLI's cold start never
load it). `words` uses the search mode: a long word also yields the shorter dictionary words inside it
("国际化方案" → 国际, 国际化, 方案), so a query and a memory that split a compound differently still
share its words.
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
    words too (what an item is indexed by), else the ordinary cut (what a query asks for)."""
    module = _rjieba()
    cut = module.cut_for_search if search_mode else module.cut  # type: ignore[attr-defined]
    return tuple(dict.fromkeys(word for word in cut(run) if word.strip()))
