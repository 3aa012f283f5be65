"""Train the subject model (`memory/subjects.py`) on the realistic dev part, or cross-validate it.

    .venv/bin/python scripts/train_subjects.py              # fit on every author, write subject_model.json
    .venv/bin/python scripts/train_subjects.py --cv         # leave one author out at a time, report only
    .venv/bin/python scripts/train_subjects.py --without r4 --out /tmp/s.json

Training data: the gold memories of every session of `eval/realistic/` (the manifest's files). A
memory's statement is the text of its sources. Pairs: every earlier memory with every later one of
the same session, labelled "same subject" when their gold `subject` strings are equal (after the
store's folding). The pair model is a logistic regression over `subjects.pair_features`; its
threshold is the one on a grid with the best F1 of "same subject" over the pooled
leave-one-author-out predictions. The naming votes count,
for every index key, the gold subjects of the statements holding it.

Needs scikit-learn (the `test` extra). Deterministic: the same files give byte-identical weights.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import refit_inputs
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from autopatch_j.memory.consolidation import subject_key
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.subjects import FORMAT, MODEL_FILE, Statement, SubjectModel, _keys, pair_features, statement_of
from autopatch_j.quality.realistic import MANIFEST, RealisticPart, Session, find_checkout_part, load_realistic

C = 1.0
GRID = tuple(round(0.05 * n, 2) for n in range(6, 19))
MIN_VOTE_COUNT = 2
MIN_SHARE = 0.3
VOTES_PER_KEY = 3
MIN_VOTE = 4.0
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / MODEL_FILE


def statements(session: Session) -> list[tuple[Statement, str]]:
    """The session's gold memories in the order they were said, as (statement, subject)."""
    lexicon = default_lexicon()
    return [
        (statement_of(lexicon, " ".join(s.quote for s in memory.sources), memory.kind), subject_key(memory.subject))
        for memory in sorted(session.memories, key=lambda m: min(s.turn for s in m.sources))
    ]


def labelled_pairs(sessions: list[Session]) -> Iterator[tuple[Statement, Statement, int]]:
    """Every (later, earlier, same subject?) pair of memories of one session; a comparison never
    replaces a rule, so a later discussion pairs with nothing."""
    for session in sessions:
        said = statements(session)
        for j, (new, new_subject) in enumerate(said):
            if new.kind == "discussion_context":
                continue
            for old, old_subject in said[:j]:
                yield new, old, int(new_subject == old_subject)


def idf_table(sessions: list[Session]) -> tuple[dict[str, float], float]:
    df: Counter[str] = Counter()
    n = 0
    for session in sessions:
        for statement, _ in statements(session):
            own, thesaurus = _keys(statement.text)
            df.update(own | thesaurus)
            n += 1
    default = round(math.log((n + 1) / 2) + 1, 3)
    return {k: round(math.log((n + 1) / (c + 1)) + 1, 3) for k, c in sorted(df.items()) if c >= 2}, default


def pairs(sessions: list[Session], idf: dict[str, float], default: float) -> tuple[list[dict[str, float]], list[int]]:
    feats: list[dict[str, float]] = []
    labels: list[int] = []
    for new, old, same in labelled_pairs(sessions):
        feats.append(pair_features(new, old, idf, default))
        labels.append(same)
    return feats, labels


def fit(sessions: list[Session]) -> tuple[dict[str, Any], dict[str, float], float]:
    idf, default = idf_table(sessions)
    feats, labels = pairs(sessions, idf, default)
    vectorizer = DictVectorizer(sort=True)
    matrix = vectorizer.fit_transform(feats)
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(matrix, labels)
    names = vectorizer.get_feature_names_out()
    weights = {str(names[i]): round(float(model.coef_[0][i]), 4) for i in range(len(names))}
    return {"bias": round(float(model.intercept_[0]), 4), "weights": weights}, idf, default


def votes(sessions: list[Session], idf: dict[str, float]) -> dict[str, dict[str, float]]:
    count: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for session in sessions:
        for statement, subject in statements(session):
            own, thesaurus = _keys(statement.text)
            for key in own | thesaurus:
                count[key][subject] += 1
    table: dict[str, dict[str, float]] = {}
    for key in sorted(count):
        total = sum(count[key].values())
        best = sorted(count[key].items(), key=lambda kv: (-kv[1], kv[0]))[:VOTES_PER_KEY]
        kept = {
            s: round(idf.get(key, 0.0) * c / total, 3)
            for s, c in best
            if c >= MIN_VOTE_COUNT and c / total >= MIN_SHARE
        }
        if kept:
            table[key] = kept
    return table


def _model(pair: dict[str, Any], threshold: float, idf: dict[str, float], default: float, sessions: list[Session],
           trained_on: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    return {
        "format": FORMAT,
        "pair": {**pair, "threshold": threshold},
        "idf": idf,
        "default_idf": default,
        "naming": {"votes": votes(sessions, idf), "min_vote": MIN_VOTE},
        "trained_on": trained_on,
        "trainer": {"C": C, "sessions": len(sessions)},
    }


def by_author(part: RealisticPart) -> dict[str, list[Session]]:
    groups: dict[str, list[Session]] = {}
    for session in part.sessions:
        groups.setdefault(part.authors[session.id], []).append(session)
    return groups


def cross_validate(groups: dict[str, list[Session]]) -> tuple[float, list[str]]:
    truth: list[int] = []
    scores: list[float] = []
    per_author: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for author, held in groups.items():
        rest = [s for other, ss in groups.items() if other != author for s in ss]
        pair, idf, default = fit(rest)
        model = SubjectModel.from_data(_model(pair, 0.5, idf, default, [], {}))
        feats_y: list[int] = []
        p: list[float] = []
        for new, old, same in labelled_pairs(held):
            p.append(model.same_subject(new, old))
            feats_y.append(same)
        per_author[author] = (np.array(feats_y), np.array(p))
        truth += feats_y
        scores += p
    y, s = np.array(truth), np.array(scores)
    threshold = max(GRID, key=lambda t: (_f1(y, s >= t), -t))
    lines = [f"{'author':<8} {'pairs':>6} {'same':>5} {'P':>6} {'R':>6}   (threshold {threshold})"]
    for author, (yy, pp) in per_author.items():
        hits = pp >= threshold
        lines.append(
            f"{author:<8} {len(yy):>6} {int(yy.sum()):>5} {_precision(yy, hits):>6.3f} {_recall(yy, hits):>6.3f}"
        )
    for t in GRID:
        lines.append(f"  at {t:.2f}: P {_precision(y, s >= t):.3f} R {_recall(y, s >= t):.3f}")
    return threshold, lines


def _f1(y: np.ndarray, hit: np.ndarray) -> float:
    p, r = _precision(y, hit), _recall(y, hit)
    return 2 * p * r / max(1e-9, p + r)


def _precision(y: np.ndarray, hit: np.ndarray) -> float:
    return float((y.astype(bool) & hit).sum() / max(1, hit.sum()))


def _recall(y: np.ndarray, hit: np.ndarray) -> float:
    return float((y.astype(bool) & hit).sum() / max(1, y.sum()))


def train(*, without: list[str], threshold: float) -> dict[str, Any]:
    """The model trained without the authors in `without`, at `threshold` (no cross-validation)."""
    directory = _part_dir()
    groups = {a: ss for a, ss in by_author(load_realistic(directory)).items() if a not in without}
    return _fitted([s for ss in groups.values() for s in ss], threshold, _trained_on(directory, without))


def _fitted(sessions: list[Session], threshold: float, trained_on: dict[str, str]) -> dict[str, Any]:
    pair, idf, default = fit(sessions)
    return _model(pair, threshold, idf, default, sessions, trained_on)


def _part_dir() -> Path:
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        raise SystemExit("No realistic part found (run from a checkout).")
    return directory


def _trained_on(directory: Path, without: list[str]) -> dict[str, str]:
    digest = hashlib.sha256((directory / MANIFEST).read_bytes()).hexdigest()
    return {"realistic/" + MANIFEST: digest, **{f"realistic/{a}": "left out" for a in without}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="only cross-validate, leaving one author out at a time")
    parser.add_argument("--without", action="append", default=[], help="leave this author out of training")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the model")
    parser.add_argument("--threshold", type=float, default=None, help="skip the cross-validation, use this")
    args = parser.parse_args(argv)
    directory = _part_dir()
    groups = by_author(load_realistic(directory))
    unknown = [a for a in args.without if a not in groups]
    if unknown:
        print(f"Not an author of the part: {', '.join(unknown)}.", file=sys.stderr)
        return 2
    groups = {a: ss for a, ss in groups.items() if a not in args.without}
    if args.threshold is not None:
        threshold = args.threshold
    else:
        threshold, report = cross_validate(groups)
        print("\n".join(report))
    if args.cv:
        return 0
    sessions = [s for ss in groups.values() for s in ss]
    model = _fitted(sessions, threshold, _trained_on(directory, args.without))
    args.out.write_text(
        json.dumps(model, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    refit_inputs.record(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
