"""Write src/autopatch_j/memory/text/frequencies.txt: general word frequencies for search weights.

Run by hand with the `wordfreq` package installed (a development tool only: it is ~58 MB and takes
seconds to load, so the product ships this small table instead):

    pip install wordfreq && python scripts/build_word_frequencies.py

Each line is `word<TAB>zipf×10` (Zipf: log10 of occurrences per billion words), for the most frequent
words of English and Chinese, folded like Memory folds text. Search blends these with the store's own
term statistics (memory/ranking.py).
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

WORDS_PER_LANGUAGE = 20_000
OUT = Path(__file__).resolve().parent.parent / "src/autopatch_j/memory/text/frequencies.txt"


def main() -> int:
    try:
        import wordfreq
    except ImportError:
        print("this script needs the wordfreq package: pip install wordfreq", file=sys.stderr)
        return 1
    best: dict[str, int] = {}
    for language in ("en", "zh"):
        for word in wordfreq.top_n_list(language, WORDS_PER_LANGUAGE):
            folded = unicodedata.normalize("NFKC", word).casefold()
            if not folded.strip() or "\t" in folded:
                continue
            zipf = round(wordfreq.zipf_frequency(word, language) * 10)
            best[folded] = max(best.get(folded, 0), zipf)
    lines = [f"{word}\t{zipf}" for word, zipf in sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} words → {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
