"""General word frequencies (`frequencies.txt`, scripts/build_word_frequencies.py): the Zipf frequency
× 10 of the 20,000 most frequent English and Chinese words (folded), one `word<TAB>zipf×10` line
each, in key order, read by bisection (sorted_table.py): a search weighs a few words, so a process
reads their lines only, never the 39,000 of them."""

from __future__ import annotations

import functools

from autopatch_j.memory.text.sorted_table import SortedTable

TABLE = SortedTable("autopatch_j.memory.text", "frequencies.txt")


@functools.lru_cache(maxsize=65536)  # a long-lived process asks the same words again
def zipf(word: str) -> int | None:
    """Zipf × 10 of `word` (None for a word not listed)."""
    if not word or "\n" in word or "\t" in word:
        return None  # no line has such a key
    value = TABLE.get(word)
    return None if value is None else int(value)
