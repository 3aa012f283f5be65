"""Word classes and categories of the lexicon compiled into regular expressions: zh
entries as substrings, en entries on word boundaries (optionally in every regular form of their
head word), `{class}` references inside structures, each category compiled on first use."""

from __future__ import annotations

import re
from typing import Any

from autopatch_j.memory.sentences import fold

_CLASS_REF = re.compile(r"\{([a-z_]+)\}")
_VOWELS = "aeiou"


def inflections(word: str) -> list[str]:
    """The regular English forms of a verb or noun ("drop" → drops, dropped, dropping; "standardize"
    → standardizes, standardized, standardizing; "policy" → policies): enough for a word class to
    meet "we're standardizing on", "dropped support", "trade-offs" without listing each form."""
    if len(word) < 2 or not word.replace("-", "").isalpha() or not word.isascii():
        return [word]
    forms = [word]
    if len(word) == 2:  # go → goes, going
        forms += [word + "es", word + "ing"] if word.endswith("o") else []
    elif word.endswith("e"):
        forms += [word + "s", word + "d", word[:-1] + "ing"]
    elif word.endswith("y") and word[-2] not in _VOWELS:
        forms += [word[:-1] + "ies", word[:-1] + "ied", word + "ing"]
    elif word.endswith(("s", "sh", "ch", "x", "z")):
        forms += [word + "es", word + "ed", word + "ing"]
    else:
        forms += [word + "s", word + "ed", word + "ing"]
        if word[-1] not in _VOWELS + "wxy" and word[-2] in _VOWELS and word[-3] not in _VOWELS:
            forms += [word + word[-1] + "ed", word + word[-1] + "ing"]  # drop → dropped, stop → stopping
    return forms


def _english_entry(entry: str, inflect: bool) -> str:
    """One en entry as a regex source: itself, or with its head word (the first) in every regular
    form, written compactly as the forms' common prefix and a group of endings (`drop(?:ped|s|)`)."""
    folded = fold(entry)
    head, _, rest = folded.partition(" ")
    forms = inflections(head) if inflect else [head]
    tail = re.escape(" " + rest) if rest else ""
    if len(forms) == 1:
        return re.escape(folded)
    stem = forms[0][: min(len(f) for f in forms)]
    while not all(f.startswith(stem) for f in forms):
        stem = stem[:-1]
    endings = sorted({form[len(stem) :] for form in forms}, key=len, reverse=True)  # the empty ending last
    return re.escape(stem) + "(?:" + "|".join(re.escape(e) for e in endings) + ")" + tail


def alternation(spec: dict[str, Any], classes: dict[str, str]) -> str:
    """One regex source for a class or category: its patterns with every `{class}` replaced by that
    class, then zh entries as substrings and en entries on word boundaries (longest first). A spec
    with `"inflect": true` matches the regular forms of each en entry's head word too."""
    zh = sorted((re.escape(fold(p)) for p in spec.get("zh", [])), key=len, reverse=True)
    inflect = bool(spec.get("inflect"))
    en = [_english_entry(p, inflect) for p in sorted(set(spec.get("en", [])), key=lambda p: len(fold(p)), reverse=True)]
    # Structures first: where a structure and a listed word start at the same place, the structure
    # (the longer match) is what `blank` removes ("fine by me" before "fine").
    parts = [_CLASS_REF.sub(lambda m: _class(classes, m.group(1)), p) for p in spec.get("patterns", [])]
    if zh:
        parts.append("|".join(zh))
    if en:  # one pair of word boundaries around the whole English list (cheaper to compile)
        parts.append(r"(?<![a-z0-9'])(?:" + "|".join(en) + r")(?![a-z0-9])")
    return "|".join(f"(?:{p})" for p in parts)


def _class(classes: dict[str, str], name: str) -> str:
    if name not in classes:
        raise ValueError(f"the lexicon names an unknown word class {{{name}}}")
    return f"(?:{classes[name]})"


class PhraseSet:
    """One lexicon category compiled into a single alternation, compiled on first use (a process
    that never extracts never pays for it)."""

    __slots__ = ("_regex", "name", "source")

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self._regex: re.Pattern[str] | None = None

    @classmethod
    def build(cls, name: str, spec: dict[str, Any], classes: dict[str, str] | None = None) -> PhraseSet:
        return cls(name, alternation(spec, classes or {}))

    @property
    def regex(self) -> re.Pattern[str] | None:
        if self._regex is None and self.source:
            self._regex = re.compile(self.source)
        return self._regex

    def search(self, folded: str) -> bool:
        regex = self.regex
        return regex is not None and regex.search(folded) is not None

    def blank(self, folded: str) -> str:
        """`folded` with every match replaced by a space."""
        regex = self.regex
        return folded if regex is None else regex.sub(" ", folded)
