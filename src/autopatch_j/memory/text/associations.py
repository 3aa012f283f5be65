"""Learned term associations (`associations.txt`, fitted by scripts/train_associations.py): which
index keys of a memory a query key asks for, learned from realistic (question, memory) pairs.

A line `query_key<TAB>memory_key<TAB>precision` says: among the memories that hold `memory_key` but
not `query_key`, shown beside a question holding `query_key`, about `precision` of them (smoothed) were
the memory the question asked for, over several questions by several authors (`background` → basic,
`多长` → length, `long` → retent). In a query of two or more terms a key's associations count as
holding it, like its thesaurus members; they are read once, on the first query. The table is data: a miss is fixed by
adding realistic pairs and refitting, never by editing it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from importlib import resources

_installed: list[Mapping[str, tuple[str, ...]]] = []


def parse(text: str) -> dict[str, tuple[str, ...]]:
    """The table of a file's text: each query key with its memory keys, in file order."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        query_key, memory_key, _ = line.split("\t")
        found.setdefault(query_key, []).append(memory_key)
    return {key: tuple(keys) for key, keys in found.items()}


@functools.cache
def _packaged() -> dict[str, tuple[str, ...]]:
    raw = resources.files("autopatch_j.memory.text").joinpath("associations.txt").read_text(encoding="utf-8")
    return parse(raw)


def associated(key: str) -> tuple[str, ...]:
    """The memory keys a query key asks for (none for a key the table does not hold)."""
    table = _installed[-1] if _installed else _packaged()
    return table.get(key, ())


def install(table: Mapping[str, Sequence[str]] | None) -> None:
    """Evaluation only: use `table` instead of the packaged file (None: the packaged file again).
    The caller forgets cached query analyses (`index.use_associations` does both)."""
    _installed.clear()
    if table is not None:
        _installed.append({key: tuple(keys) for key, keys in table.items()})
