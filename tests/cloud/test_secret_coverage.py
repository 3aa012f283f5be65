"""Issue 10 item 6: redaction recall ≥ 99 % on every declared family, false positives ≤ 2 %, measured
on the labelled corpus of `secret_corpus.py` (the same figures `bench/secret_coverage.py` prints)."""

from __future__ import annotations

import pytest

from tests.cloud.secret_corpus import FAMILIES, Score, build, score

# the corpus is built and scored once (module fixture) (docs/testing.md)
pytestmark = pytest.mark.xdist_group("secret-coverage")

RECALL_TARGET = 0.99
FP_TARGET = 0.02


@pytest.fixture(scope="module")
def result() -> Score:
    return score(build())


def test_the_corpus_is_as_large_as_the_issue_asks(result: Score) -> None:
    assert len(FAMILIES) >= 30 and len(result.recall) == len(FAMILIES)
    assert result.literals >= 150
    assert result.benign_total >= 100


@pytest.mark.parametrize("family", [f.name for f in FAMILIES])
def test_recall_per_declared_family(result: Score, family: str) -> None:
    caught, total = result.recall[family]
    assert caught / total >= RECALL_TARGET, f"{family}: {caught}/{total}"


def test_false_positive_rate(result: Score) -> None:
    assert result.fp_rate <= FP_TARGET, result.false_positives
