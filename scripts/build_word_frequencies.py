"""Write src/autopatch_j/memory/text/frequencies.txt: general word frequencies for search weights.

Run by hand with the `wordfreq` package installed (a development tool only: it is ~58 MB and takes
seconds to load, so the product ships this small table instead):

    bash scripts/setup.sh tables && .venv/bin/python scripts/build_word_frequencies.py

Each line is `word<TAB>zipf×10` (Zipf: log10 of occurrences per billion words), for the most frequent
words of English and Chinese, folded like Memory folds text, the lines in key order: search reads the
file by bisection (memory/text/frequencies.py, sorted_table.py) and blends these with the store's own
term statistics (memory/search.py).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from word_table import write_table

WORDS_PER_LANGUAGE = 20_000
OUT = Path(__file__).resolve().parent.parent / "src/autopatch_j/memory/text/frequencies.txt"


def build() -> str:
    """The table's text (needs the wordfreq package, with jieba for its Chinese list)."""
    import wordfreq

    best: dict[str, int] = {}
    for language in ("en", "zh"):
        for word in wordfreq.top_n_list(language, WORDS_PER_LANGUAGE):
            folded = unicodedata.normalize("NFKC", word).casefold()
            if not folded.strip() or "\t" in folded:
                continue
            zipf = round(wordfreq.zipf_frequency(word, language) * 10)
            best[folded] = max(best.get(folded, 0), zipf)
    lines = [f"{word}\t{zipf}" for word, zipf in sorted(best.items())]  # key order: read by bisection
    return "\n".join(lines) + "\n"


def main() -> int:
    return write_table(build, OUT, rows="words", needs="the wordfreq package (and jieba): bash scripts/setup.sh tables")


if __name__ == "__main__":
    raise SystemExit(main())
