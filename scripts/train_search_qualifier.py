"""Fit the search qualifier (memory/qualifier.py) on the realistic sessions' queries.

For every session of the realistic parts (default: `eval/realistic/dev`, `test` and `measured`,
the authors of `--exclude` left out) a fresh store receives the session's active gold memories
(as `scripts/query_eval.py` stores them) and each query is weighed as search.py weighs it. Every
memory that reaches the floor (`FLOOR` of the query's weight in `MIN_TERMS` distinct query terms)
is one example: a positive when it is the query's target, a negative when the query is a
nothing-query (other memories of a targeted query are left out: they compete in the ranking, they
are not wrong answers). The dev corpus's synthetic `long_query` cases are not examples: they were
written for all-or-nothing matching and disagree with the realistic questions (docs/retrieval.md).
A logistic regression (scikit-learn, lbfgs, fixed settings: deterministic) over the features of
memory/qualifier.py gives the weights; a candidate answers when its probability reaches
`PROBABILITY`, written as the logit bound.

    python scripts/train_search_qualifier.py [--part P ...] [--exclude A,B] [--out FILE] [--check]

For a leave-authors-out estimate, fit without the authors scored and with the term tables fitted
without them too (`--associations FILE`, `--necessity FILE`, as `scripts/query_eval.py` takes them).

`--check` compares the fitted rule with the shipped `search_qualifier.json` (exit 1 when they differ
by more than one unit of the fourth decimal).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))

from query_eval import load_sessions, session_files, store_session

from autopatch_j.memory.index import use_associations, use_necessity
from autopatch_j.memory.qualifier import FEATURES, features, parse
from autopatch_j.memory.search import plan_in_tx
from autopatch_j.memory.text import necessity
from autopatch_j.memory.text.associations import parse as parse_associations

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "src" / "autopatch_j" / "memory" / "search_qualifier.json"
FLOOR = 0.3
MIN_TERMS = 2
PROBABILITY = 0.8
DECIMALS = 4

_KEYS = """
SELECT i.memory_id, t.term, d.terms FROM memory_postings p
JOIN memory_term_stats t ON t.id = p.term_id JOIN memory_items i ON i.id = p.item_id
JOIN memory_search_docs d ON d.item_id = p.item_id
"""


PARTS = ["dev", "test", "measured"]


def files_of(parts: list[str], excluded: set[str]) -> list[Path]:
    """The batch files of the parts, but for the excluded authors' folders."""
    return [path for part in parts for path in session_files(part) if path.parent.name not in excluded]


def examples(files: list[Path], floor: float = FLOOR) -> tuple[list[list[float]], list[int], list[str]]:
    """The features and labels of every memory past the floor, and the digests of the files read."""
    rows: list[list[float]] = []
    labels: list[int] = []
    for session in load_sessions(files):
        with store_session(session) as (manager, ids), manager.db.read("train the search qualifier") as conn:
            keys_of: dict[int, set[str]] = {}
            count_of: dict[int, int] = {}
            for memory_id, term, count in conn.execute(_KEYS):
                keys_of.setdefault(memory_id, set()).add(term)
                count_of[memory_id] = count
            for query in session["queries"]:
                plan = plan_in_tx(conn, query=query["query"], cached=False)
                if plan is None:
                    continue
                total = sum(plan.weights)
                for key, memory_id in ids.items():
                    if query["target"] not in (None, key):
                        continue
                    holds = keys_of.get(memory_id, set())
                    held = [n for n, alts in enumerate(plan.alternatives) if any(k in holds for k, _ in alts)]
                    share = sum(plan.weights[n] for n in held) / total
                    if share < floor - 1e-9 or len(held) < min(MIN_TERMS, len(plan.terms)):
                        continue
                    keys = count_of.get(memory_id, 0)
                    rows.append(list(features(share=share, held=len(held), terms=len(plan.terms), keys=keys)))
                    labels.append(int(query["target"] == key))
    digests = [f"{_name(path)}:{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}" for path in files]
    return rows, labels, digests


def _name(path: Path) -> str:
    """A file's path inside the checkout (a folder outside it: its author folder and name)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else f"{path.parent.name}/{path.name}"


def fit(parts: list[str], excluded: set[str], floor: float = FLOOR) -> dict[str, Any]:
    rows, labels, digests = examples(files_of(parts, excluded), floor)
    model = LogisticRegression(C=1.0, solver="lbfgs", max_iter=5000, tol=1e-10)
    model.fit(np.array(rows), np.array(labels))
    weights = {name: round(float(w), DECIMALS) for name, w in zip(FEATURES, model.coef_[0], strict=True)}
    return {
        "features": list(FEATURES),
        "weights": weights,
        "bias": round(float(model.intercept_[0]), DECIMALS),
        "threshold": round(math.log(PROBABILITY / (1 - PROBABILITY)), DECIMALS),
        "floor": floor,
        "min_terms": MIN_TERMS,
        "trained_on": {
            "parts": parts,
            "excluded": sorted(excluded),
            "examples": len(labels),
            "positives": sum(labels),
            "files_sha256": hashlib.sha256("\n".join(digests).encode()).hexdigest(),
        },
    }


def differs(fitted: dict[str, Any], shipped: dict[str, Any]) -> list[str]:
    """The values of two rules more than one unit of the last kept decimal apart."""
    unit = 10**-DECIMALS * 1.5
    a, b = parse(fitted), parse(shipped)
    out = [name for name, x, y in zip(FEATURES, a.weights, b.weights, strict=True) if abs(x - y) > unit]
    out += [
        name for name in ("bias", "threshold", "floor", "min_terms") if abs(getattr(a, name) - getattr(b, name)) > unit
    ]
    if fitted["trained_on"] != shipped["trained_on"]:
        out.append("trained_on")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", action="append", help="folder under eval/realistic (default: dev, test, measured)")
    parser.add_argument("--exclude", default="", help="authors left out of the fit, comma-separated")
    parser.add_argument("--associations", type=Path, help="weigh with this associations table (an estimate)")
    parser.add_argument("--necessity", type=Path, help="weigh with this necessity table (an estimate)")
    parser.add_argument("--out", type=Path, default=SHIPPED, help="where to write the rule")
    parser.add_argument("--check", action="store_true", help="compare with the shipped rule instead of writing")
    parser.add_argument(
        "--floor", type=float, default=FLOOR, help=f"the share a candidate must reach (default {FLOOR})"
    )
    args = parser.parse_args(argv)
    if args.associations is not None:
        use_associations(parse_associations(args.associations.read_text(encoding="utf-8")))
    if args.necessity is not None:
        use_necessity(necessity.parse(args.necessity.read_text(encoding="utf-8")))
    fitted = fit(args.part or PARTS, {a for a in args.exclude.split(",") if a}, args.floor)
    if args.check:
        shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
        bad = differs(fitted, shipped)
        print("the shipped rule is reproduced" if not bad else f"differs from the shipped rule: {', '.join(bad)}")
        return 1 if bad else 0
    args.out.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    print(f"{args.out}: {fitted['trained_on']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
