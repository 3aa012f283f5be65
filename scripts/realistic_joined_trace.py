"""Trace the `joined` misses of a realistic part: which decision put two gold memories in one memory.

    .venv/bin/python scripts/realistic_joined_trace.py --corpus <copy of d25, d26, d27>
    .venv/bin/python scripts/realistic_joined_trace.py --corpus DIR --clauses /tmp/clause_model.json

Each session is played through the real pipeline with the offline extractor (as `autopatch-j eval
--part realistic` plays it) and classed by `scripts/realistic_misses.py`. For each `joined` miss (an
active memory of its kind quotes the gold memory but already counts for another one) it prints the
gold quotes, the memory holding them with its sources, and the decision that joined them:

- `one sentence`: the memory quotes one user sentence of its turn holding both rules — the sentence
  splitter never parted them (no sentence end between them);
- `joining model`: the memory quotes several sentences of one turn — each adjacent pair with the
  joining model's probability (`joining.py`) and its threshold (a pair under the threshold was
  joined by another rule of Stage 1, `statements.py`);
- `other`: quotes of several turns or of the assistant only.

With `--clauses`, a clause model written by `scripts/train_clauses.py --pauses --out …` is read too
and each boundary of a `one sentence` memory is printed with its probability (the cut that would
part the sentence there). Ends with the count of each decision. Deterministic; the shipped tables
unless another package is first on `PYTHONPATH` (a fold's tables, say).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import realistic_misses

from autopatch_j.memory.joining import default_joining_model, join_features
from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.reader import default_reader_model
from autopatch_j.memory.speech_model import logistic
from autopatch_j.memory.subjects import default_subject_model
from autopatch_j.quality.clause_data import Clause, clause_cuts, clause_features, local_units
from autopatch_j.quality.realistic import Session, load_realistic
from autopatch_j.quality.realistic_eval import Stored, matches, run_session

DECISIONS = ("one sentence", "joining model", "other")


def decision(memory: Stored) -> str:
    """Which decision made `memory` hold more than one rule (`DECISIONS`)."""
    users = [(turn, quote) for turn, role, quote in memory.sources if role == "user"]
    if len(users) == 1:
        return "one sentence"
    if len(users) > 1 and len({turn for turn, _ in users}) == 1:
        return "joining model"
    return "other"


def joining_lines(session: Session, memory: Stored) -> list[str]:
    """Each adjacent pair of `memory`'s user quotes of one turn with the joining model's probability."""
    model, subjects, lexicon = default_joining_model(), default_subject_model(), default_lexicon()
    users = [(turn, quote) for turn, role, quote in memory.sources if role == "user"]
    lines = []
    for (turn_a, a), (turn_b, b) in itertools.pairwise(users):
        if turn_a != turn_b:
            continue
        features = join_features(session.turns[turn_a].user, a, b, (memory.kind, memory.kind), subjects, lexicon)
        lines.append(f"    join p={model.probability(features):.3f} (threshold {model.threshold}): {a!r} + {b!r}")
    return lines


def clause_lines(memory: Stored, clauses: dict[str, Any]) -> list[str]:
    """Each pause or comma boundary of `memory`'s one user quote with the clause model's probability."""
    subjects, reader, lexicon = default_subject_model(), default_reader_model(), default_lexicon()
    sentence = next(quote for _, role, quote in memory.sources if role == "user")
    cuts = clause_cuts(sentence, pauses=True)
    lines = []
    for n, (left, right) in enumerate(itertools.pairwise(cuts)):
        a, b = Clause(0, left.end, left.mark), Clause(right.start, len(sentence), "")
        local = local_units(sentence, cuts, n)
        features = clause_features(sentence, a, b, memory.kind, subjects, reader, lexicon, local)
        p = logistic(clauses["bias"], clauses["weights"], features)
        lines.append(f"    cut p={p:.3f} ({left.mark}): {sentence[left.start : left.end]!r} | {local[1]!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", required=True, help="a folder of realistic sessions (FORMAT.md)")
    parser.add_argument("--clauses", type=Path, help="a clause model (train_clauses.py --pauses --out)")
    args = parser.parse_args(argv)
    folder = Path(args.corpus)
    if not folder.is_dir():
        print(f"No such folder: {folder}.", file=sys.stderr)
        return 2
    clauses = json.loads(args.clauses.read_text(encoding="utf-8")) if args.clauses else None
    part = load_realistic(folder)
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="joined-trace-", ignore_cleanup_errors=True) as scratch:
        for n, session in enumerate(part.sessions):
            stored, _ = run_session(session, Path(scratch) / f"{n:03d}", RulesExtractor())
            found, _ = realistic_misses.misses(session, part.authors[session.id], stored)
            for miss in found:
                if miss.cls != "joined":
                    continue
                gold = next(g for g in session.memories if g.key == miss.gold)
                print(f"== {session.id} {miss.gold} [{miss.kind}] gold quotes: {list(miss.quotes)}")
                for memory in (m for m in stored if m.status == "active" and matches(session, m, gold)):
                    made_by = decision(memory)
                    counts[made_by] += 1
                    print(f"  held by {memory.kind} #{memory.memory_id} ({made_by}): {memory.sources}")
                    if made_by == "joining model":
                        print("\n".join(joining_lines(session, memory)))
                    elif made_by == "one sentence" and clauses is not None:
                        print("\n".join(clause_lines(memory, clauses)))
    print(", ".join(f"{name} {counts[name]}" for name in DECISIONS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
