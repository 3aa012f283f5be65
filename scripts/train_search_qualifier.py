"""Fit the search qualifier (memory/qualifier.py) on the realistic sessions' queries.

For every session of the realistic parts (default: `eval/realistic/dev`, `test` and `measured`,
the authors of `--exclude` left out) a fresh store receives the session's active gold memories
(as `scripts/query_eval.py` stores them) and each query is weighed as search.py weighs it. Every
memory that reaches the floor (`FLOOR` of the query's weight in `MIN_TERMS` distinct query terms)
is one example (but for one the search never returns: a memory naming only another environment or
platform than the question, memory/text/scopes.py): a positive when it is the query's target, a
negative when the query is a nothing-query (other memories of a targeted query are left out: they
compete in the ranking, they are not wrong answers). The dev corpus's synthetic `long_query` cases
are not examples: they were written for all-or-nothing matching and disagree with the realistic
questions (docs/retrieval.md).
The examples are cross-fitted (`--folds`, default 4): the authors, in name order, fall into folds,
and each fold's questions are weighed with associations and necessity fitted (as
`scripts/train_associations.py` and `scripts/train_necessity.py` fit them) without that fold, so the
rule learns the features a new author's questions have (`--folds 1`: the installed tables for all).
A logistic regression (scikit-learn, lbfgs, fixed settings: deterministic) over the features of
memory/qualifier.py gives the weights; a candidate answers when its probability reaches
`PROBABILITY`, written as the logit bound.

    python scripts/train_search_qualifier.py [--part P ...] [--exclude A,B] [--folds K] [--out FILE] [--check]

For a leave-authors-out estimate, fit without the authors scored and with the term tables fitted
without them too (`--associations FILE`, `--necessity FILE`, as `scripts/query_eval.py` takes them).

The rule is a learned table as the others are (docs/testing.md, "Refits reproduce the shipped
models"): written with its inputs' fingerprint (`scripts/fingerprints/search_qualifier.json`), so
`scripts/check_refits.py --inputs` says whether it was fitted on today's inputs and
`scripts/check_refits.py qualifier` refits it and compares. `--check` compares the fitted rule with
the shipped `search_qualifier.json` (exit 1 when they differ by more than one unit of the fourth
decimal).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))

import refit_inputs
import train_associations
import train_necessity
from query_eval import load_sessions, session_files, store_session

from autopatch_j.memory.index import use_associations, use_necessity
from autopatch_j.memory.postings_cache import hit_metadata
from autopatch_j.memory.qualifier import FEATURES, crosses, features, parse
from autopatch_j.memory.search import SYNOPSIS_CHARS, plan_in_tx, scope_text
from autopatch_j.memory.text import has_cjk, necessity
from autopatch_j.memory.text.associations import parse as parse_associations
from autopatch_j.memory.text.scopes import answers_elsewhere, question_scope

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "src" / "autopatch_j" / "memory" / "search_qualifier.json"
FLOOR = 0.3
MIN_TERMS = 2
PROBABILITY = 0.75
#: Author folds: each fold's examples are weighed with term tables fitted without it.
FOLDS = 4
DECIMALS = 4

_KEYS = """
SELECT i.memory_id, t.term, d.terms FROM memory_postings p
JOIN memory_term_stats t ON t.id = p.term_id JOIN memory_items i ON i.id = p.item_id
JOIN memory_search_docs d ON d.item_id = p.item_id
"""

#: A memory's row as the ranking returns it (search.scope_text reads its scopes from it).
_ROWS = "SELECT memory_id, kind, title, substr(content, 1, :n), aliases, keywords, subject FROM memory_items"

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
            scope_of = {
                row[0]: scope_text(row, hit_metadata(row)) for row in conn.execute(_ROWS, {"n": SYNOPSIS_CHARS + 1})
            }
            title_of = dict(conn.execute("SELECT memory_id, title FROM memory_items"))
            for query in session["queries"]:
                plan = plan_in_tx(conn, query=query["query"], cached=False)
                if plan is None:
                    continue
                total = sum(plan.weights)
                query_cjk = any(has_cjk(term.key) for term in plan.terms)
                asked = question_scope(query["query"])
                for key, memory_id in ids.items():
                    if query["target"] not in (None, key):
                        continue
                    holds = keys_of.get(memory_id, set())
                    held = [n for n, alts in enumerate(plan.alternatives) if any(k in holds for k, _ in alts)]
                    share = sum(plan.weights[n] for n in held) / total
                    if share < floor - 1e-9 or len(held) < min(MIN_TERMS, len(plan.terms)):
                        continue
                    if asked and answers_elsewhere(asked, scope_of.get(memory_id, "")):
                        continue  # the search never returns it, whatever the rule says
                    keys = count_of.get(memory_id, 0)
                    across = crosses(query_cjk=query_cjk, title=title_of.get(memory_id, ""))
                    rows.append(
                        list(features(share=share, held=len(held), terms=len(plan.terms), keys=keys, across=across))
                    )
                    labels.append(int(query["target"] == key))
    digests = [f"{_name(path)}:{hashlib.sha256(path.read_bytes()).hexdigest()[:16]}" for path in files]
    return rows, labels, digests


def cross_fitted(files: list[Path], folds: int, floor: float) -> tuple[list[list[float]], list[int], list[str]]:
    """`examples` of every author's files weighed with term tables fitted without the author's fold
    (authors in name order, every `folds`-th in one fold): the features a new author's questions
    have, not those of questions the tables were fitted on."""
    by_author: dict[str, list[Path]] = {}
    for path in files:
        by_author.setdefault(path.parent.name, []).append(path)
    sessions = {author: load_sessions(paths) for author, paths in sorted(by_author.items())}
    association_counts = {author: train_associations.count(batch) for author, batch in sessions.items()}
    necessity_counts = {author: train_necessity.count(batch) for author, batch in sessions.items()}
    rows: list[list[float]] = []
    labels: list[int] = []
    digests: list[str] = []
    authors = list(sessions)
    for fold in range(folds):
        out = set(authors[fold::folds])
        with tables_without(out, association_counts, necessity_counts):
            fold_rows, fold_labels, fold_digests = examples([p for a in sorted(out) for p in by_author[a]], floor)
        rows += fold_rows
        labels += fold_labels
        digests += fold_digests
    return rows, labels, sorted(digests)


@contextmanager
def tables_without(
    authors: set[str], association_counts: dict[str, Any], necessity_counts: dict[str, Any]
) -> Iterator[None]:
    """The search's associations and necessity fitted without `authors` (from each author's
    `train_associations.count` / `train_necessity.count`), in use for the block."""
    table = train_associations.fit(
        {a: c for a, c in association_counts.items() if a not in authors}, **train_associations.OPTIONS
    )
    asked: Counter[str] = Counter()
    held: Counter[str] = Counter()
    for author, (n, h) in necessity_counts.items():
        if author not in authors:
            asked.update(n)
            held.update(h)
    use_associations({key: [m for m, _ in found] for key, found in table.items()})
    use_necessity({key: f for key, (f, _, _) in train_necessity.fit(asked, held).items()})
    try:
        yield
    finally:
        use_associations(None)
        use_necessity(None)


def _name(path: Path) -> str:
    """A file's path inside the checkout (a folder outside it: its author folder and name)."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else f"{path.parent.name}/{path.name}"


def fit(parts: list[str], excluded: set[str], floor: float = FLOOR, folds: int = FOLDS) -> dict[str, Any]:
    files = files_of(parts, excluded)
    rows, labels, digests = cross_fitted(files, folds, floor) if folds > 1 else examples(files, floor)
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
            "folds": folds,
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
    parser.add_argument(
        "--folds", type=int, default=FOLDS, help=f"author folds of the cross-fitted tables (default {FOLDS}; 1: none)"
    )
    args = parser.parse_args(argv)
    if args.associations is not None:
        use_associations(parse_associations(args.associations.read_text(encoding="utf-8")))
    if args.necessity is not None:
        use_necessity(necessity.parse(args.necessity.read_text(encoding="utf-8")))
    fitted = fit(args.part or PARTS, {a for a in args.exclude.split(",") if a}, args.floor, args.folds)
    if args.check:
        shipped = json.loads(SHIPPED.read_text(encoding="utf-8"))
        bad = differs(fitted, shipped)
        print("the shipped rule is reproduced" if not bad else f"differs from the shipped rule: {', '.join(bad)}")
        return 1 if bad else 0
    args.out.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    refit_inputs.record(args.out)
    print(f"{args.out}: {fitted['trained_on']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
