"""The paraphrase generator (issue 11, item 3): size, determinism, held-out vocabulary, real pipeline."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from autopatch_j.memory.lexicon import LEXICON_FILE
from autopatch_j.memory.sentences import fold
from autopatch_j.quality.corpus import Corpus
from autopatch_j.quality.evaluate import evaluate
from autopatch_j.quality.paraphrase import generate, generated_corpus, held_out_words


def _lexicon_entries() -> set[str]:
    """Every verbatim phrase of lexicon.json (zh/en lists of every class, subject keywords and titles)."""
    data: Any = json.loads(resources.files("autopatch_j.memory").joinpath(LEXICON_FILE).read_text(encoding="utf-8"))
    entries: set[str] = set()

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            for name, value in node.items():
                walk(value, name)
        elif isinstance(node, list):
            for value in node:
                walk(value, key)
        elif isinstance(node, str) and key not in ("patterns", "key", "kind", "note", "anchor_blank_classes"):
            entries.add(fold(node).strip())

    walk(data)
    return entries


def test_at_least_500_positive_and_500_negative_distinct_utterances() -> None:
    utterances = generate()
    positives = [u for u in utterances if u.kind is not None]
    negatives = [u for u in utterances if u.kind is None]
    assert len(positives) >= 500 and len(negatives) >= 500
    assert len({u.turns for u in utterances}) == len(utterances)
    assert {u.language for u in utterances} == {"zh", "en"}
    assert {u.kind for u in positives} == {"user_preference", "project_decision"}


def test_the_seed_fixes_the_set() -> None:
    assert generate(seed=3, per_side=40) == generate(seed=3, per_side=40)
    assert generate(seed=3, per_side=40) != generate(seed=4, per_side=40)


def test_held_out_vocabulary_shares_no_entry_with_the_lexicon() -> None:
    overlap = {fold(w).strip() for w in held_out_words()} & _lexicon_entries()
    assert overlap == set()


def _thesaurus_entries() -> set[str]:
    """Every member of the search thesaurus (equivalents.json: synonym groups, narrower and broader terms)."""
    text = resources.files("autopatch_j.memory").joinpath("equivalents.json").read_text(encoding="utf-8")
    data: Any = json.loads(text)
    members = [m for group in data["groups"] for m in group]
    members += [m for entry in data["broader"] for m in (*entry["narrower"], *entry["broader"])]
    return {fold(m).strip() for m in members}


def test_held_out_vocabulary_shares_no_entry_with_the_search_thesaurus() -> None:
    """Issue 11, third round: the thesaurus is general vocabulary, never the generator's held-out words."""
    entries = _thesaurus_entries()
    assert len(entries) > 300
    overlap = {fold(w).strip() for w in held_out_words()} & entries
    assert overlap == set()


def test_generated_cases_are_valid_corpus_cases_with_exact_quotes() -> None:
    corpus = generated_corpus(per_side=60)
    assert isinstance(corpus, Corpus) and len(corpus.cases) == 120
    for case in corpus.cases:
        for memory in case.memories:
            for source in memory.sources:
                assert source.quote in getattr(case.turns[source.turn], source.role)


def test_a_sample_runs_through_the_real_pipeline_with_every_invariant(tmp_path: Any) -> None:
    report = evaluate(generated_corpus(per_side=12), mode="offline", seed=6, workdir=tmp_path)
    assert len(report.cases) == 24
    assert report.invariants_ok, report.invariants
    assert report.details["repair_requests_scanned"] >= 3 * 24
