"""Train the speech model (issue 11) on the dev part of the quality corpus, or cross-validate it.

    .venv/bin/python scripts/train_speech_model.py        # fit on every dev file, write speech_model.json
    .venv/bin/python scripts/train_speech_model.py --cv   # leave one file (one author) out at a time
    .venv/bin/python scripts/train_speech_model.py --without corpus_retired_test19.json --out /tmp/m.json
    .venv/bin/python scripts/train_speech_model.py --without realistic/r2 --out /tmp/m.json  # leave an author out

Training data: every dev file of the quality corpus, the ordinary-talk negatives, and the realistic
dev part of the checkout (`eval/realistic/`, one group per author, the prose sentences of each user
turn; `--no-realistic` leaves it out). The model records the sha256 of every file it was trained on.

Needs scikit-learn (the `test` extra); the package itself only reads the weights. The threshold is
chosen from the out-of-fold predictions of the cross-validation, never from a file being scored: the
lowest value on a grid at which the pooled out-of-fold precision over the corpus files reaches
TARGET_PRECISION and at most MAX_TALK_ADMITTED of the held-out ordinary talk that the model alone
decides is read as a rule.
Deterministic: the same dev files give the same weights.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import refit_inputs
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from autopatch_j.memory.lexicon import LEXICON_FILE, Lexicon, load_lexicon_file
from autopatch_j.memory.speech_model import FORMAT, MODEL_FILE, LinearModel, features
from autopatch_j.quality.realistic import find_checkout_part
from autopatch_j.quality.speech_data import (
    FIXES,
    NEGATIVES,
    Example,
    file_digests,
    fix_examples,
    load_realistic_part,
    negative_examples,
    part_examples,
    realistic_digest,
    realistic_examples,
)

C = 1.0
TARGET_PRECISION = 0.98
MAX_TALK_ADMITTED = 0.01
GRID = tuple(round(0.05 * n, 2) for n in range(6, 20))
MIN_WEIGHT = 0.01
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / MODEL_FILE
LEXICON = DEFAULT_OUT.with_name(LEXICON_FILE)


def _fit(examples: list[Example], target: list[int]) -> tuple[DictVectorizer, LogisticRegression]:
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform([features(e.text) for e in examples])
    return vectorizer, LogisticRegression(C=C, max_iter=5000).fit(matrix, target)


def _weights(vectorizer: DictVectorizer, model: LogisticRegression) -> dict[str, Any]:
    coef = model.coef_[0]
    names = vectorizer.get_feature_names_out()
    kept = {str(names[i]): round(float(coef[i]), 4) for i in np.argsort(names) if abs(coef[i]) >= MIN_WEIGHT}
    return {"bias": round(float(model.intercept_[0]), 4), "weights": kept}


def _predict(pair: tuple[DictVectorizer, LogisticRegression], examples: list[Example]) -> np.ndarray:
    """Scores as the package computes them: the pruned, rounded weights and `LinearModel`."""
    model = LinearModel.from_data(_weights(*pair))
    return np.array([model.probability(features(e.text)) for e in examples])


def fit_models(examples: list[Example]) -> dict[str, Any]:
    statements = [e for e in examples if e.states]
    return {
        "statement": _weights(*_fit(examples, [int(e.states) for e in examples])),
        "kind": _weights(*_fit(statements, [int(e.label == "project_decision") for e in statements])),
    }


def cross_validate(by_file: dict[str, list[Example]], negatives: list[Example]) -> tuple[float, list[str]]:
    """Leave one corpus file (one author) out at a time, training on the others and the `negatives`;
    returns the chosen threshold and the report lines."""
    truth: list[bool] = []
    scores: list[float] = []
    talk: list[float] = []  # out-of-fold scores of the ordinary talk, a slice held out with each file
    slices = {name: negatives[n :: len(by_file)] for n, name in enumerate(by_file)}
    kind_right = kind_total = 0
    per_file: dict[str, tuple[list[bool], np.ndarray]] = {}
    for name, held in by_file.items():
        rest = [e for other, exs in by_file.items() if other != name for e in exs]
        rest += [e for other, exs in slices.items() if other != name for e in exs]
        statements = [e for e in rest if e.states]
        statement_model = _fit(rest, [int(e.states) for e in rest])
        p = _predict(statement_model, held)
        # what the model alone would add: the lexicon's markers and gates decide the rest
        talk += [
            p if _model_decides(e.text) else 0.0
            for e, p in zip(slices[name], _predict(statement_model, slices[name]), strict=True)
        ]
        kind = _fit(statements, [int(e.label == "project_decision") for e in statements])
        held_statements = [e for e in held if e.states]
        if held_statements:
            decided = _predict(kind, held_statements) >= 0.5
            kind_right += sum(
                d == (e.label == "project_decision") for d, e in zip(decided, held_statements, strict=True)
            )
            kind_total += len(held_statements)
        per_file[name] = ([e.states for e in held], p)
        truth += [e.states for e in held]
        scores += list(p)
    y, s, t_scores = np.array(truth), np.array(scores), np.array(talk)
    # The threshold is chosen on the corpus files' pooled out-of-fold scores; the realistic authors are
    # reported beside them (their sentences are harder, and memory-level figures measure them).
    corpus = np.array([not name.startswith("realistic/") for name, (labels, _) in per_file.items() for _ in labels])
    yc, sc = y[corpus], s[corpus]
    threshold = next(
        (
            t
            for t in GRID
            if _precision(yc, sc >= t) >= TARGET_PRECISION and (t_scores >= t).mean() <= MAX_TALK_ADMITTED
        ),
        GRID[-1],
    )
    lines = [f"{'file':<34} {'sentences':>9} {'statements':>10} {'P':>6} {'R':>6}   (threshold {threshold})"]
    for name, (labels, p) in per_file.items():
        yy = np.array(labels)
        hits = p >= threshold
        lines.append(
            f"{name:<34} {len(yy):>9} {int(yy.sum()):>10} {_precision(yy, hits):>6.3f} {_recall(yy, hits):>6.3f}"
        )
    lines.append(
        f"{'pooled out-of-fold':<34} {len(y):>9} {int(y.sum()):>10} {_precision(y, s >= threshold):>6.3f} "
        f"{_recall(y, s >= threshold):>6.3f}   AUC {roc_auc_score(y, s):.4f}; kind accuracy {kind_right}/{kind_total}"
    )
    lines.append(
        f"ordinary talk that passes the gates, has no marker and the model reads as a statement (out of fold): "
        f"{int((t_scores >= threshold).sum())}/{len(t_scores)}"
    )
    for t in GRID:
        lines.append(
            f"  at {t:.2f}: P {_precision(y, s >= t):.3f} R {_recall(y, s >= t):.3f}, talk {int((t_scores >= t).sum())}"
        )
    return threshold, lines


def _model_decides(text: str) -> bool:
    """A sentence left to the model that passes the gates: only the model says whether it states a rule."""
    lexicon = _lexicon()
    return lexicon.left_to_the_model(text) and lexicon.passes_gates(text)


@functools.cache
def _lexicon() -> Lexicon:
    return load_lexicon_file(LEXICON)  # the lists and gates alone, without the model being trained


def _precision(y: np.ndarray, predicted: np.ndarray) -> float:
    return float((y & predicted).sum() / max(1, predicted.sum()))


def _recall(y: np.ndarray, predicted: np.ndarray) -> float:
    return float((y & predicted).sum() / max(1, y.sum()))


def _examples(without: list[str], *, realistic_too: bool = True) -> tuple[dict[str, list[Example]], Path | None]:
    by_file = part_examples("dev")
    realistic = find_checkout_part(Path(__file__).resolve().parent) if realistic_too else None
    if realistic is not None:
        by_file.update(realistic_examples(load_realistic_part(realistic)))
    by_file[FIXES] = fix_examples()
    unknown = [name for name in without if name not in by_file]
    if unknown:
        raise KeyError(", ".join(unknown))
    return {name: exs for name, exs in by_file.items() if name not in without}, realistic


def _model(
    by_file: dict[str, list[Example]],
    negatives: list[Example],
    threshold: float,
    realistic: Path | None,
    without: list[str],
) -> dict[str, Any]:
    digests = file_digests((*(name for name in by_file if not name.startswith("realistic/")), NEGATIVES))
    if realistic is not None:
        digests.update(realistic_digest(realistic))
        digests.update({name: "left out" for name in without if name.startswith("realistic/")})
    return {
        "format": FORMAT,
        "threshold": threshold,
        "trained_on": digests,
        "trainer": {
            "C": C,
            "target_precision": TARGET_PRECISION,
            "examples": sum(map(len, by_file.values())) + len(negatives),
        },
        **fit_models([e for exs in by_file.values() for e in exs] + negatives),
    }


def train(*, without: list[str], threshold: float) -> dict[str, Any]:
    """The model trained without the groups in `without` (e.g. `realistic/r4`), at `threshold`."""
    by_file, realistic = _examples(without)
    return _model(by_file, negative_examples(), threshold, realistic, without)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="only cross-validate, leaving one dev file out at a time")
    parser.add_argument("--without", action="append", default=[], help="leave this dev file out of training")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the model")
    parser.add_argument(
        "--threshold", type=float, default=None, help="skip the cross-validation and use this threshold"
    )
    parser.add_argument("--no-realistic", action="store_true", help="train without the realistic dev part")
    args = parser.parse_args(argv)
    try:
        by_file, realistic = _examples(args.without, realistic_too=not args.no_realistic)
    except KeyError as exc:
        print(f"Not a dev file: {exc.args[0]}.", file=sys.stderr)
        return 2
    negatives = negative_examples()
    _lexicon()  # the cross-validation's gates choose the threshold: a refit at a given one reads them too
    if args.threshold is not None:
        threshold = args.threshold
    else:
        threshold, report = cross_validate(by_file, negatives)
        print("\n".join(report))
    if args.cv:
        return 0
    model = _model(by_file, negatives, threshold, realistic, args.without)
    args.out.write_text(
        json.dumps(model, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    refit_inputs.record(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
