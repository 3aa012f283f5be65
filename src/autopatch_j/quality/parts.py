"""The bundled corpus parts, loaded by name: `dev` and `test` from their files (`corpus.PART_FILES`),
`generated` from the paraphrase generator."""

from __future__ import annotations

from collections import Counter

from autopatch_j.quality.corpus import (
    MIN_CASES,
    PART_FILES,
    PARTS,
    Corpus,
    CorpusError,
    bundled_file,
    bundled_part_exists,
    parse_corpus,
)
from autopatch_j.quality.paraphrase import generated_corpus


def load_part(part: str) -> Corpus:
    """One bundled part: `dev` (its files merged, ids kept), `test` (a smaller floor: it is held out,
    not padded) or `generated`."""
    if part == "generated":
        return generated_corpus()
    if part not in PART_FILES:
        raise CorpusError(f"Unknown corpus part {part!r}; choose one of {', '.join(PARTS)}.")
    if not bundled_part_exists(part):
        raise CorpusError(
            f"This build has no {part} part: {', '.join(PART_FILES[part])} is not bundled "
            "(the held-out test part is written by a spec-only author and added after the rules are frozen)."
        )
    files = [
        parse_corpus(
            bundled_file(name).read_text(encoding="utf-8"), min_cases=MIN_CASES if n == 0 and part == "dev" else 1
        )
        for n, name in enumerate(PART_FILES[part])
    ]
    merged = files[0].model_copy(update={"cases": [case for corpus in files for case in corpus.cases]})
    duplicates = [i for i, n in Counter(case.id for case in merged.cases).items() if n > 1]
    if duplicates:
        raise CorpusError(f"The {part} part repeats case ids across its files: {', '.join(sorted(duplicates))}.")
    return merged
