"""Train the assent model (`memory/assent_choice.py`): which sentences of an answer an assent chooses.

    .venv/bin/python scripts/train_assent.py                  # fit, write src/.../assent_model.json
    .venv/bin/python scripts/train_assent.py --report         # grouped cross-validation only
    .venv/bin/python scripts/train_assent.py --without k1 --out /tmp/a.json

Training data: `quality.assent_data`'s examples of every realistic session the sentence reader learns
from (`quality.realistic.training_parts`: the manifest's dev part, `test/` and `measured/`) and the
labelled choices of `eval/corpus/assent_fixes.json` (our own wording, each candidate of weight
FIX_WEIGHT, in every fold's training and never in its evaluation). The model is a logistic
regression over each candidate sentence (features seen fewer than MIN_COUNT times dropped). Its
two thresholds are chosen on the pooled out-of-fold probabilities of FOLDS folds
by author (every FOLDS-th author of the sorted list held out): `floor`, below which a bare assent
chooses nothing, the one on FLOORS with the least cost, a choice lost where the gold has one costing
LOST_COST made where it has none (a lost one is an explicit decision of the user missed; one made
is an assent stored that the gold does not count) — the lowest floor whose cost is within
FLOOR_SLACK of the least, since the curve is flat around its minimum and a lower floor loses fewer
decisions; `also`, from which a further sentence is
chosen beside the likeliest, the one on ALSO with the most right further sentences less
WRONG_ALSO_COST times the wrong ones.

`--report` prints, out of fold, the choices right, wrong (by what the wrong sentence is), lost and
made where none is wanted, against the hand-written precedence the model replaces (the sentence
sharing most words with the reply, else the first proposal naming a thing, never nothing).

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

from autopatch_j.memory.assent_choice import FORMAT, MODEL_FILE, AssentModel
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.replacement import stemmed
from autopatch_j.memory.sentences import fold
from autopatch_j.quality.assent_data import ASSENT_FIXES, AssentExample, fix_examples, session_examples
from autopatch_j.quality.realistic import find_checkout_part, sha256_of, training_digests, training_parts

C = 0.5
# lbfgs runs to a gradient this small, so the optimum (not where the solver stopped) is what is
# shipped and another CPU's BLAS refits it to the same rounded weights.
SOLVER_TOL = 1e-10
MIN_COUNT = 3
FOLDS = 5
FLOORS = tuple(round(0.05 * n, 2) for n in range(0, 13))
ALSO = tuple(round(0.05 * n, 2) for n in range(10, 21))
WRONG_ALSO_COST = 2
LOST_COST = 2
#: A choice lost on an assent to an answer with no signal: the sentence reader still reads the reply.
UNSIGNALLED_LOST_COST = 1
UNSIGNALLED = "unsignalled"
FLOOR_SLACK = 0.01
FIX_WEIGHT = 3.0
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "autopatch_j" / "memory" / MODEL_FILE


def labelled(directory: Path, without: list[str]) -> list[AssentExample]:
    lexicon = default_lexicon()
    examples: list[AssentExample] = []
    for part in training_parts(directory).values():
        for session in part.sessions:
            author = part.authors[session.id]
            if author not in without:
                examples.extend(session_examples(session, author, lexicon))
    return examples


def fixes_of(directory: Path) -> list[AssentExample]:
    return fix_examples(directory.parent / "corpus" / ASSENT_FIXES, default_lexicon())


def fit(examples: list[AssentExample], fixes: list[AssentExample]) -> tuple[float, dict[str, float]]:
    every = [*examples, *fixes]
    rows = [f for e in every for f in e.features]
    labels = [int(c) for e in every for c in e.chosen]
    weight = [FIX_WEIGHT if e.author == "fixes" else 1.0 for e in every for _ in e.chosen]
    counts: Counter[str] = Counter(k for f in rows for k in f if "=" in k)
    kept = [{k: v for k, v in f.items() if "=" not in k or counts[k] >= MIN_COUNT} for f in rows]
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform(kept)
    model = LogisticRegression(C=C, max_iter=5000, tol=SOLVER_TOL).fit(matrix, labels, sample_weight=weight)
    names = vectorizer.get_feature_names_out()
    weights = {str(n): round(float(w), 4) for n, w in zip(names, model.coef_[0], strict=True) if abs(w) >= 1e-4}
    return round(float(model.intercept_[0]), 4), weights


def folds_of(examples: list[AssentExample]) -> dict[str, int]:
    return {a: n % FOLDS for n, a in enumerate(sorted({e.author for e in examples}))}


def cross_validated(examples: list[AssentExample], fixes: list[AssentExample]) -> list[list[float]]:
    """Each example's candidates' out-of-fold probabilities, FOLDS folds by author (the fixes in every
    fold's training)."""
    fold_of = folds_of(examples)
    out: list[list[float]] = [[] for _ in examples]
    for held in range(FOLDS):
        bias, weights = fit([e for e in examples if fold_of[e.author] != held], fixes)
        model = AssentModel(bias=bias, weights=weights, floor=0.0, also=1.0)
        for n, e in enumerate(examples):
            if fold_of[e.author] == held:
                out[n] = [model.probability(f) for f in e.features]
    return out


def outcome(example: AssentExample, picked: list[int]) -> str:
    """right, wrong, lost (nothing chosen where the gold chose), made (a choice where the gold has none)
    or none (nothing chosen, rightly)."""
    if not example.chooses:
        return "made" if picked else "none"
    if not picked:
        return "lost"
    return "right" if any(example.chosen[n] for n in picked) else "wrong"


def floor_errors(
    examples: list[AssentExample], probabilities: list[list[float]], floor: float, lost_cost: int = LOST_COST
) -> int:
    """The cost of `floor`: `lost_cost` for each choice lost, one for each made where none is wanted."""
    model = AssentModel(bias=0.0, weights={}, floor=floor, also=1.01)
    results = Counter(outcome(e, model.choose(p, bare=e.floored)) for e, p in zip(examples, probabilities, strict=True))
    return lost_cost * results["lost"] + results["made"]


def lowest_floor(examples: list[AssentExample], probabilities: list[list[float]], lost_cost: int) -> float:
    costs = {t: floor_errors(examples, probabilities, t, lost_cost) for t in FLOORS}
    return min(t for t in FLOORS if costs[t] <= min(costs.values()) * (1 + FLOOR_SLACK))


def also_score(examples: list[AssentExample], probabilities: list[list[float]], also: float) -> tuple[int, int]:
    """(right, wrong) further sentences chosen from `also` on, beside the likeliest."""
    right = wrong = 0
    for e, p in zip(examples, probabilities, strict=True):
        if not p:
            continue
        top = max(range(len(p)), key=lambda n: (p[n], -n))
        for n, q in enumerate(p):
            if n != top and q >= also:
                right += e.chosen[n]
                wrong += not e.chosen[n]
    return right, wrong


def thresholds(examples: list[AssentExample], probabilities: list[list[float]]) -> tuple[float, float, float]:
    """`floor` on the assents of every reading but "unsignalled", `unsignalled_floor` on those (a lost
    choice costing UNSIGNALLED_LOST_COST), `also` on all."""
    own = [n for n, e in enumerate(examples) if e.reading == UNSIGNALLED]
    rest = [n for n, e in enumerate(examples) if e.reading != UNSIGNALLED]
    floor = lowest_floor([examples[n] for n in rest], [probabilities[n] for n in rest], LOST_COST)
    unsignalled = lowest_floor([examples[n] for n in own], [probabilities[n] for n in own], UNSIGNALLED_LOST_COST)
    scores = {t: also_score(examples, probabilities, t) for t in ALSO}
    also = max(ALSO, key=lambda t: (scores[t][0] - WRONG_ALSO_COST * scores[t][1], t))
    return floor, unsignalled, also


def rule_choice(example: AssentExample) -> list[int]:
    """The hand-written precedence the model replaces, as indices of `example.sentences`."""
    lexicon = default_lexicon()
    proposals = list(example.proposals)
    words = stemmed(lexicon.anchor_tokens(example.words))
    shared = [len(words & stemmed(lexicon.anchor_tokens(p))) for p in proposals]
    if max(shared, default=0) > 0:
        pick = proposals[shared.index(max(shared))]
    else:
        from autopatch_j.memory.assent_choice import _names_a_thing

        pick = proposals[
            max(
                range(len(proposals)),
                key=lambda n: (_names_a_thing(proposals[n]), not lexicon.points_back(proposals[n]), -n),
            )
        ]
    return [n for n, s in enumerate(example.sentences) if s in pick or pick in s][:2]


def wrong_class(example: AssentExample, picked: list[int]) -> str:
    """What a wrongly chosen sentence is: a question, an intro to code or a list (a colon at its end),
    another item or option of the answer, a rationale (a word pointing back, or after the chosen
    one), or framing (before it)."""
    sentence = example.sentences[picked[0]]
    folded = fold(sentence).rstrip()
    if folded.endswith(("?", "？")) or default_lexicon().is_question(sentence):
        return "question"
    if folded.endswith((":", "：")):
        return "intro"
    features = example.features[picked[0]]
    if features.get("item") or features.get("labelled"):
        return "other_option"
    first_right = example.chosen.index(True)
    if features.get("points_back") or picked[0] > first_right:
        return "rationale"
    return "framing"


def report(examples: list[AssentExample], probabilities: list[list[float]], floor: float, also: float) -> None:
    model = AssentModel(bias=0.0, weights={}, floor=floor, also=also)
    for name, pick in (
        ("rule", rule_choice),
        ("model", lambda e: model.choose(probabilities[index[id(e)]], bare=e.floored)),
    ):
        counts: Counter[str] = Counter()
        for e in examples:
            picked = pick(e)
            result = outcome(e, picked)
            counts[f"{'bare' if e.bare else 'own'} {result}"] += 1
            if result == "wrong":
                counts[f"wrong {wrong_class(e, picked)}"] += 1
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


index: dict[int, int] = {}


def train(directory: Path, without: list[str]) -> dict[str, Any]:
    examples, fixes = labelled(directory, without), fixes_of(directory)
    probabilities = cross_validated(examples, fixes)
    floor, unsignalled, also = thresholds(examples, probabilities)
    bias, weights = fit(examples, fixes)
    model = AssentModel(bias=0.0, weights={}, floor=floor, also=also, unsignalled_floor=unsignalled)
    results = Counter(
        outcome(e, model.choose(p, bare=e.floored, reading=e.reading))
        for e, p in zip(examples, probabilities, strict=True)
    )
    digests = training_digests(directory)
    digests["corpus/" + ASSENT_FIXES] = sha256_of(directory.parent / "corpus" / ASSENT_FIXES)
    digests.update({f"realistic/{a}": "left out" for a in without})
    return {
        "format": FORMAT,
        "bias": bias,
        "weights": weights,
        "floor": floor,
        "unsignalled_floor": unsignalled,
        "also": also,
        "examples": len(examples),
        "fixes": len(fixes),
        "candidates": sum(len(e.chosen) for e in examples),
        "cross_validated": {k: results[k] for k in ("right", "wrong", "lost", "made", "none")},
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
    parser.add_argument("--report", action="store_true", help="only print the cross-validated figures")
    args = parser.parse_args(argv)
    directory = part_dir()
    if args.report:
        examples = [e for e in labelled(directory, args.without) if e.proposals]
        index.update({id(e): n for n, e in enumerate(examples)})
        probabilities = cross_validated(examples, fixes_of(directory))
        floor, _, also = thresholds(examples, probabilities)
        print(f"{len(examples)} examples; floor {floor}, also {also}")
        for t in FLOORS:
            print(f"floor {t:.2f}: cost {floor_errors(examples, probabilities, t)}")
        for t in ALSO:
            print(f"also {t:.2f}: further right, wrong {also_score(examples, probabilities, t)}")
        report(examples, probabilities, floor, also)
        return 0
    model = train(directory, args.without)
    args.out.write_text(dumps(model), encoding="utf-8")
    refit_inputs.record(args.out)
    print(
        f"{args.out}: {model['examples']} examples, floor {model['floor']} "
        f"(unsignalled {model['unsignalled_floor']}), also {model['also']}, "
        f"{model['cross_validated']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
