"""Fit a learned evidence decision for the validator and say whether it beats the fixed floor.

    .venv/bin/python scripts/train_evidence.py --out /tmp/ev.json      # fits the four readers it needs (slow)
    .venv/bin/python scripts/train_evidence.py --reader d19,d20,d21=/tmp/r19.json \
        --reader d22,d23,d24=/tmp/r22.json --reader half0=/tmp/h0.json --reader half1=/tmp/h1.json \
        --without d22 --without d23 --without d24 --out /tmp/ev22.json

The question. The validator (M-42, `reader.states_in_turn`) takes the sentence reader's reading of a
user sentence as the user's speech act when its summed preference-or-decision probability reaches
`reader.EVIDENCE_THRESHOLD` (0.6) and the hard gates pass, beside the lexicon's listed markers and the
speech model (`marked` below). This script fits a logistic regression that would replace the floor
(docs/quality.md, "Round 28: a learned evidence decision"): nothing in the package reads its output.

Examples. Every sentence the reader admits as a preference or decision (`ReaderModel.threshold`) that
passes the hard gates or is read surely — what reaches the validator — with the probabilities of a
reader that never saw its author (`reader_groups`: each of `GROUPS` read by a reader trained without
that group; every other realistic author by one of two readers trained without their half and without
`GROUPS`; given with `--reader NAME=PATH`, else fitted here by `train_reader.train`). Positive: it
quotes a gold memory (its reader label is a preference, a decision or an assent); negative: anything
else (a not-memory, a discussion, no gold at all). Features (`evidence_features`): the reader's
probability of each reading and the logit of the statement sum, `marked`, the reader's structure
keys (only / first / last sentence, the answer before proposed, echo, pasted material in the turn and
next to it, a question mark), some of its word classes, a length bucket and a digit.

Threshold. Leave-one-author-out over the authors trained on; the `GRID` value of highest pooled
recall whose pooled precision (model or marked) is at least the floor's (summed probability ≥ `FLOOR`,
or marked) on the same candidates; `--threshold` fixes it instead (to measure only). It also prints
what a model fitted on the floor's band alone (below `FLOOR`, unmarked) admits there (`band`).

Needs scikit-learn (the `test` extra). Deterministic.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression

from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.reader import STATEMENTS, ReaderModel
from autopatch_j.quality.reader_data import session_examples
from autopatch_j.quality.realistic import find_checkout_part, training_digests, training_parts

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_reader  # the reader's own trainer fits the readers this script needs

GROUPS: tuple[tuple[str, ...], ...] = (("d19", "d20", "d21"), ("d22", "d23", "d24"))
POSITIVE = frozenset({*STATEMENTS, "assent"})
C = 1.0
FLOOR = 0.6  # the fixed evidence floor this decision replaces
GRID = tuple(round(0.05 * n, 2) for n in range(2, 19))
BAND_GRID = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
FORMAT = 1
PROBABILITIES = ("user_preference", "project_decision", "discussion_context", "retirement")
#: The reader's features carried over as they are (its structure keys and some word classes).
CARRIED = (
    "x:only",
    "x:first",
    "x:last",
    "x:proposed",
    "x:question_mark",
    "x:paste_in_turn",
    "x:before_paste",
    "x:after_paste",
    "x:echo_some",
    "x:echo_most",
    "l:assent",
    "l:no_content",
    "l:code_fact",
    "l:explicit",
    "l:correction",
    "l:switch",
    "l:discussion",
    "l:points_back",
)
#: Upper bounds (inclusive) of the length buckets, in words (a CJK character counts half a word).
LENGTHS = (3, 6, 12)
_WORD = re.compile(r"[^\W\d_][\w'-]*|\d+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff]")
_DIGIT = re.compile(r"\d")


def _length_bucket(sentence: str) -> str:
    cjk = len(_CJK.findall(sentence))
    words = len([w for w in _WORD.findall(sentence) if not _CJK.search(w)]) + cjk / 2
    for bound in LENGTHS:
        if words <= bound:
            return f"len:<={bound}"
    return f"len:>{LENGTHS[-1]}"


def evidence_features(
    sentence: str, reader_features: Mapping[str, float], probabilities: Mapping[str, float], lexicon: Lexicon
) -> dict[str, float]:
    """The decision's features of one prose sentence: `reader_features` as `reader.turn_features` gives
    them, `probabilities` the reader's (`ReaderModel.probabilities`)."""
    stated = probabilities["user_preference"] + probabilities["project_decision"]
    clipped = min(max(stated, 1e-4), 1 - 1e-4)
    feats = {f"p:{name}": float(probabilities[name]) for name in PROBABILITIES}
    feats["stated"] = math.log(clipped / (1 - clipped))
    for key in CARRIED:
        if key in reader_features:
            feats[key] = 1.0
    if lexicon.is_explicit(sentence) or lexicon.reads_as_statement(sentence):
        feats["marked"] = 1.0
    feats[_length_bucket(sentence)] = 1.0
    if _DIGIT.search(sentence):
        feats["digit"] = 1.0
    return feats


@dataclass(frozen=True, slots=True)
class Candidate:
    author: str
    text: str
    features: dict[str, float]
    stated: float
    positive: bool

    @property
    def marked(self) -> bool:
        return "marked" in self.features


def candidates(directory: Path, group: tuple[str, ...], reader: ReaderModel, lexicon: Lexicon) -> list[Candidate]:
    """The sentences of `group`'s sessions that reach the validator through `reader`."""
    found: list[Candidate] = []
    for part in training_parts(directory).values():
        for session in part.sessions:
            author = part.authors[session.id]
            if author not in group:
                continue
            for example in session_examples(session, lexicon):
                p = reader.probabilities(example.features)
                stated = p[STATEMENTS[0]] + p[STATEMENTS[1]]
                if stated < reader.threshold:
                    continue
                if stated < reader.sure_threshold and not lexicon.passes_gates(example.text):
                    continue
                feats = evidence_features(example.text, example.features, p, lexicon)
                found.append(Candidate(author, example.text, feats, stated, example.label in POSITIVE))
    return found


def fit(examples: list[Candidate]) -> tuple[float, dict[str, float]]:
    vectorizer = DictVectorizer(sparse=False, sort=True)
    x = vectorizer.fit_transform([c.features for c in examples])
    y = np.array([c.positive for c in examples])
    model = LogisticRegression(C=C, max_iter=2000, solver="lbfgs")
    model.fit(x, y)
    names = vectorizer.get_feature_names_out()
    weights = {str(n): round(float(w), 4) for n, w in zip(names, model.coef_[0], strict=True) if abs(w) >= 1e-4}
    return round(float(model.intercept_[0]), 4), weights


def _probability(bias: float, weights: dict[str, float], feats: dict[str, float]) -> float:
    score = bias + sum(weights.get(k, 0.0) * v for k, v in feats.items())
    return float(1.0 / (1.0 + np.exp(-score)))


def cross_validate(examples: list[Candidate]) -> list[tuple[Candidate, float]]:
    """Each candidate with the probability the model fitted without its author gives it."""
    scored: list[tuple[Candidate, float]] = []
    for author in sorted({c.author for c in examples}):
        bias, weights = fit([c for c in examples if c.author != author])
        scored += [(c, _probability(bias, weights, c.features)) for c in examples if c.author == author]
    return scored


def _rates(admitted: list[bool], scored: list[tuple[Candidate, float]]) -> tuple[float, float, int]:
    hits = sum(a and c.positive for a, (c, _) in zip(admitted, scored, strict=True))
    said = sum(admitted)
    gold = sum(c.positive for c, _ in scored)
    return hits / max(1, said), hits / max(1, gold), said


def choose(scored: list[tuple[Candidate, float]], fixed: float | None = None) -> tuple[float, list[str]]:
    """The threshold (see the module docstring; `fixed` instead, when given) and the report's lines."""
    floor = [c.stated >= FLOOR or c.marked for c, _ in scored]
    p0, r0, n0 = _rates(floor, scored)
    lines = [f"floor {FLOOR} or marked: P {p0:.3f} R {r0:.3f} admitted {n0} of {len(scored)}"]
    best: tuple[float, float] | None = None
    for t in GRID:
        p, r, n = _rates([q >= t or c.marked for c, q in scored], scored)
        lines.append(f"model at {t:.2f} or marked: P {p:.3f} R {r:.3f} admitted {n}")
        if p >= p0 and (best is None or r > best[1]):
            best = (t, r)
    if fixed is not None:
        lines.append(f"fixed {fixed:.2f} (not chosen: {'none keeps the precision' if best is None else best[0]})")
        return fixed, lines
    if best is None:
        raise SystemExit("No threshold keeps the floor's precision out of fold:\n" + "\n".join(lines))
    lines.append(f"chosen {best[0]:.2f}")
    return best[0], lines


def band(examples: list[Candidate]) -> list[str]:
    """What a model fitted on the floor's band alone (summed probability below `FLOOR`, unmarked) finds
    there, leave-one-author-out: per threshold, the band sentences it admits and how many are gold."""
    inside = [c for c in examples if c.stated < FLOOR and not c.marked]
    gold = sum(c.positive for c in inside)
    lines = [f"band below {FLOOR} unmarked: {len(inside)} candidates, {gold} gold"]
    scored = cross_validate(inside)
    for t in BAND_GRID:
        admitted = [c for c, q in scored if q >= t]
        right = sum(c.positive for c in admitted)
        lines.append(
            f"band model at {t:.2f}: admitted {len(admitted)}, gold {right} ({right / max(1, len(admitted)):.3f})"
        )
    return lines


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reader_groups(directory: Path) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Per reader name: the authors it scores and the authors it is trained without. Each of `GROUPS`
    is read by a reader trained without it; every other realistic author by one of two readers (`half0`,
    `half1`: the others in sorted order, alternately) trained without that half and without `GROUPS`."""
    authors = sorted({a for part in training_parts(directory).values() for a in part.author_names})
    grouped = {a for group in GROUPS for a in group}
    others = [a for a in authors if a not in grouped]
    found: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {",".join(g): (g, g) for g in GROUPS}
    for n in range(2):
        half = tuple(others[n::2])
        found[f"half{n}"] = (half, tuple(sorted({*half, *grouped})))
    return found


def train(
    directory: Path, readers: dict[str, Path], without: list[str], fixed: float | None = None
) -> tuple[dict[str, Any], list[str]]:
    lexicon = train_reader.lexicon()
    examples: list[Candidate] = []
    trained_on = dict(training_digests(directory))
    for name, (scored, left_out) in reader_groups(directory).items():
        if set(scored) <= set(without):
            continue
        path = readers.get(name)
        if path is None:
            data = train_reader.train(without=list(left_out), directory=directory)
            label = "fitted here"
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            label = _sha(path)
        found = candidates(directory, scored, ReaderModel.from_data(data), lexicon)
        examples += [c for c in found if c.author not in without]
        trained_on["reader_without/" + name] = label
    if not examples:
        raise SystemExit("No authors left to train on.")
    threshold, lines = choose(cross_validate(examples), fixed)
    lines += band(examples)
    bias, weights = fit(examples)
    positives = sum(c.positive for c in examples)
    model = {
        "format": FORMAT,
        "bias": bias,
        "weights": weights,
        "threshold": threshold,
        "trained_on": trained_on,
        "trainer": {
            "C": C,
            "floor": FLOOR,
            "candidates": len(examples),
            "positives": positives,
            "without": sorted(without),
        },
    }
    return model, lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reader", action="append", default=[], help="NAME=PATH: the reader `reader_groups` names NAME, already fitted"
    )
    parser.add_argument("--without", action="append", default=[], help="leave this realistic author out")
    parser.add_argument("--out", type=Path, required=True, help="where to write the model (JSON)")
    parser.add_argument("--threshold", type=float, help="fix the threshold instead of choosing it (to measure only)")
    args = parser.parse_args(argv)
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        raise SystemExit("No realistic part found (run from a checkout).")
    readers: dict[str, Path] = {}
    names = list(reader_groups(directory))
    for given in args.reader:
        name, _, path = given.partition("=")
        if name not in names or not path:
            raise SystemExit(f"--reader {given!r}: NAME is one of {names}, then =PATH")
        readers[name] = Path(path)
    model, lines = train(directory, readers, args.without, args.threshold)
    print("\n".join(lines))
    args.out.write_text(json.dumps(model, ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
