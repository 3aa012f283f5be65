"""The criterion `scripts/train_revisions.py` chooses the revision model's threshold by: over the
pooled out-of-fold predictions, the grid threshold leaving the fewest wrong memory states, a missed
revision (two contradictory rules stay active) and a wrong supersede (a right rule retired) costing
one each; ties to the lower threshold. Small synthetic folds, through the script's function."""

from __future__ import annotations

import numpy as np

from tests.support.scripts import load_script

train_revisions = load_script("scripts/train_revisions.py")


def _fold(*groups: tuple[int, float, int]) -> tuple[np.ndarray, np.ndarray]:
    """(revises?, the revision model's probability, how many such pairs) → truth, scores."""
    truth = [y for y, _, n in groups for _ in range(n)]
    scores = [s for _, s, n in groups for _ in range(n)]
    return np.array(truth), np.array(scores)


def test_the_threshold_leaves_the_fewest_wrong_memory_states() -> None:
    """At 0.50–0.65: 4 right, 0 wrong, 3 missed (3 errors, the best F0.5); at 0.35–0.45: 7 right,
    2 wrong, 0 missed (2 errors); at 0.30 and below a third wrong one."""
    truth, scores = _fold((1, 0.65, 4), (1, 0.45, 3), (0, 0.45, 2), (0, 0.32, 1), (0, 0.1, 5))
    same = np.zeros(len(truth))
    assert train_revisions.choose_threshold(truth, scores, same, 0.9) == 0.35


def test_the_subject_model_alone_supersedes_at_every_threshold() -> None:
    """Two wrong pairs the subject model finds the same subject are superseded whatever the revision
    model gives them (0.45): above 0.45 they stay wrong and the revision is missed (3 errors), at
    0.30–0.45 the revision is caught (2), at 0.25 and below a third wrong one."""
    truth, scores = _fold((0, 0.45, 2), (1, 0.45, 1), (0, 0.25, 1))
    same = np.array([0.95, 0.95, 0.1, 0.1])
    assert train_revisions.choose_threshold(truth, scores, same, 0.9) == 0.30


def test_equal_errors_go_to_the_lower_threshold() -> None:
    """One right and one wrong at 0.40: below it a missed revision is traded for a wrong supersede."""
    truth, scores = _fold((1, 0.42, 1), (0, 0.42, 1))
    same = np.zeros(len(truth))
    assert train_revisions.choose_threshold(truth, scores, same, 0.9) == 0.20
