"""Print what the sentence reader reads in the user turns of realistic sessions, sentence by sentence.

    .venv/bin/python scripts/realistic_reader_trace.py --corpus <copy of d22, d23, d24>
    .venv/bin/python scripts/realistic_reader_trace.py --corpus DIR --session d23-004 --model /tmp/r.json

For every user turn holding a sentence the reader admits as a preference or decision (summed
probability at least the model's `threshold`) where the gold labels that sentence nothing of the two
(a one-off request, a report, a deferral, a retirement …), prints the turn's prose sentences — the
sentence and its neighbours — each with its gold label (`quality.reader_data`'s labelling) and the
reader's probability of each collapsed reading (`pref`, `dec`, `disc`, `ret`, `none`), marking the
admitted ones. With `--session`, every user turn of those sessions. `--model` reads a weights file
(a fold's, say) instead of the shipped one. Deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.reader import KINDS, READINGS, STATEMENTS, ReaderModel, default_reader_model, turn_features
from autopatch_j.quality.reader_data import gold_label
from autopatch_j.quality.realistic import Session, load_realistic

SHORT = {"user_preference": "pref", "project_decision": "dec", "discussion_context": "disc", "retirement": "ret"}


def trace_session(session: Session, model: ReaderModel, *, every: bool) -> list[str]:
    """The printed lines of one session: its flagged user turns (every user turn when `every`)."""
    lexicon = default_lexicon()
    not_memories = [(nm.turn, nm.quote, nm.why) for nm in session.not_memories if nm.role == "user"]
    lines: list[str] = []
    for index, turn in enumerate(session.turns):
        previous = session.turns[index - 1].assistant if index else ""
        rows = []
        flagged = False
        for sentence, feats in turn_features(turn.user, previous, lexicon):
            p = model.probabilities(feats)
            gold = gold_label(session.memories, not_memories, index, turn.user, sentence, lexicon)
            admitted = p[STATEMENTS[0]] + p[STATEMENTS[1]] >= model.threshold
            flagged |= admitted and gold not in KINDS[:2] and gold != "assent"
            probs = " ".join(f"{SHORT.get(r, r)} {p[r]:.2f}" for r in READINGS)
            rows.append(f"  {'*' if admitted else ' '} [{gold}] {probs} | {sentence[:110]}")
        if rows and (flagged or every):
            lines.append(f"{session.id} turn {index}:")
            lines.extend(rows)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a folder of realistic sessions")
    parser.add_argument("--session", action="append", default=[], help="print every user turn of this session")
    parser.add_argument("--model", type=Path, help="reader weights to use instead of the shipped ones")
    args = parser.parse_args(argv)
    model = (
        ReaderModel.from_data(json.loads(args.model.read_text(encoding="utf-8")))
        if args.model
        else default_reader_model()
    )
    part = load_realistic(args.corpus)
    chosen = set(args.session)
    for session in part.sessions:
        if chosen and session.id not in chosen:
            continue
        for line in trace_session(session, model, every=bool(chosen)):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
