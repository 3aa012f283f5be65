"""Learned term necessity (`necessity.txt`, fitted by scripts/train_necessity.py): how much of its
weight a query key keeps, learned from realistic (question, memory) pairs.

A line `query_key<TAB>factor<TAB>asked<TAB>held` says: of `asked` questions holding `query_key`, the
memory asked for held it (or one of its alternatives) in `held`; smoothed, relative to every key's
share, that gives `factor` < 1. Search multiplies the key's weight by it, so the ways of asking a
question ("long" in "how long", "configured", "几个", "多长") weigh less than what the memory says;
a key the table does not list keeps its whole weight. Read once, on the first query. The table is
data: it is refitted from the realistic pairs, never edited.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources

_installed: list[Mapping[str, float]] = []


def parse(text: str) -> dict[str, float]:
    """The table of a file's text: each query key with its factor."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, factor, *_ = line.split("\t")
            found[key] = float(factor)
    return found


@functools.cache
def _packaged() -> dict[str, float]:
    return parse(resources.files("autopatch_j.memory.text").joinpath("necessity.txt").read_text(encoding="utf-8"))


def factor(key: str) -> float:
    """The share of its weight a query key keeps (1.0 for a key the table does not list)."""
    return (_installed[-1] if _installed else _packaged()).get(key, 1.0)


def install(table: Mapping[str, float] | None) -> None:
    """Evaluation only: use `table` instead of the packaged file (None: the packaged file again;
    `{}`: every key whole). The caller forgets what it derived from the old one
    (`index.use_necessity` does both)."""
    _installed.clear()
    if table is not None:
        _installed.append(dict(table))
