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
import re


@functools.cache
def _rjieba() -> object:
    import rjieba  # loads its dictionary on import

    return rjieba


@functools.lru_cache(maxsize=4096)
def words(run: str, *, search_mode: bool = True, question_words: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The words of one CJK run, in order, each once; in search mode a long word's shorter dictionary
    words too (what an item is indexed by), else the ordinary cut into dictionary words, no guessed
    word (what a query asks for: `dictionary_words`), after cutting the run at `question_words` (each
    then one word) — but for a run without one that the dictionary splits into lone characters
    only, the guessed cut is kept (a short phrase such as 先给 still asks for a word)."""
    if not search_mode:
        pieces = _at_question_words(run, _asking(question_words))
        if not pieces:
            return _query_words(run)
        # a question word is a word of the run, so the rest is cut into dictionary words only
        return tuple(
            dict.fromkeys(w for piece, asked in pieces for w in ((piece,) if asked else dictionary_words(piece)))
        )
    return tuple(dict.fromkeys(word for word in _rjieba().cut_for_search(run) if word.strip()))  # type: ignore[attr-defined]


def _query_words(piece: str) -> tuple[str, ...]:
    found = dictionary_words(piece)
    if any(len(word) > 1 for word in found):
        return found
    # a run the dictionary splits into lone characters only (先给): the segmenter's guess
    return tuple(dict.fromkeys(word for word in _rjieba().cut(piece) if word.strip()))  # type: ignore[attr-defined]


def _at_question_words(run: str, asking: re.Pattern[str]) -> list[tuple[str, bool]]:
    """The run as pieces in order, each with whether it is a question word: the longest one that starts
    at a position, unless the dictionary's own cut covers it with words of two or more characters
    that cross its edges (重点 + 解决 hold 点解 but are not asking). Empty when that changes nothing:
    no question word, or each one a word of the dictionary's cut already."""
    match = asking.search(run)
    if match is None:
        return []
    spans = _spans(run)
    pieces: list[tuple[str, bool]] = []
    changes = False
    start = 0
    while match is not None:
        begin, end = match.span()
        if _covered(spans, begin, end):
            match = asking.search(run, begin + 1)
            continue
        changes = changes or (begin, end) not in spans
        if start < begin:
            pieces.append((run[start:begin], False))
        pieces.append((match.group(), True))
        start = end
        match = asking.search(run, end)
    if start < len(run):
        pieces.append((run[start:], False))
    return pieces if changes else []


def _spans(run: str) -> list[tuple[int, int]]:
    """The (start, end) of each word of the run's dictionary cut."""
    spans: list[tuple[int, int]] = []
    position = 0
    for word in _cut(run):
        spans.append((position, position + len(word)))
        position += len(word)
    return spans


def _covered(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the dictionary's words over [start, end) are all of two or more characters and one of
    them reaches past it."""
    over = [(a, b) for a, b in spans if a < end and b > start]
    return all(b - a >= 2 for a, b in over) and any(a < start or b > end for a, b in over)


@functools.cache
def _asking(question_words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern of the question words of two or more characters, the longest first (never matches
    when there are none)."""
    found = sorted((w for w in question_words if len(w) >= 2), key=lambda w: (-len(w), w))
    return re.compile("|".join(map(re.escape, found)) if found else "(?!)")


@functools.lru_cache(maxsize=1024)
def dictionary_words(run: str) -> tuple[str, ...]:
    """The run cut into dictionary words only (no guessed words: 图片尺寸 → 图片, 尺寸)."""
    return tuple(dict.fromkeys(word for word in _cut(run) if word.strip()))


@functools.lru_cache(maxsize=1024)
def _cut(run: str) -> tuple[str, ...]:
    """The segmenter's cut of the run into dictionary words, in order, as it gives them."""
    return tuple(_rjieba().cut(run, False))  # type: ignore[attr-defined]
