"""The corpus parts, loaded by name from a `CorpusFolder`: `dev` and `test` from their files
(`corpus.PART_FILES`), `generated` from the paraphrase generator (its vocabulary is in the folder too)."""

from __future__ import annotations

from collections import Counter

from autopatch_j.quality.corpus import (
    MIN_CASES,
    PART_FILES,
    PARTS,
    Corpus,
    CorpusError,
    CorpusFolder,
    checkout_or,
    parse_corpus,
)
from autopatch_j.quality.paraphrase import generated_corpus


def load_part(part: str, folder: CorpusFolder | None = None) -> Corpus:
    """One part of `folder` (the checkout's by default): `dev` (its files merged, ids kept), `test`
    (a smaller floor: it is held out, not padded) or `generated`."""
    folder = checkout_or(folder)
    if part == "generated":
        return generated_corpus(folder=folder)
    if part not in PART_FILES:
        raise CorpusError(f"Unknown corpus part {part!r}; choose one of {', '.join(PARTS)}.")
    if not folder.has_part(part):
        raise CorpusError(
            f"{folder.path} has no {part} part: {', '.join(PART_FILES[part])} is missing "
            "(the held-out test part is written by a spec-only author and added after the rules are frozen)."
        )
    files = [
        parse_corpus(
            folder.file(name).read_text(encoding="utf-8"), min_cases=MIN_CASES if n == 0 and part == "dev" else 1
        )
        for n, name in enumerate(PART_FILES[part])
    ]
    merged = files[0].model_copy(update={"cases": [case for corpus in files for case in corpus.cases]})
    duplicates = [i for i, n in Counter(case.id for case in merged.cases).items() if n > 1]
    if duplicates:
        raise CorpusError(f"The {part} part repeats case ids across its files: {', '.join(sorted(duplicates))}.")
    return merged
