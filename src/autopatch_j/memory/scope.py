"""What an utterance is about: one thing in view now, or a class of things for later work.

A one-off request names one thing the session has in view ("lease.go too, bump that log line",
"steer.rs 那个 import 也删掉") — a word pointing at it or a name the assistant's answer before it
just used — and asks for it now; a standing rule quantifies over a class ("every new endpoint",
"所有接口统一") or says it holds later. An assistant's question offering to act itself ("Should I
delete `export-tmp/` too?", "要我直接发出去吗？") is a single action unless it names a class. The
words live in `scope_words.json`; `scope_keys` turns them into feature names for the learned
readers (the sentence reader, the assent model), which weigh them — no gate decides on them alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Set
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.ordinals import CODE_SPAN
from autopatch_j.memory.sentences import fold

WORDS_FILE = "scope_words.json"
_FIELDS = {"note", "pointers", "classes", "counts", "offers"}
# A name of a thing: a code span, a path or file name, an identifier with `_`, `.`, `/`, `-` or `::`.
_NAME = re.compile(r"[A-Za-z0-9]+(?:(?:::|[._/-])[A-Za-z0-9]+)+|[A-Za-z]+_[A-Za-z0-9_]*|[a-z]+[A-Z][a-z][A-Za-z0-9]*")


@dataclass(frozen=True, slots=True)
class ScopeWords:
    pointers: re.Pattern[str]
    classes: re.Pattern[str]
    counted: re.Pattern[str]  # a class word with a count or pointer after it: a set in view
    offers: re.Pattern[str]


@lru_cache(maxsize=1)
def scope_words() -> ScopeWords:
    """The words of `scope_words.json`, one pattern per field (Latin words at word boundaries)."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath(WORDS_FILE).read_text("utf-8"))
    if set(data) != _FIELDS or any(set(data[k]) - {"zh", "en"} for k in data if k != "note"):
        raise MemoryEngineError(f"{WORDS_FILE} holds an unknown field or language.")

    def pattern(key: str) -> re.Pattern[str]:
        words = sorted({fold(w) for ws in data[key].values() for w in ws}, key=len, reverse=True)
        return re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in words))

    counted = re.compile(
        rf"(?:{pattern('classes').pattern})\s*(?:{pattern('counts').pattern}|{pattern('pointers').pattern})"
    )
    return ScopeWords(
        pointers=pattern("pointers"), classes=pattern("classes"), counted=counted, offers=pattern("offers")
    )


def names(text: str) -> set[str]:
    """The names of things in `text`: code spans and identifier-like words, folded."""
    found = {fold(m.group(0)).strip("`").strip() for m in CODE_SPAN.finditer(text)}
    found.update(fold(m.group(0)) for m in _NAME.finditer(CODE_SPAN.sub(" ", text)))
    return {n for n in found if n}


def scope_keys(sentence: str, *, named_before: Set[str] = frozenset()) -> list[str]:
    """Feature names for `sentence`'s scope: `scope_class` (it quantifies over a class or holds for
    later; "all three", "all of them" count a set in view instead), `scope_one` (it points at one
    thing, names a thing or counts a set, and names no class), `names_before` (it names a thing of
    `named_before`, the `names` of the assistant's answer before it, read once per turn), `offer` (it
    offers the speaker's own action), and `offer_one` / `offer_class` for an offer by its scope."""
    words = scope_words()
    folded = fold(sentence)
    own = names(sentence)
    keys: list[str] = []
    is_class = len(words.classes.findall(folded)) > len(words.counted.findall(folded))
    if is_class:
        keys.append("scope_class")
    elif own or words.pointers.search(folded) or words.counted.search(folded):
        keys.append("scope_one")
    if own & named_before:
        keys.append("names_before")
    if words.offers.search(folded):
        keys.append("offer")
        keys.append("offer_class" if is_class else "offer_one")
    return keys
