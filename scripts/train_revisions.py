"""Train the revision model (`memory/revisions.py`) on every realistic training part.

    .venv/bin/python scripts/train_revisions.py            # cross-validate, fit, write revision_model.json
    .venv/bin/python scripts/train_revisions.py --cv       # report only
    .venv/bin/python scripts/train_revisions.py --without b1 --out /tmp/r.json

Examples: every gold preference or decision of a session said after another gold memory (the
manifest's dev part and the `test/` and `measured/` folders, `quality.realistic.training_parts`),
paired with the earlier memory the subject model finds it likeliest about; labelled "revises" when
their gold subjects are equal. The subject model's probability is the one a new author gets: for an
author of the dev part (which the subject model is trained on), that of a subject model fitted
without the author's fold (`FOLDS` folds of the dev authors); for every other author, the subject
model fitted on the whole dev part, as shipped. The threshold is the one on a grid leaving the
fewest wrong memory states over pooled predictions of `FOLDS` author folds of every part, for the
rule `supersede` applies (the subject model above its own threshold, or the revision model above
this one): a missed revision leaves two contradictory rules active and a wrong supersede retires a
right one, each one wrong memory state, so both cost one; ties go to the lower threshold.

The labelled pairs of `eval/corpus/revision_fixes.json` (our own wording, each of weight FIX_WEIGHT)
are in every fold's training and in the shipped fit, never in a fold's evaluation.

Needs scikit-learn (the `test` extra). Deterministic: the same files give byte-identical weights.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import refit_inputs
import train_subjects
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.revisions import FORMAT, MODEL_FILE, RevisionModel, revision_features
from autopatch_j.memory.subjects import SubjectModel, default_subject_model
from autopatch_j.quality.realistic import Session, find_checkout_part, sha256_of, training_digests, training_parts
from autopatch_j.quality.revision_fixes import REVISION_FIXES, RevisionExample, read_fixes

C = 1.0
# lbfgs runs to a gradient this small, so the optimum (not where the solver stopped) is what is
# shipped and another CPU's BLAS refits it to the same rounded weights.
SOLVER_TOL = 1e-10
FOLDS = 8
FIX_WEIGHT = 3.0
#: A word feature (`t:`) is kept when at least this many training examples hold it.
MIN_COUNT = 2
GRID = tuple(round(0.05 * n, 2) for n in range(4, 15))
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / MODEL_FILE

Example = RevisionExample  # new, likeliest old, its probability, revises?


def fix_examples(directory: Path) -> list[Example]:
    """The labelled pairs of `eval/corpus/revision_fixes.json` beside the realistic part `directory`,
    scored by the shipped subject model."""
    path = directory.parent / "corpus" / REVISION_FIXES
    return read_fixes(path, default_lexicon(), default_subject_model())


def examples(sessions: list[Session], subjects: SubjectModel) -> Iterator[Example]:
    """For every gold preference or decision said after another memory: the earlier memory `subjects`
    finds it likeliest about (the latest of equals) and whether it is the same subject."""
    for session in sessions:
        said = train_subjects.statements(session)
        for j, (new, new_subject) in enumerate(said):
            if j == 0 or new.kind == "discussion_context":
                continue
            scored = [(subjects.same_subject(new, old), i) for i, (old, _) in enumerate(said[:j])]
            p, i = max(scored)
            old, old_subject = said[i]
            yield new, old, p, int(old_subject == new_subject)


def _subject_model(sessions: list[Session]) -> SubjectModel:
    pair, idf, default = train_subjects.fit(sessions)
    return SubjectModel.from_data(train_subjects._model(pair, 0.5, idf, default, [], {}))


def _folds(authors: list[str]) -> list[list[str]]:
    return [authors[i::FOLDS] for i in range(FOLDS)]


def author_examples(groups: dict[str, list[Session]], dev: set[str]) -> dict[str, list[Example]]:
    """Every author's examples, scored as a new author is scored (see the module's docstring)."""
    dev_authors = sorted(a for a in groups if a in dev)
    every_dev = [s for a in dev_authors for s in groups[a]]
    by_author: dict[str, list[Example]] = {}
    for fold in _folds(dev_authors):
        model = _subject_model([s for a in dev_authors if a not in fold for s in groups[a]])
        for author in fold:
            by_author[author] = list(examples(groups[author], model))
    shipped = _subject_model(every_dev)
    for author in sorted(a for a in groups if a not in dev):
        by_author[author] = list(examples(groups[author], shipped))
    return by_author


def fit(rows: list[Example], fixes: list[Example]) -> tuple[DictVectorizer, LogisticRegression]:
    """The vectorizer (words held by fewer than MIN_COUNT examples left out) and the regression fitted
    on `rows` and `fixes` (each of weight FIX_WEIGHT)."""
    every = [*rows, *fixes]
    feats = [revision_features(new, old, p) for new, old, p, _ in every]
    counts = Counter(key for f in feats for key in f if key.startswith("t:"))
    kept = [{k: v for k, v in f.items() if not k.startswith("t:") or counts[k] >= MIN_COUNT} for f in feats]
    vectorizer = DictVectorizer(sort=True)
    weights = [1.0] * len(rows) + [FIX_WEIGHT] * len(fixes)
    model = LogisticRegression(C=C, max_iter=5000, tol=SOLVER_TOL).fit(
        vectorizer.fit_transform(kept), [y for *_, y in every], sample_weight=weights
    )
    return vectorizer, model


def cross_validate(
    by_author: dict[str, list[Example]], fixes: list[Example], subject_threshold: float
) -> tuple[float, list[str]]:
    """The threshold of the rule `supersede` applies (the subject model above its threshold, or the
    revision model above this one) with the fewest errors (`choose_threshold`) over pooled
    predictions of author folds, and the report of every grid threshold."""
    truth: list[int] = []
    scores: list[float] = []
    same: list[float] = []
    for fold in _folds(sorted(by_author)):
        train = [row for a, rows in by_author.items() if a not in fold for row in rows]
        held = [row for a in fold for row in by_author[a]]
        vectorizer, model = fit(train, fixes)
        matrix = vectorizer.transform([revision_features(new, old, p) for new, old, p, _ in held])
        scores += list(model.predict_proba(matrix)[:, 1])
        truth += [y for *_, y in held]
        same += [p for _, _, p, _ in held]
    y, s, p = np.array(truth), np.array(scores), np.array(same)
    alone = p >= subject_threshold
    threshold = choose_threshold(y, s, p, subject_threshold)
    lines = [f"{len(y)} statements after another memory, {int(y.sum())} revise the likeliest one"]
    lines.append("  the subject model alone (for comparison):")
    for t in sorted({0.6, 0.7, subject_threshold, 0.8}):
        lines.append("    " + _line(f"same >= {t:.2f}", y, p >= t))
    lines.append(f"  same >= {subject_threshold} or the revision model (threshold {threshold}):")
    for t in GRID:
        lines.append("    " + _line(f"at {t:.2f}", y, alone | (s >= t)))
    return threshold, lines


def choose_threshold(truth: np.ndarray, scores: np.ndarray, same: np.ndarray, subject_threshold: float) -> float:
    """The grid threshold of the revision model leaving the fewest wrong memory states over the pooled
    out-of-fold predictions `truth`, `scores`, `same`, for the rule `supersede` applies (`same` >=
    `subject_threshold`, or `scores` >= the threshold): a missed revision (two contradictory rules
    active) and a wrong supersede (a right rule retired) cost one each; ties to the lower threshold."""
    alone = same >= subject_threshold
    return min(GRID, key=lambda t: (_errors(truth, alone | (scores >= t)), t))


def _line(name: str, y: np.ndarray, hit: np.ndarray) -> str:
    right = int((y.astype(bool) & hit).sum())
    wrong = int((~y.astype(bool) & hit).sum())
    missed = int((y.astype(bool) & ~hit).sum())
    return (
        f"{name:<14} revised {right + wrong:5d}: right {right:5d}, wrong {wrong:5d}, missed {missed:5d}, "
        f"errors {wrong + missed:5d}"
    )


def _errors(y: np.ndarray, hit: np.ndarray) -> int:
    """Missed revisions plus wrong supersedes."""
    return int((y.astype(bool) != hit).sum())


def training_examples(directory: Path, without: list[str]) -> dict[str, list[Example]]:
    """Every training author's examples but those of `without` (an unknown author: KeyError)."""
    parts = training_parts(directory)
    groups: dict[str, list[Session]] = {}
    for part in parts.values():
        groups.update(train_subjects.by_author(part))
    for author in without:
        if author not in groups:
            raise KeyError(author)
    examples_ = author_examples(groups, set(parts["dev"].author_names))
    return {a: rows for a, rows in examples_.items() if a not in without}


def model_data(
    by_author: dict[str, list[Example]], threshold: float, directory: Path, without: list[str]
) -> dict[str, Any]:
    """The model fitted on every example of `by_author`, as the package reads it."""
    rows = [row for a in sorted(by_author) for row in by_author[a]]
    fixes = fix_examples(directory)
    trained_on = {
        **training_digests(directory),
        "corpus/" + REVISION_FIXES: sha256_of(directory.parent / "corpus" / REVISION_FIXES),
        **{f"realistic/{a}": "left out" for a in without},
    }
    vectorizer, model = fit(rows, fixes)
    names = vectorizer.get_feature_names_out()
    weights = {str(names[i]): round(float(w), 4) for i, w in enumerate(model.coef_[0]) if round(float(w), 4)}
    return {
        "format": FORMAT,
        "bias": round(float(model.intercept_[0]), 4),
        "weights": weights,
        "threshold": threshold,
        "trained_on": trained_on,
        "trainer": {"C": C, "examples": len(rows), "fixes": len(fixes)},
    }


def dumps(data: dict[str, Any]) -> str:
    RevisionModel.from_data(data)
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="only cross-validate")
    parser.add_argument("--without", action="append", default=[], help="leave this author out of training")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the model")
    parser.add_argument("--threshold", type=float, default=None, help="skip the cross-validation, use this")
    args = parser.parse_args(argv)
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        print("No realistic part found (run from a checkout).", file=sys.stderr)
        return 2
    try:
        by_author = training_examples(directory, args.without)
    except KeyError as unknown:
        print(f"Not an author of the training parts: {unknown.args[0]}.", file=sys.stderr)
        return 2
    if args.threshold is not None:
        threshold = args.threshold
    else:
        threshold, report = cross_validate(by_author, fix_examples(directory), default_subject_model().threshold)
        print("\n".join(report))
    if args.cv:
        return 0
    data = model_data(by_author, threshold, directory, args.without)
    args.out.write_text(dumps(data), "utf-8")
    refit_inputs.record(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
