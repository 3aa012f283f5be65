"""The short names a query's long name may be written as in a project's memories.

A project names its parts by short names — `mc-fw` for the motor controller firmware, `bms-fw` for
the battery management system's, `ble` for Bluetooth Low Energy — and an agent's question often uses
the long one (or the reverse). The short names are written by one rule of shape, no list of names:

- the **initials** of two or three consecutive informative words ("motor controller" → `mc`,
  "battery management system" → `bms`, "continuous integration" → `ci`);
- the initials of the two halves of a **compound word** whose halves are both ordinary English words
  of four letters or more (firmware → firm + ware → `fw`, database → `db`, bluetooth → `bt`), also
  when the compound is a Chinese word's gloss (固件 → firmware → `fw`).

An acronym's plural is the acronym: `PRs`, `GPUs`, `SDKs` (two or more capitals and a lower-case
`s`, as written before the fold) are keyed as `pr`, `gpu`, `sdk`, which the stemmer leaves plural
(`acronym_plurals`; `K8s` and `AWS` are not plurals).

Which of them a store holds is the store's own data: a short name counts as holding a query word
only where an indexed item holds it as a key (an identifier's part, `mc` of `mc-fw`, or a word), and
a query asks the store's statistics for it beside the word's other alternatives (search.py). The
initials of a run of words hold its **last** word only ("motor controller" → `mc` holds controller):
one short name is one term of the question, not one per word it abbreviates, so a question whose
only other words the memory lacks stays under the two-term floor. A short name that is itself an
ordinary word (`no`, `it`, `go`: general frequency ≥ `MAX_SHORT_ZIPF`) is never one, so "network
operations" does not ask for every memory saying "no".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence

from autopatch_j.memory.text import frequencies

#: The shortest half of a compound word, and the general frequency (Zipf × 10) each half must have.
MIN_HALF = 4
MIN_HALF_ZIPF = 30
#: A short name as frequent as this (Zipf × 10) in general text is an ordinary word, not a name.
MAX_SHORT_ZIPF = 50
#: The longest run of words whose initials are a short name.
MAX_WORDS = 3
#: An acronym's plural as written: two or more capitals (digits between) and a lower-case `s`.
_ACRONYM_PLURAL = re.compile(r"(?<![0-9A-Za-z])[A-Z][A-Z0-9]*[A-Z]s(?![0-9A-Za-z])")


def _zipf(word: str) -> int:
    """Zipf × 10 of `word` in general text (`frequencies.txt`, the table search.py weighs terms by);
    0 for a word not listed."""
    return frequencies.zipf(word) or 0


@functools.lru_cache(maxsize=8192)
def compound_halves(word: str) -> tuple[str, str] | None:
    """The two ordinary words a Latin word is written as (firmware → firm, ware), the split with the
    most frequent shorter half; None when no split has two listed halves of four letters or more."""
    if not word.isascii() or not word.isalpha() or len(word) < 2 * MIN_HALF:
        return None
    best: tuple[int, tuple[str, str]] | None = None
    for cut in range(MIN_HALF, len(word) - MIN_HALF + 1):
        head, tail = word[:cut], word[cut:]
        score = min(_zipf(head), _zipf(tail))
        if score >= MIN_HALF_ZIPF and (best is None or score > best[0]):
            best = (score, (head, tail))
    return None if best is None else best[1]


def _usable(short: str) -> bool:
    return len(short) >= 2 and _zipf(short) < MAX_SHORT_ZIPF


@functools.lru_cache(maxsize=8192)
def compound_initials(word: str) -> str:
    """The short name a compound word's halves spell (firmware → `fw`), or ''."""
    halves = compound_halves(word) if len(word) >= 2 * MIN_HALF else None
    short = halves[0][0] + halves[1][0] if halves is not None else ""
    return short if short and _usable(short) else ""


def short_names(run: Sequence[str]) -> list[tuple[str, ...]]:
    """For each word of a run of consecutive informative Latin words (folded), the short names it
    holds: the initials of every window of two or three words that ends with it, and its own compound
    halves' initials."""
    firsts = "".join([word[0] for word in run])
    names: list[tuple[str, ...]] = []
    for end, word in enumerate(run):
        found: tuple[str, ...] = ()
        for size in range(2, min(MAX_WORDS, end + 1) + 1):
            short = firsts[end + 1 - size : end + 1]
            if _zipf(short) < MAX_SHORT_ZIPF:
                found += (short,)
        if len(word) >= 2 * MIN_HALF:
            compound = compound_initials(word)
            if compound and compound not in found:
                found += (compound,)
        names.append(found)
    return names


def gloss_short_names(glosses: Iterable[str], stem: Callable[[str], str]) -> tuple[str, ...]:
    """The compound initials of the English words a Chinese word's glosses are the stems of (固件 →
    `firmwar` → firmware → `fw`): the word is the stem itself, or the stem with the `e` or `y` the
    stemmer took off, when it stems back to the gloss."""
    found: list[str] = []
    for gloss in glosses:
        for word in (gloss, gloss + "e", gloss[:-1] + "y" if gloss.endswith("i") else ""):
            halves = compound_halves(word) if word and stem(word) == gloss else None
            if halves is not None:
                if _usable(halves[0][0] + halves[1][0]):
                    found.append(halves[0][0] + halves[1][0])
                break
    return tuple(dict.fromkeys(found))


def acronym_plurals(text: str) -> frozenset[str]:
    """The acronym plurals of a text as the fold writes them (`PRs` → `prs`): words to key as their
    acronym (`prs` → `pr`), read before the fold casefolds them."""
    if "s" not in text:
        return frozenset()
    return frozenset(match.casefold() for match in _ACRONYM_PLURAL.findall(text))
