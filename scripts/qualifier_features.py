"""Measure candidate features and rules of the search qualifier out of fold, before building one.

The qualifier (memory/qualifier.py) is replicated on the candidates it judges: for every session of
the training parts (default `dev`, `test`, `measured`, `--exclude` authors left out) a fresh store
receives the gold memories (as `scripts/query_eval.py` stores them) and every query is weighed as
search.py weighs it, each author fold with associations and necessity fitted without it (as
`scripts/train_search_qualifier.py` does; `--folds 1`: the installed tables). Every memory that
reaches the floor is a candidate. For each feature set of `FEATURE_SETS` (the shipped features and one
added set) a logistic regression with the training script's settings is fitted and scored at
probabilities `PROBABILITIES`:

- on `--held FOLDER` (a folder of author folders, weighed with the installed tables, which must have
  been fitted without it): hit@5 (the target passes the rule; the ranking never cut a target that
  qualified on the realistic parts) over every targeted query, and the share of nothing-queries no
  candidate passes — with the shipped rule at its own probability too, which reproduces
  `scripts/query_eval.py` on that folder;
- leave author groups out on the training parts (`--groups`, authors in name order): each group
  scored with the rule fitted without it.

`--dominant T` also scores the rule variant in which a query term carrying `T` of the query's weight
lets a candidate holding it alone be judged as that term's one-term query; `--dominant-polar T` the same
for yes/no questions only (`polar`: an English question opening with an auxiliary, a Chinese one asking
吗, 要不要, 是否, 能不能 … — a decision about the named thing answers it either way). `--sets NAME,…`
fits only the named feature sets (default: all); `--cache FILE` keeps the weighed queries (held and training)
in FILE and reads them back on a later run with the same parts and tables.

The held queries are weighed against the gold memories (as `scripts/query_eval.py` stores them), so a
feature reading a memory's `subject` reads the author's. `--extracted-subjects` also scores every
variant on the held folder with each candidate's subject replaced by the one offline extraction gives
the memory it stores for that gold memory (the realistic eval's matching; an empty subject when
extraction stores none for it): what a user's store, whose subjects are extraction's, would see.

    python scripts/qualifier_features.py --held FOLDER [--part P ...] [--exclude A,B] [--folds K]
        [--groups G] [--dominant T ...] [--dominant-polar T ...] [--sets NAMES] [--cache FILE]
        [--extracted-subjects] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import pickle
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))

import train_associations
import train_necessity
import train_search_qualifier as training
from query_eval import load_sessions, session_files, store_session

from autopatch_j.memory.index import text_keys
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.qualifier import crosses, features, qualifier
from autopatch_j.memory.search import plan_in_tx
from autopatch_j.memory.text import has_cjk
from autopatch_j.quality.realistic import load_realistic
from autopatch_j.quality.realistic_eval import matches, run_session

PROBABILITIES = (0.7, 0.75, 0.8, 0.85, 0.9)
#: A question asking for a value, and a memory stating one (digits), for the `value` set.
_ASKS_VALUE = re.compile(r"\b(?:what|which|whats|how (?:many|much|long|often|big))\b|多少|几|哪个|哪些|什么|多久")
_HOLDS_VALUE = re.compile(r"\d")
#: A yes/no question: an English auxiliary first, or a Chinese polar ending or A-not-A form.
_POLAR = re.compile(
    r"^(?:is|are|am|was|were|do|does|did|can|could|should|shall|will|would|may|must|has|have|had)\b"
    r"|吗|要不要|是不是|是否|能不能|可不可以|有没有|会不会|用不用|需不需要|了没|行不行|对不对",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A memory of a query's store: the query terms it holds (by position), its share of the query's
    weight, its indexed keys, whether the match crosses scripts, its title, subject and content."""

    key: str
    held: tuple[int, ...]
    share: float
    keys: int
    across: bool
    title: str
    subject: str
    content: str


@dataclass(frozen=True, slots=True)
class Query:
    author: str
    text: str
    target: str | None
    terms: tuple[str, ...]
    weights: tuple[float, ...]
    candidates: tuple[Candidate, ...]
    polar: bool = False
    #: Every key the query's terms match (their alternatives included).
    asked: frozenset[str] = frozenset()
    #: Per term: whether the bilingual tables gloss it in the other script.
    glossed: tuple[bool, ...] = ()


@dataclass(frozen=True, slots=True)
class Dominant:
    """The dominant-term rule: a term carrying `share` of the weight held alone (yes/no questions only
    when `polar_only`); the default never applies."""

    share: float = 1.01
    polar_only: bool = False

    def alone(self, query: Query, candidate: Candidate) -> bool:
        """Whether the candidate holds only a dominant term of a query of several."""
        if self.polar_only and not query.polar:
            return False
        return len(candidate.held) == 1 and len(query.terms) > 1 and candidate.share >= self.share


NEVER = Dominant()


def past_floor(query: Query, candidate: Candidate, dominant: Dominant = NEVER) -> bool:
    """Whether the candidate reaches the floor (with `dominant`: or holds a dominant term alone)."""
    held, terms = len(candidate.held), len(query.terms)
    if candidate.share >= training.FLOOR - 1e-9 and held >= min(training.MIN_TERMS, terms):
        return True
    return dominant.alone(query, candidate)


def _keys(text: str) -> set[str]:
    return set(text_keys(text, acronyms=True))


def _title_share(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    named = _keys(c.title) | _keys(c.subject)
    return [sum(query.weights[n] for n in c.held if query.terms[n] in named) / sum(query.weights)]


def _value(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    asks = float(bool(_ASKS_VALUE.search(query.text.lower())))
    holds = float(bool(_HOLDS_VALUE.search(f"{c.title} {c.content}")))
    return [asks, holds, asks * holds]


def _rank(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    best_other = max((o.share for o in others if o is not c), default=0.0)
    return [c.share - best_other, min(len(others), 5) / 5]


def _unheld(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    held = {n for o in query.candidates for n in o.held}
    return [sum(w for n, w in enumerate(query.weights) if n not in held) / sum(query.weights)]


def _heaviest(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    return [float(max(range(len(query.weights)), key=query.weights.__getitem__) in c.held)]


def _subject_named(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    """The share of the memory's subject keys (what it decides: "ota pdb", "lint cache") the question holds."""
    subject = _keys(c.subject)
    return [len(subject & query.asked) / len(subject) if subject else 0.0]


def _glossed_unheld(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    """Across scripts, the share of the weight in terms the candidate lacks though the tables gloss them
    in its script: a word the memory would hold in translation, so a detail it does not state (the
    `across` bonus is for words the tables do not translate)."""
    unheld = sum(w for n, w in enumerate(query.weights) if n not in c.held and query.glossed[n])
    return [float(c.across) * unheld / sum(query.weights)]


def _polar_held(query: Query, c: Candidate, others: list[Candidate]) -> list[float]:
    """A yes/no question, and the same times the share held (a decision answers yes or no)."""
    polar = float(query.polar)
    return [polar, polar * c.share]


Extra = Callable[[Query, Candidate, list[Candidate]], list[float]]
#: The feature sets added to the shipped features, one at a time.
FEATURE_SETS: dict[str, tuple[Extra, ...]] = {
    "shipped features": (),
    "title/subject share": (_title_share,),
    "asks a value × holds one": (_value,),
    "margin to the best other candidate, candidates": (_rank,),
    "weight no memory holds": (_unheld,),
    "heaviest term held": (_heaviest,),
    "subject keys named": (_subject_named,),
    "yes/no question × share": (_polar_held,),
    "across: unheld weight the tables gloss": (_glossed_unheld,),
}


def row(
    query: Query, c: Candidate, others: list[Candidate], extras: tuple[Extra, ...], dominant: Dominant
) -> list[float]:
    """The shipped features of a candidate (a dominant term held alone: its one-term query's), then the extras."""
    share, terms = c.share, len(query.terms)
    if dominant.alone(query, c):
        share, terms = 1.0, 1
    base = features(share=share, held=len(c.held), terms=terms, keys=c.keys, across=c.across)
    return [*base, *(v for extra in extras for v in extra(query, c, others))]


def queries(files: list[Path]) -> list[Query]:
    """Every query of the files' sessions weighed against its session's store, with every memory."""
    out: list[Query] = []
    for path, session in ((file, s) for file in files for s in load_sessions([file])):
        with store_session(session) as (manager, ids), manager.db.read("qualifier features") as conn:
            keys_of: dict[int, set[str]] = {}
            count_of: dict[int, int] = {}
            for memory_id, term, count in conn.execute(training._KEYS):
                keys_of.setdefault(memory_id, set()).add(term)
                count_of[memory_id] = count
            text = {r[0]: r[1:] for r in conn.execute("SELECT memory_id, title, subject, content FROM memory_items")}
            for query in session["queries"]:
                plan = plan_in_tx(conn, query=query["query"], cached=False)
                if plan is None:
                    continue
                total = sum(plan.weights)
                query_cjk = any(has_cjk(term.key) for term in plan.terms)
                found = []
                for key, memory_id in ids.items():
                    holds = keys_of.get(memory_id, set())
                    held = tuple(n for n, alts in enumerate(plan.alternatives) if any(k in holds for k, _ in alts))
                    title, subject, content = text[memory_id]
                    found.append(
                        Candidate(
                            key=key,
                            held=held,
                            share=sum(plan.weights[n] for n in held) / total,
                            keys=count_of.get(memory_id, 0),
                            across=crosses(query_cjk=query_cjk, title=title),
                            title=title,
                            subject=subject or "",
                            content=content,
                        )
                    )
                out.append(
                    Query(
                        author=path.parent.name,
                        text=query["query"],
                        target=query["target"],
                        terms=tuple(term.key for term in plan.terms),
                        weights=tuple(plan.weights),
                        candidates=tuple(found),
                        polar=bool(_POLAR.search(query["query"].strip())),
                        asked=frozenset(k for alts in plan.alternatives for k, _ in alts),
                        glossed=tuple(
                            any(has_cjk(alt) != has_cjk(term.key) for alt in term.alternatives) for term in plan.terms
                        ),
                    )
                )
    return out


def training_queries(parts: list[str], excluded: set[str], folds: int) -> list[Query]:
    """The training parts' queries, each author fold weighed with tables fitted without it."""
    by_author: dict[str, list[Path]] = {}
    for path in training.files_of(parts, excluded):
        by_author.setdefault(path.parent.name, []).append(path)
    if folds <= 1:
        return queries([p for paths in by_author.values() for p in paths])
    sessions = {author: load_sessions(paths) for author, paths in sorted(by_author.items())}
    counts = (
        {a: train_associations.count(batch) for a, batch in sessions.items()},
        {a: train_necessity.count(batch) for a, batch in sessions.items()},
    )
    authors = list(sessions)
    out: list[Query] = []
    for fold in range(folds):
        left = set(authors[fold::folds])
        with training.tables_without(left, *counts):
            out += queries([p for a in sorted(left) for p in by_author[a]])
    return out


Score = Callable[[list[float]], float]


def fit(data: list[Query], extras: tuple[Extra, ...], dominant: Dominant) -> Score:
    """The logit of a regression fitted as `scripts/train_search_qualifier.py` fits the rule."""
    rows: list[list[float]] = []
    labels: list[int] = []
    for query in data:
        past = [c for c in query.candidates if past_floor(query, c, dominant)]
        for c in past:
            if query.target in (None, c.key):
                rows.append(row(query, c, past, extras, dominant))
                labels.append(int(query.target == c.key))
    model = LogisticRegression(C=1.0, solver="lbfgs", max_iter=5000, tol=1e-10).fit(np.array(rows), np.array(labels))
    weights, bias = model.coef_[0], float(model.intercept_[0])
    return lambda x: bias + float(weights @ np.array(x))


def score(
    data: list[Query], extras: tuple[Extra, ...], logit: Score, threshold: float, dominant: Dominant
) -> list[int]:
    """[targets found, targeted queries, nothing-queries empty, nothing-queries] of the weighed queries."""
    found = [0, 0, 0, 0]
    for query in data:
        past = [c for c in query.candidates if past_floor(query, c, dominant)]
        passing = {c.key for c in past if logit(row(query, c, past, extras, dominant)) >= threshold}
        if query.target is None:
            found[2] += int(not passing)
            found[3] += 1
        else:
            found[0] += int(query.target in passing)
            found[1] += 1
    return found


def _figures(counts: list[int], targeted: int, nothing: int) -> dict[str, float | None]:
    """hit@5 over `targeted` queries and empty over `nothing` (queries without a term: a miss, empty)."""
    return {
        "hit_at_5": round(counts[0] / targeted, 3) if targeted else None,
        "empty": round((counts[2] + nothing - counts[3]) / nothing, 3) if nothing else None,
    }


def _asked(folder: Path) -> tuple[int, int]:
    """The targeted and nothing-queries of a folder's sessions (those without a term included)."""
    every = [q for s in load_sessions(sorted(folder.glob("*/*.json"))) for q in s["queries"]]
    return sum(q["target"] is not None for q in every), sum(q["target"] is None for q in every)


def extracted_subjects(folder: Path) -> tuple[dict[tuple[str, str, str], str], dict[str, int]]:
    """(author, query, gold key) → the subject offline extraction gives the active memory it stores for
    that gold memory of the query's session ('' when it stores none), and counts: gold memories, those
    extraction stores, those whose stored subject is the gold one."""
    subjects: dict[tuple[str, str, str], str] = {}
    counts = {"gold memories": 0, "stored": 0, "same subject": 0}
    for author_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        part = load_realistic(author_dir)
        with tempfile.TemporaryDirectory() as tmp:
            for n, session in enumerate(part.sessions):
                stored, _ = run_session(session, Path(tmp) / f"{n:03d}", RulesExtractor())
                active = [m for m in stored if m.status == "active"]
                of_gold: dict[str, str] = {}
                for gold in (g for g in session.memories if g.state == "active"):
                    found = [m for m in active if matches(session, m, gold)]
                    of_gold[gold.key] = (found[0].subject or "") if found else ""
                    counts["gold memories"] += 1
                    counts["stored"] += int(bool(found))
                    counts["same subject"] += int(bool(found) and of_gold[gold.key] == gold.subject)
                for query in session.queries:
                    for key, subject in of_gold.items():
                        subjects[(part.authors[session.id], query.query, key)] = subject
    return subjects, counts


def with_subjects(data: list[Query], subjects: dict[tuple[str, str, str], str]) -> list[Query]:
    """The queries with each candidate's subject taken from `subjects` ('' when it has none)."""
    return [
        dataclasses.replace(
            q,
            candidates=tuple(
                dataclasses.replace(c, subject=subjects.get((q.author, q.text, c.key), "")) for c in q.candidates
            ),
        )
        for q in data
    ]


def run(args: argparse.Namespace) -> dict[str, Any]:
    shipped = qualifier()
    excluded = {a for a in args.exclude.split(",") if a}
    parts = args.part or training.PARTS
    if args.cache is not None and args.cache.exists():
        held, train = pickle.loads(args.cache.read_bytes())
    else:
        held = queries(session_files(str(args.held.resolve())))
        train = training_queries(parts, excluded, args.folds)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps((held, train)))
    targeted, nothing = _asked(args.held.resolve())
    report: dict[str, Any] = {
        "held": str(args.held),
        "shipped rule": _figures(
            score(
                held,
                (),
                lambda x: shipped.bias + float(np.array(shipped.weights) @ np.array(x)),
                shipped.threshold,
                NEVER,
            ),
            targeted,
            nothing,
        ),
        "variants": [],
    }
    extracted: list[Query] | None = None
    if args.extracted_subjects:
        subjects, report["extracted subjects"] = extracted_subjects(args.held.resolve())
        extracted = with_subjects(held, subjects)
    authors = sorted({q.author for q in train})
    groups = [set(authors[g :: args.groups]) for g in range(args.groups)]
    chosen = [n for n in args.sets.split(",") if n] or list(FEATURE_SETS)
    variants = [(name, FEATURE_SETS[name], NEVER) for name in chosen]
    variants += [(f"dominant term at {t}", (), Dominant(t)) for t in args.dominant]
    variants += [(f"dominant term of a yes/no question at {t}", (), Dominant(t, True)) for t in args.dominant_polar]
    for name, extras, dominant in variants:
        logit = fit(train, extras, dominant)
        folds: list[Score] = [fit([q for q in train if q.author not in g], extras, dominant) for g in groups]
        entry: dict[str, Any] = {"variant": name, "held": {}, "author groups": {}}
        for p in PROBABILITIES:
            threshold = math.log(p / (1 - p))
            entry["held"][p] = _figures(score(held, extras, logit, threshold, dominant), targeted, nothing)
            if extracted is not None:
                found = score(extracted, extras, logit, threshold, dominant)
                entry.setdefault("held, extraction's subjects", {})[p] = _figures(found, targeted, nothing)
            pooled = [0, 0, 0, 0]
            for group, fold_logit in zip(groups, folds, strict=True):
                counts = score([q for q in train if q.author in group], extras, fold_logit, threshold, dominant)
                pooled = [a + b for a, b in zip(pooled, counts, strict=True)]
            entry["author groups"][p] = _figures(pooled, pooled[1], pooled[3])
        report["variants"].append(entry)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held", type=Path, required=True, help="a folder of author folders scored out of fold")
    parser.add_argument(
        "--part", action="append", help="training part under eval/realistic (default: dev, test, measured)"
    )
    parser.add_argument("--exclude", default="", help="authors left out of training, comma-separated")
    parser.add_argument("--folds", type=int, default=training.FOLDS, help="author folds of the cross-fitted tables")
    parser.add_argument("--groups", type=int, default=4, help="author groups scored left out (default 4)")
    parser.add_argument("--dominant", type=float, action="append", default=[], help="score the dominant-term rule at T")
    parser.add_argument(
        "--dominant-polar", type=float, action="append", default=[], help="the dominant-term rule for yes/no questions"
    )
    parser.add_argument("--sets", default="", help="feature sets to fit, comma-separated names (default: all)")
    parser.add_argument(
        "--cache", type=Path, help="keep the weighed queries in FILE (read back when it exists: same arguments only)"
    )
    parser.add_argument(
        "--extracted-subjects", action="store_true", help="also score the held folder on extraction's subjects"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run(args)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    print(f"{report['held']}: shipped rule {report['shipped rule']}")
    for entry in report["variants"]:
        held = "  ".join(f"{p}: {f['hit_at_5']}/{f['empty']}" for p, f in entry["held"].items())
        groups = "  ".join(f"{p}: {f['hit_at_5']}/{f['empty']}" for p, f in entry["author groups"].items())
        print(f"{entry['variant']:48} held {held} | author groups {groups}")
        if "held, extraction's subjects" in entry:
            found = entry["held, extraction's subjects"].items()
            print(
                f"{'':48} held, extraction's subjects "
                + "  ".join(f"{p}: {f['hit_at_5']}/{f['empty']}" for p, f in found)
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
