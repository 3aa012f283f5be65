"""Assents through the pipeline, out of fold: which assistant sentence each confirmed proposal stores.

    .venv/bin/python scripts/assent_eval.py                  # every author, each read by its fold's model
    .venv/bin/python scripts/assent_eval.py --shipped        # the extractor as shipped (no refit)
    .venv/bin/python scripts/assent_eval.py --author d7 --list

Each session of the training parts (`quality.realistic.training_parts`) is played through the real
pipeline (`quality.realistic_eval.run_session`). Without `--shipped`, the assent model reading an
author's sessions is the one `scripts/train_assent.py` fits without that author's fold (its FOLDS
folds by author, the labelled fixes in every fold's training): the figure a fresh author would see.

Printed per part and in total: memory-level precision and recall as `autopatch-j eval --part
realistic` scores them, right / stored, contradictions, duplicates, the miss classes of
`scripts/realistic_misses.py`; and the assent class: every gold memory quoting an assistant sentence
and a user sentence, stored with the right assistant sentence (a memory quoting its user quote and an
overlapping assistant quote), with another sentence of that answer (by what that sentence is: a
question, an intro to code or a list, another option, a rationale, framing), with no assistant quote,
or not stored. Deterministic; `--shipped` needs only the package.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import realistic_misses

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.sentences import fold
from autopatch_j.quality.realistic import Session, find_checkout_part, training_parts
from autopatch_j.quality.realistic_eval import SessionScore, Stored, figures, overlap, run_session, score_session


def _extractors(directory: Path, shipped: bool) -> tuple[dict[str, int], dict[int, Any]]:
    """Each author's fold and each fold's assent model ({} and {} with `shipped`)."""
    if shipped:
        return {}, {}
    import train_assent

    from autopatch_j.memory.assent_choice import AssentModel

    examples, fixes = train_assent.labelled(directory, []), train_assent.fixes_of(directory)
    fold_of = train_assent.folds_of(examples)
    data = json.loads(train_assent.DEFAULT_OUT.read_text(encoding="utf-8"))
    models = {}
    for n in range(train_assent.FOLDS):
        bias, weights = train_assent.fit([e for e in examples if fold_of[e.author] != n], fixes)
        models[n] = AssentModel(bias=bias, weights=weights, floor=float(data["floor"]), also=float(data["also"]))
    return fold_of, models


def _extractor(author: str, fold_of: dict[str, int], models: dict[int, Any]) -> RulesExtractor:
    extractor = RulesExtractor()
    if author in fold_of:
        from autopatch_j.memory.assent import AssentReader

        extractor.assent = AssentReader(extractor.lexicon, model=models[fold_of[author]])
    return extractor


def _what(sentence: str, answer: str, gold: list[str]) -> str:
    """What a wrongly quoted assistant sentence is (see the module docstring)."""
    folded = fold(sentence).rstrip()
    if folded.endswith(("?", "？")) or default_lexicon().is_question(sentence):
        return "question"
    if folded.endswith((":", "：")):
        return "intro"
    line_start = answer.rfind("\n", 0, max(answer.find(sentence), 0)) + 1
    line = answer[line_start : line_start + 6].lstrip()
    if line[:1] in "-*•" or line[:1].isdigit() or "**" in sentence or "option" in folded or "方案" in sentence:
        return "other_option"
    at, first = answer.find(sentence), min((answer.find(g) for g in gold if g in answer), default=-1)
    if default_lexicon().points_back(sentence) or (first >= 0 and at > first):
        return "rationale"
    return "framing"


def assent_class(session: Session, stored: list[Stored]) -> Counter[str]:
    """The assent class of each gold memory quoting an assistant and a user sentence (module docstring)."""
    counts: Counter[str] = Counter()
    for gold in session.memories:
        assistant = [(s.turn, s.role, s.quote) for s in gold.sources if s.role == "assistant"]
        user = [(s.turn, s.role, s.quote) for s in gold.sources if s.role == "user"]
        if not assistant or not user:
            continue
        counts["gold"] += 1
        holding = [m for m in stored if any(overlap(session, have, want) for have in m.sources for want in user)]
        if not holding:
            counts["not stored"] += 1
            continue
        turns = {t for t, _, _ in assistant}
        quoted = [have for m in holding for have in m.sources if have[1] == "assistant" and have[0] in turns]
        if any(overlap(session, have, want) for have in quoted for want in assistant):
            counts["right"] += 1
        elif quoted:
            turn = quoted[0][0]
            counts["wrong"] += 1
            counts["wrong " + _what(quoted[0][2], session.turns[turn].assistant, [q for _, _, q in assistant])] += 1
        else:
            counts["no assistant quote"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shipped", action="store_true", help="the extractor as shipped, no fold models")
    parser.add_argument("--author", action="append", default=[], help="only these authors (default: all)")
    args = parser.parse_args(argv)
    directory = find_checkout_part(Path(__file__).resolve().parent)
    if directory is None:
        print("No realistic part found (run from a checkout).", file=sys.stderr)
        return 2
    fold_of, models = _extractors(directory, args.shipped)
    scratch = Path(tempfile.mkdtemp(prefix="assent-eval-"))
    scores: dict[str, list[SessionScore]] = {}
    classes: dict[str, Counter[str]] = {}
    n = 0
    try:
        for name, part in training_parts(directory).items():
            scores[name], classes[name] = [], Counter()
            for session in part.sessions:
                author = part.authors[session.id]
                if args.author and author not in args.author:
                    continue
                n += 1
                stored, hits = run_session(session, scratch / f"{n:05d}", _extractor(author, fold_of, models))
                scores[name].append(score_session(session, author, stored, hits))
                missed, wrong = realistic_misses.misses(session, author, stored)
                classes[name].update(m.cls for m in missed)
                classes[name]["wrong memories"] += len(wrong)
                classes[name].update(f"assent {k}" for k, v in assent_class(session, stored).items() for _ in range(v))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    every = [s for part in scores.values() for s in part]
    total: Counter[str] = sum(classes.values(), Counter())
    for name, part_scores in [*scores.items(), ("all", every)]:
        if not part_scores:
            continue
        t = figures(part_scores)
        counts = classes[name] if name != "all" else total
        print(
            f"{name}: precision {t['precision']:.4f}, recall {t['recall']:.4f}, right {t['right']} of stored"
            f" {t['stored_active']}, gold {t['gold_active']}, contradictions {t['contradictions']},"
            f" duplicates {t['duplicates']}; " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
