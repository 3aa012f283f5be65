"""Train a clause model: does a clause boundary of a statement sentence part two memories?

    .venv/bin/python scripts/train_clauses.py --report         # grouped cross-validation
    .venv/bin/python scripts/train_clauses.py --out /tmp/clause_model.json
    .venv/bin/python scripts/train_clauses.py --without k1 --out /tmp/c.json --threshold 0.4
    .venv/bin/python scripts/train_clauses.py --pauses --report   # pauses of dictation cut too

The offline extractor uses no clause model (docs/quality.md, the clause split): out of fold it
parts few sentences and half of them wrongly. The model file is written where `--out` says, for
experiments; the package reads no clause model.

Training data: `quality.clause_data`'s boundaries (with `--pauses`, its pauses of dictation too)
of every realistic session the sentence reader learns from (`quality.realistic.training_parts`: the
manifest's dev part, `test/` and `measured/`).
The model is a logistic regression (features seen fewer than MIN_COUNT times dropped, classes
weighed as they come). Its threshold is the one on GRID with the least cost over the pooled
out-of-fold predictions of FOLDS folds by author (every FOLDS-th author of the sorted list held out),
a wrong split costing WRONG_SPLIT_COST missed ones: a missed split leaves one rule inside another, a
wrong one stores half a rule as a memory of its own. `--report` also prints, per fold, the confusion
of that fold at the threshold chosen on the other folds' out-of-fold predictions alone (the figure a
fresh author would see), and the right, wrong and missed splits of each mark at 0.5, 0.7 and 0.9.

Needs scikit-learn (the `test` extra). Deterministic: the same files give byte-identical weights.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from train_joining import dumps, part_dir

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.reader import default_reader_model
from autopatch_j.memory.subjects import default_subject_model
from autopatch_j.quality.clause_data import ClauseBoundary, session_boundaries
from autopatch_j.quality.realistic import training_digests, training_parts

C = 0.3
MIN_COUNT = 3
FOLDS = 5
WRONG_SPLIT_COST = 3
GRID = tuple(round(0.05 * n, 2) for n in range(4, 20))
FORMAT = 1


def probability(bias: float, weights: dict[str, float], features: dict[str, float]) -> float:
    score = bias + sum(weights.get(k, 0.0) * v for k, v in features.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, score))))


def labelled(directory: Path, without: list[str], *, pauses: bool = False) -> list[ClauseBoundary]:
    subjects, reader, lexicon = default_subject_model(), default_reader_model(), default_lexicon()
    out: list[ClauseBoundary] = []
    for part in training_parts(directory).values():
        for session in part.sessions:
            author = part.authors[session.id]
            if author not in without:
                out.extend(session_boundaries(session, author, subjects, reader, lexicon, pauses=pauses))
    return out


def fit(data: list[ClauseBoundary]) -> tuple[float, dict[str, float]]:
    counts: Counter[str] = Counter(k for b in data for k in b.features if "=" in k)
    kept = [{k: v for k, v in b.features.items() if "=" not in k or counts[k] >= MIN_COUNT} for b in data]
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform(kept)
    model = LogisticRegression(C=C, max_iter=5000).fit(matrix, [int(b.two) for b in data])
    names = vectorizer.get_feature_names_out()
    weights = {str(n): round(float(w), 4) for n, w in zip(names, model.coef_[0], strict=True) if abs(w) >= 1e-4}
    return round(float(model.intercept_[0]), 4), weights


def folds_of(data: list[ClauseBoundary]) -> dict[str, int]:
    authors = sorted({b.author for b in data})
    return {a: n % FOLDS for n, a in enumerate(authors)}


def cross_validated(data: list[ClauseBoundary]) -> list[float]:
    """Out-of-fold probabilities, FOLDS folds by author."""
    fold_of = folds_of(data)
    out = [0.0] * len(data)
    for fold in range(FOLDS):
        bias, weights = fit([b for b in data if fold_of[b.author] != fold])
        for n, b in enumerate(data):
            if fold_of[b.author] == fold:
                out[n] = probability(bias, weights, b.features)
    return out


def confusion(data: list[ClauseBoundary], probabilities: list[float], threshold: float) -> tuple[int, int, int, int]:
    """(right splits, wrong splits, missed splits, right keeps) at `threshold`."""
    tp = sum(1 for b, q in zip(data, probabilities, strict=True) if q >= threshold and b.two)
    fp = sum(1 for b, q in zip(data, probabilities, strict=True) if q >= threshold and not b.two)
    fn = sum(1 for b, q in zip(data, probabilities, strict=True) if q < threshold and b.two)
    return tp, fp, fn, len(data) - tp - fp - fn


def chosen(data: list[ClauseBoundary], probabilities: list[float]) -> float:
    """The threshold of GRID with the least cost (ties: the higher threshold)."""

    def cost(t: float) -> tuple[int, float]:
        _, fp, fn, _ = confusion(data, probabilities, t)
        return WRONG_SPLIT_COST * fp + fn, -t

    return min(GRID, key=cost)


def report(data: list[ClauseBoundary], probabilities: list[float]) -> None:
    for t in GRID:
        tp, fp, fn, _ = confusion(data, probabilities, t)
        precision = tp / (tp + fp) if tp + fp else 0.0
        print(f"threshold {t:.2f}: split {tp + fp} (right {tp}, wrong {fp}, precision {precision:.3f}), missed {fn}")
    fold_of = folds_of(data)
    total = [0, 0, 0, 0]
    for fold in range(FOLDS):
        inside = [n for n, b in enumerate(data) if fold_of[b.author] == fold]
        outside = [n for n, b in enumerate(data) if fold_of[b.author] != fold]
        t = chosen([data[n] for n in outside], [probabilities[n] for n in outside])
        counts = confusion([data[n] for n in inside], [probabilities[n] for n in inside], t)
        total = [x + y for x, y in zip(total, counts, strict=True)]
        print(f"fold {fold}: threshold {t:.2f} (chosen on the other folds): right/wrong/missed/kept {counts}")
    print(f"held-out folds pooled: right/wrong/missed/kept {tuple(total)} of {len(data)} boundaries")
    marks = sorted({k for b in data for k in b.features if k.startswith("mark=")})
    for mark in marks:
        inside = [n for n, b in enumerate(data) if mark in b.features]
        for t in (0.5, 0.7, 0.9):
            tp, fp, fn, _ = confusion([data[n] for n in inside], [probabilities[n] for n in inside], t)
            print(f"{mark} at {t:.2f}: {len(inside)} boundaries, right {tp}, wrong {fp}, missed {fn}")


def train(directory: Path, without: list[str], *, pauses: bool = False) -> dict[str, Any]:
    data = labelled(directory, without, pauses=pauses)
    probabilities = cross_validated(data)
    threshold = chosen(data, probabilities)
    tp, fp, fn, tn = confusion(data, probabilities, threshold)
    bias, weights = fit(data)
    digests = training_digests(directory)
    digests.update({f"realistic/{a}": "left out" for a in without})
    return {
        "format": FORMAT,
        "bias": bias,
        "weights": weights,
        "threshold": threshold,
        "boundaries": len(data),
        "two": sum(1 for b in data if b.two),
        "cross_validated": {"right_splits": tp, "wrong_splits": fp, "missed_splits": fn, "right_keeps": tn},
        "trained_on": digests,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--without", action="append", default=[], help="leave this realistic author out")
    parser.add_argument("--out", type=Path, help="where to write the model")
    parser.add_argument("--report", action="store_true", help="only print the cross-validated grid")
    parser.add_argument("--threshold", type=float, help="write this threshold instead of the chosen one")
    parser.add_argument("--pauses", action="store_true", help="cut at pauses of dictation too (clause_cuts)")
    args = parser.parse_args(argv)
    directory = part_dir()
    if args.report:
        data = labelled(directory, args.without, pauses=args.pauses)
        print(f"{len(data)} boundaries, {sum(1 for b in data if b.two)} of them two memories")
        report(data, cross_validated(data))
        return 0
    if args.out is None:
        parser.error("--out is required to write a model")
    model = train(directory, args.without, pauses=args.pauses)
    if args.threshold is not None:
        model["threshold"] = args.threshold
    args.out.write_text(dumps(model), encoding="utf-8")
    print(f"{args.out}: {model['boundaries']} boundaries, threshold {model['threshold']}, {model['cross_validated']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
