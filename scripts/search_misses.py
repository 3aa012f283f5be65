"""Classify every miss of the query eval (scripts/query_eval.py) by why the search missed it.

For each session of `eval/realistic/<part>/*/*.json` the gold active memories are stored as the query
eval stores them; each query is weighed by `memory.search.plan_in_tx` against the store and held
against the target's postings:

- `no_terms`: the query has no informative term (all fillers);
- `no_shared_term`: the target holds none of the query's terms or their alternatives (vocabulary);
- `below_share`: it holds some, but they carry less than the floor share of the query's weight;
- `one_term`: it reaches the floor with a single term of a query of several;
- `not_an_answer`: it passes the floor, but the learned rule (memory/qualifier.py) says it does not answer;
  the miss then shows the rule's score (a logit), its threshold and each feature's part of the score
  (`qualifier`: weight × value, and the bias), as does an answered nothing-query of its first hit;
- `outranked`: it qualifies but other memories fill the five places (or the candidate bound cut it);
- for a nothing-query that returned something: `nonempty`.

Each miss lists the query's terms as held (`+key`) or not (`-key`) with their weights, and the report
counts the classes and the terms missed most often, per language of the query.

    python scripts/search_misses.py [--part dev] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from query_eval import answers, language, load_sessions, session_files

from autopatch_j.memory.qualifier import FEATURES, crosses, features, qualifier
from autopatch_j.memory.search import plan_in_tx
from autopatch_j.memory.text import has_cjk

_POSTINGS = (
    "SELECT t.term FROM memory_postings p JOIN memory_term_stats t ON t.id = p.term_id "
    "JOIN memory_items i ON i.id = p.item_id WHERE i.memory_id = ?"
)

_TITLE = "SELECT title FROM memory_items WHERE memory_id = ? AND status = 'active'"


def classify(conn: object, query: str, memory_id: int | None, hit_ids: list[int]) -> dict[str, object]:
    """Why `query` missed `memory_id` (or, for a nothing-query, why it returned something)."""
    plan = plan_in_tx(conn, query=query)  # type: ignore[arg-type]
    if plan is None:
        return {"class": "no_terms" if memory_id is not None else "nonempty", "terms": []}
    target = memory_id if memory_id is not None else (hit_ids[0] if hit_ids else None)
    held_keys = {row[0] for row in conn.execute(_POSTINGS, (target,))} if target else set()  # type: ignore[attr-defined]
    total = sum(plan.weights)
    rows = []
    share = 0.0
    count = 0
    for n, term in enumerate(plan.terms):
        held = [key for key, _ in plan.alternatives[n] if key in held_keys]
        rows.append(f"{'+' if held else '-'}{term.key}:{plan.weights[n] / total:.2f}")
        if held:
            share += plan.weights[n]
            count += 1
    rule = qualifier()
    title = conn.execute(_TITLE, (target,)).fetchone()[0] if target else ""  # type: ignore[attr-defined]
    across = crosses(query_cjk=any(has_cjk(term.key) for term in plan.terms), title=title)
    judged = {"share": share / total, "held": count, "terms": len(plan.terms), "keys": len(held_keys), "across": across}
    past = count > 0 and share >= plan.min_share - 1e-9 and count >= min(rule.min_terms, len(plan.terms))
    if memory_id is None:
        cls = "nonempty"
    elif count == 0:
        cls = "no_shared_term"
    elif share < plan.min_share - 1e-9:
        cls = "below_share"
    elif not past:
        cls = "one_term"
    elif not rule.answers(**judged):  # type: ignore[arg-type]
        cls = "not_an_answer"
    else:
        cls = "outranked"
    found: dict[str, object] = {"class": cls, "terms": rows, "share": round(share / total, 2)}
    if past:  # what the learned rule made of the target (a nothing-query: of its first hit)
        values = features(**judged)  # type: ignore[arg-type]
        parts = {"bias": rule.bias} | {name: w * v for name, w, v in zip(FEATURES, rule.weights, values, strict=True)}
        found["qualifier"] = {"score": sum(parts.values()), "threshold": rule.threshold, "parts": parts}
    return found


def run(part: str) -> dict[str, object]:
    misses: list[dict[str, object]] = []
    for answer in answers(load_sessions(session_files(part))):
        if answer.hit:
            continue
        memory: dict[str, str] = answer.target or {}
        wanted = answer.ids.get(answer.query["target"]) if memory else None
        with answer.manager.db.read("classify a miss") as conn:
            why = classify(conn, answer.query["query"], wanted, [hit.memory_id for hit in answer.hits])
        memory_text = f"{memory.get('title', '')} {memory.get('content', '')}"
        misses.append(
            {
                "session": answer.session["id"],
                "lang": language(answer.query["query"]),
                "cross": bool(memory) and language(answer.query["query"]) != language(memory_text),
                "query": answer.query["query"],
                "target": memory.get("title"),
                "got": [hit.title for hit in answer.hits],
                **why,
            }
        )
    classes = Counter(str(m["class"]) for m in misses)
    missing = Counter(
        str(t)[1:].rsplit(":", 1)[0]
        for m in misses
        if m["class"] in ("below_share", "no_shared_term")
        for t in m["terms"]  # type: ignore[attr-defined]
        if str(t).startswith("-")
    )
    return {
        "part": part,
        "classes": dict(classes.most_common()),
        "missing_terms": missing.most_common(60),
        "misses": misses,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="dev", help="folder under eval/realistic (default: dev)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run(args.part)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
        return 0
    for miss in report["misses"]:  # type: ignore[attr-defined]
        print(f"{miss['class']:15} {miss['session']}: {miss['query']!r} → {miss['target']!r} {' '.join(miss['terms'])}")
    print(f"{report['part']}: {report['classes']}")
    print("terms missed most:", report["missing_terms"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
