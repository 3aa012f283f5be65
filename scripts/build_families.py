"""Write src/autopatch_j/memory/text/families.txt: English stems that are forms of one word.

Run by hand with the `lemminflect` and `wordfreq` packages installed (development tools, the pinned
`tables` extra that `test` includes; the product ships the small table this writes):

    bash scripts/setup.sh tables && .venv/bin/python scripts/build_families.py

The Snowball stemmer search compares English by (memory/words.py) joins regular forms (`deploys`,
`deployed` → deploy) but not irregular ones: `driven` stays `driven` beside `drive`, `kept` beside
`keep`, `built` beside `build`, `analyses` is `analys` beside `analysi`. Words: every English word of
wordfreq's list at Zipf frequency `MIN_ZIPF` or more, and every word of the realistic sessions'
memories (`eval/realistic/dev`, `test`, `measured`: the words memories are written in). Each word's
stem is joined with the stem of each of its lemmas (lemminflect's dictionary, every part of speech);
a line lists a stem and the stems it is joined with directly (no chains: `left` joins `leav`, and
`leaf` stays apart). Search reads it where a gloss meets the index (memory/text/bilingual.py): a
Chinese word's glosses ask for their stems' forms too (保留 → keep, kept).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from word_table import write_table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src/autopatch_j/memory/text/families.txt"
PARTS = ("dev", "test", "measured")
MIN_ZIPF = 3.0
WORD = re.compile(r"[a-z]+")


def memory_words() -> set[str]:
    """The Latin words of every memory of the realistic training parts."""
    found: set[str] = set()
    for part in PARTS:
        for path in sorted((ROOT / "eval/realistic" / part).glob("*/*.json")):
            for session in json.loads(path.read_text(encoding="utf-8"))["sessions"]:
                for memory in session["memories"]:
                    text = f"{memory['title']} {memory['content']} {memory.get('subject') or ''}".lower()
                    found.update(WORD.findall(text))
    return found


def build() -> str:
    """The table's text (needs the lemminflect and wordfreq packages)."""
    import lemminflect
    import wordfreq

    from autopatch_j.memory.words import stem  # Snowball, as search compares English

    listed = {
        word
        for word in wordfreq.get_frequency_dict("en")
        if WORD.fullmatch(word) and wordfreq.zipf_frequency(word, "en") >= MIN_ZIPF
    }
    joined: dict[str, set[str]] = {}
    for word in sorted(listed | memory_words()):
        if len(word) < 3:
            continue
        own = stem(word)
        for lemmas in lemminflect.getAllLemmas(word).values():
            for lemma in lemmas:
                other = stem(lemma.lower())
                if other != own and WORD.fullmatch(other) and len(other) >= 3:
                    joined.setdefault(own, set()).add(other)
                    joined.setdefault(other, set()).add(own)
    header = (
        "# English stems that are forms of one word (lemminflect's lemmas of wordfreq's and the realistic "
        "memories' words) via scripts/build_families.py: stem<TAB>the stems it is joined with"
    )
    # key order: search reads the file by bisection (memory/text/sorted_table.py)
    rows = [f"{key}\t{' '.join(sorted(others))}" for key, others in sorted(joined.items())]
    return "\n".join([header, *rows]) + "\n"


def main() -> int:
    return write_table(
        build, OUT, rows="stems", needs="the lemminflect and wordfreq packages: bash scripts/setup.sh tables"
    )


if __name__ == "__main__":
    raise SystemExit(main())
