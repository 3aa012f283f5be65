"""How a search hit matched its query (`search.SearchHit.match`), from the hit's normalized metadata."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from typing import Literal

from autopatch_j.memory.index import text_keys, token_key
from autopatch_j.memory.text import TOKEN, fold, tokens

MatchType = Literal["exact", "prefix", "substring", "words", "content"]


def match_of(
    q: str,
    keys: frozenset[str],
    probes: Sequence[str],
    values: Sequence[str],
    *,
    lines: str | None = None,
    line: str | None = None,
    keysets: Sequence[tuple[str, frozenset[str]]] | None = None,
) -> MatchType:
    """How a hit matched, from its metadata normalized (`postings_cache.hit_metadata`): the whole
    query is its title, an alias or keyword (`exact`), starts one (`prefix`) or is inside one
    (`substring`); else some query term (`keys`, with their `probes_of`) is in its metadata (`words`)
    or only in its content (`content`). `lines` is the values each after a line break and `line` the
    query after one (computed when not given): normalized texts hold no line break, so the query is
    inside a value exactly when it is inside `lines`, and starts one when `line` is. `keysets` is each
    value with every key it holds (`keysets_of`, kept by the caller per hit item): then a value is
    tokenized never, and one whose keys miss every query key is not searched for probes."""
    if q in values:
        return "exact"
    if lines is None:
        lines = "\n" + "\n".join(values)
    if (line or "\n" + q) in lines:
        return "prefix"
    if q in lines:
        return "substring"
    if keysets is not None:  # some value holds a query key and a probe: the same as below, per value
        for value, held_keys in keysets:
            if not keys.isdisjoint(held_keys) and any(map(value.__contains__, probes)):
                return "words"
        return "content"
    # Only a value holding some key's probe is tokenized; no value holds one when their lines don't.
    # Its Latin keys first: they need no segmenter, and for an English question they decide.
    if any(map(lines.__contains__, probes)):
        held = [value for value in values if any(map(value.__contains__, probes))]
        if any(not keys.isdisjoint(latin_keys(value)) for value in held):
            return "words"
        if any(not keys.isdisjoint(value_keys(value)) for value in held):
            return "words"
    return "content"


def keysets_of(values: Sequence[str]) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each metadata value (normalized) with every key it holds: its Latin keys and all its keys, the
    two sets `match_of` compares with the query's keys."""
    return tuple((value, frozenset((*latin_keys(value), *value_keys(value)))) for value in values)


def probes_of(keys: Iterable[str]) -> tuple[str, ...]:
    """What a text holding a key holds: the key, without its last character when it has four or more
    (a stem's may differ: policy → polici, probe `polic`)."""
    return tuple({key[:-1] if len(key) > 3 else key for key in keys})


@functools.lru_cache(maxsize=32768)
def value_keys(value: str) -> tuple[str, ...]:
    """The index keys of a metadata value (normalized), kept per value."""
    return tuple(text_keys(value))


@functools.lru_cache(maxsize=32768)
def latin_keys(value: str) -> tuple[str, ...]:
    """The keys of `value_keys` that its Latin words and identifiers give, without the segmenter:
    the value's CJK runs (after the fold) are blanked, which leaves every other token as it was (no
    identifier or word holds a CJK character)."""
    folded = TOKEN.sub(_blank_cjk, fold(value))  # TOKEN is compiled already: another CJK class costs ~30 ms
    return tuple(key for key in map(token_key, tokens(folded, folded=True)) if key)


def _blank_cjk(match: re.Match[str]) -> str:
    return " " if match.group("cjk") else match.group()
