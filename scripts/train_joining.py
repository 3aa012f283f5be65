"""Train the joining model (`memory/joining.py`): are two statements of one user turn one memory?

    .venv/bin/python scripts/train_joining.py                  # fit, write src/.../joining_model.json
    .venv/bin/python scripts/train_joining.py --report         # grouped cross-validation only
    .venv/bin/python scripts/train_joining.py --without k1 --without k2 --out /tmp/j.json
    .venv/bin/python scripts/train_joining.py --threshold 0.65     # this point of GRID, not the least cost

Training data: `quality.joining_data`'s pairs of every realistic session the sentence reader learns
from (`quality.realistic.training_parts`: the manifest's dev part, `test/` and `measured/`) and the
labelled pairs of `eval/corpus/joining_fixes.json` (our own wording, each of weight FIX_WEIGHT, in
every fold's training and never in its evaluation). The model is a logistic
regression (features seen fewer than MIN_COUNT times dropped); its threshold is the one on GRID with
the least cost over the pooled out-of-fold predictions of FOLDS folds by author (every FOLDS-th
author of the sorted list held out), a wrong join costing WRONG_JOIN_COST missed ones: a missed join
leaves a second memory that says the same thing, a wrong one hides a rule inside another, where it
cannot be superseded or forgotten alone.

Needs scikit-learn (the `test` extra). Deterministic: the same files give byte-identical weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import refit_inputs
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from autopatch_j.memory.joining import FORMAT, MODEL_FILE, JoiningModel
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.subjects import default_subject_model
from autopatch_j.quality.joining_data import JOINING_FIXES, JoiningPair, fix_pairs, session_pairs
from autopatch_j.quality.realistic import find_checkout_part, sha256_of, training_digests, training_parts

C = 1.0
# lbfgs runs to a gradient this small, so the optimum (not where the solver stopped) is what is
# shipped and another CPU's BLAS refits it to the same rounded weights.
SOLVER_TOL = 1e-10
MIN_COUNT = 3
FOLDS = 5
WRONG_JOIN_COST = 2
FIX_WEIGHT = 3.0
GRID = tuple(round(0.05 * n, 2) for n in range(6, 17))
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / MODEL_FILE


def labelled_pairs(directory: Path, without: list[str]) -> list[JoiningPair]:
    subjects, lexicon = default_subject_model(), default_lexicon()
    pairs: list[JoiningPair] = []
    for part in training_parts(directory).values():
        for session in part.sessions:
            author = part.authors[session.id]
            if author not in without:
                pairs.extend(session_pairs(session, author, subjects, lexicon))
    return pairs


def fixes_of(directory: Path) -> list[JoiningPair]:
    return fix_pairs(directory.parent / "corpus" / JOINING_FIXES, default_subject_model(), default_lexicon())


def fit(pairs: list[JoiningPair], fixes: list[JoiningPair]) -> tuple[float, dict[str, float]]:
    every = [*pairs, *fixes]
    counts: Counter[str] = Counter(k for p in every for k in p.features if "=" in k)
    kept = [{k: v for k, v in p.features.items() if "=" not in k or counts[k] >= MIN_COUNT} for p in every]
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform(kept)
    weights_of = [1.0] * len(pairs) + [FIX_WEIGHT] * len(fixes)
    model = LogisticRegression(C=C, max_iter=5000, tol=SOLVER_TOL).fit(
        matrix, [int(p.one) for p in every], sample_weight=weights_of
    )
    names = vectorizer.get_feature_names_out()
    weights = {str(n): round(float(w), 4) for n, w in zip(names, model.coef_[0], strict=True) if abs(w) >= 1e-4}
    return round(float(model.intercept_[0]), 4), weights


def cross_validated(pairs: list[JoiningPair], fixes: list[JoiningPair]) -> list[float]:
    """Out-of-fold probabilities, FOLDS folds by author."""
    authors = sorted({p.author for p in pairs})
    fold_of = {a: n % FOLDS for n, a in enumerate(authors)}
    out = [0.0] * len(pairs)
    for fold in range(FOLDS):
        train = [p for p in pairs if fold_of[p.author] != fold]
        bias, weights = fit(train, fixes)
        model = JoiningModel(bias=bias, weights=weights, threshold=0.5)
        for n, p in enumerate(pairs):
            if fold_of[p.author] == fold:
                out[n] = model.probability(p.features)
    return out


def grid_report(pairs: list[JoiningPair], probabilities: list[float]) -> list[tuple[float, float, int, int]]:
    """(threshold, accuracy, wrong joins, missed joins) at each threshold of GRID."""
    rows = []
    for threshold in GRID:
        wrong = sum(1 for p, q in zip(pairs, probabilities, strict=True) if q >= threshold and not p.one)
        missed = sum(1 for p, q in zip(pairs, probabilities, strict=True) if q < threshold and p.one)
        rows.append((threshold, 1 - (wrong + missed) / len(pairs), wrong, missed))
    return rows


def train(directory: Path, without: list[str], threshold: float | None = None) -> dict[str, Any]:
    """The model fitted on every pair; its threshold `threshold` when given (a point of GRID), else
    the one of least cross-validated cost. The cross-validated record is the chosen point's."""
    pairs, fixes = labelled_pairs(directory, without), fixes_of(directory)
    rows = grid_report(pairs, cross_validated(pairs, fixes))
    if threshold is None:
        chosen = min(rows, key=lambda r: (WRONG_JOIN_COST * r[2] + r[3], r[0]))
    else:
        chosen = next(r for r in rows if abs(r[0] - threshold) < 1e-9)
    threshold, accuracy, wrong, missed = chosen
    bias, weights = fit(pairs, fixes)
    digests = training_digests(directory)
    digests["corpus/" + JOINING_FIXES] = sha256_of(directory.parent / "corpus" / JOINING_FIXES)
    digests.update({f"realistic/{a}": "left out" for a in without})
    return {
        "format": FORMAT,
        "bias": bias,
        "weights": weights,
        "threshold": threshold,
        "pairs": len(pairs),
        "fixes": len(fixes),
        "cross_validated": {"accuracy": round(accuracy, 4), "wrong_joins": wrong, "missed_joins": missed},
        "trained_on": digests,
    }


def dumps(model: dict[str, Any]) -> str:
    return json.dumps(model, ensure_ascii=False, sort_keys=True, indent=0) + "\n"


def part_dir() -> Path:
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        raise SystemExit("No realistic part found (run from a checkout).")
    return directory


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without", action="append", default=[], help="leave this realistic author out")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the model")
    parser.add_argument("--report", action="store_true", help="only print the cross-validated grid")
    parser.add_argument("--threshold", type=float, default=None, help=f"use this point of the grid {GRID}")
    args = parser.parse_args(argv)
    if args.threshold is not None and not any(abs(g - args.threshold) < 1e-9 for g in GRID):
        parser.error(f"--threshold must be a point of the grid {GRID}")
    directory = part_dir()
    if args.report:
        pairs = labelled_pairs(directory, args.without)
        for threshold, accuracy, wrong, missed in grid_report(pairs, cross_validated(pairs, fixes_of(directory))):
            print(f"threshold {threshold:.2f}: accuracy {accuracy:.3f}, wrong joins {wrong}, missed joins {missed}")
        return 0
    model = train(directory, args.without, args.threshold)
    args.out.write_text(dumps(model), encoding="utf-8")
    refit_inputs.record(args.out)
    print(f"{args.out}: {model['pairs']} pairs, threshold {model['threshold']}, {model['cross_validated']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
