"""Class every miss of a realistic part: why a gold memory is not among the memories stored.

    .venv/bin/python scripts/realistic_misses.py --corpus eval/realistic/measured/i1
    .venv/bin/python scripts/realistic_misses.py --corpus DIR --list      # every miss and wrong memory
    .venv/bin/python scripts/realistic_misses.py --corpus DIR --json

Each session is played through the real pipeline with the offline extractor (as `autopatch-j eval
--part realistic` plays it). A gold memory still active at the end that no active stored memory of its
kind quotes is missed, in one of these classes:

- `never_stored`: no stored memory, active or not, quotes any of its sources;
- `other_kind`: an active memory quotes it under another kind;
- `superseded`: a memory that quoted it was stored and is no longer active;
- `joined`: an active memory of its kind quotes it, but that memory already counts for another gold
  memory (two rules in one memory; the eval counts each stored memory once);
- `assent_unsignalled` (a part of `never_stored`): its sources include an assistant sentence the
  lexicon reads no proposal in (`Lexicon.proposals_in`) — an assent to a proposal without a signal word.

A `never_stored` miss also says where the chain dropped its user sentence (`stage`, with the
reader's summed preference-or-decision probability of that sentence in its turn):

- `pasted`: the quote is in no prose sentence (the structure step read it as material or a report);
- `reader`: the reader reads it below its `threshold` (its reading: none, discussion, retirement);
- `gate`: read as a statement, not surely, and a hard gate refuses it (`Lexicon.passes_gates`);
- `evidence`: admitted, but below the validator's `EVIDENCE_THRESHOLD` with no listed marker, so
  the validator drops it (M-42);
- `after`: admitted with evidence; lost after the reading (assent, joining, the candidate limit,
  Stage 2);
- `assistant`: the gold memory has no user source.

`wrong` counts the active stored memories that quote no gold memory of any state. Deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.lexicon import default_lexicon
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.reader import EVIDENCE_THRESHOLD, STATEMENTS, default_reader_model, turn_features
from autopatch_j.quality.realistic import GoldMemory, Session, load_realistic
from autopatch_j.quality.realistic_eval import Stored, matches, overlap, run_session, score_session

CLASSES = ("never_stored", "other_kind", "superseded", "joined")
STAGES = ("assistant", "pasted", "reader", "gate", "evidence", "after")


@dataclass(frozen=True)
class Miss:
    session: str
    gold: str
    kind: str
    subject: str
    cls: str
    unsignalled: bool
    quotes: tuple[str, ...]
    stage: str = ""  # where a never-stored miss was dropped (module docstring), with the reader's probability


def _quotes(session: Session, memory: Stored, gold: GoldMemory) -> bool:
    """`memory` quotes one of `gold`'s sources, whatever its kind."""
    wanted = [(s.turn, s.role, s.quote) for s in gold.sources]
    return any(overlap(session, have, want) for have in memory.sources for want in wanted)


def _unsignalled(session: Session, gold: GoldMemory) -> bool:
    lexicon = default_lexicon()
    for source in gold.sources:
        if source.role != "assistant":
            continue
        proposals = lexicon.proposals_in(session.turns[source.turn].assistant or "")
        if not any(source.quote.strip() in p or p in source.quote for p in proposals):
            return True
    return False


def stage(session: Session, gold: GoldMemory) -> str:
    """Where the chain dropped `gold`'s user sentences: the furthest stage (`STAGES`, in chain order)
    any sentence holding one of its user quotes reached, with that sentence's summed
    preference-or-decision probability; `assistant` when it has no user source."""
    lexicon, model = default_lexicon(), default_reader_model()
    furthest: tuple[int, float] | None = None
    for source in gold.sources:
        if source.role != "user":
            continue
        previous = session.turns[source.turn - 1].assistant if source.turn else ""
        text = session.turns[source.turn].user
        reached: tuple[int, float] = (STAGES.index("pasted"), 0.0)
        for sentence, feats in turn_features(text, previous, lexicon):
            if not _holds(text, sentence, source.quote.strip()):
                continue
            p = model.probabilities(feats)
            stated = p[STATEMENTS[0]] + p[STATEMENTS[1]]
            reading = model.reading(feats)
            marked = lexicon.reads_as_statement(sentence) or lexicon.is_explicit(source.quote)
            if reading.label not in STATEMENTS:
                here = "reader"
            elif not reading.sure and not lexicon.passes_gates(sentence):
                here = "gate"
            elif stated < EVIDENCE_THRESHOLD and not marked:
                here = "evidence"
            else:
                here = "after"
            reached = max(reached, (STAGES.index(here), stated))
        furthest = reached if furthest is None else max(furthest, reached)
    if furthest is None:
        return "assistant"
    name = STAGES[furthest[0]]
    return name if name == "pasted" else f"{name} p={furthest[1]:.2f}"


def _holds(text: str, sentence: str, quote: str) -> bool:
    """`sentence` and `quote` of the turn `text` share half of either (as the reader's training labels
    a sentence by a quote)."""
    start, at = text.find(sentence), text.find(quote)
    if start < 0 or at < 0:
        return quote in sentence or sentence in quote
    shared = min(start + len(sentence), at + len(quote)) - max(start, at)
    return shared > 0 and (shared >= 0.5 * len(sentence) or shared >= 0.5 * len(quote))


def misses(session: Session, author: str, stored: list[Stored]) -> tuple[list[Miss], list[Stored]]:
    """The session's missed gold memories with their class, and its wrong active memories."""
    active = [m for m in stored if m.status == "active"]
    score = score_session(session, author, stored)
    missed_keys = {note.split()[1] for note in score.notes if note.startswith("missed ")}
    found: list[Miss] = []
    for gold in session.memories:
        if gold.key not in missed_keys:
            continue
        if any(matches(session, m, gold) for m in active):
            cls = "joined"
        elif any(_quotes(session, m, gold) for m in active):
            cls = "other_kind"
        elif any(_quotes(session, m, gold) for m in stored if m.status != "active"):
            cls = "superseded"
        else:
            cls = "never_stored"
        found.append(
            Miss(
                session=session.id,
                gold=gold.key,
                kind=gold.kind,
                subject=gold.subject,
                cls=cls,
                unsignalled=cls == "never_stored" and _unsignalled(session, gold),
                quotes=tuple(s.quote for s in gold.sources),
                stage=stage(session, gold) if cls == "never_stored" else "",
            )
        )
    wrong = [m for m in active if not any(_quotes(session, m, g) for g in session.memories)]
    return found, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", required=True, help="a folder of realistic sessions (FORMAT.md)")
    parser.add_argument("--list", action="store_true", help="print every miss and every wrong memory")
    parser.add_argument("--json", action="store_true", help="print the counts and the misses as JSON")
    args = parser.parse_args(argv)
    folder = Path(args.corpus)
    if not folder.is_dir():
        print(f"No such folder: {folder}.", file=sys.stderr)
        return 2
    part = load_realistic(folder)
    all_misses: list[Miss] = []
    wrong: list[tuple[str, Stored]] = []
    with tempfile.TemporaryDirectory(prefix="realistic-misses-", ignore_cleanup_errors=True) as scratch:
        for n, session in enumerate(part.sessions):
            stored, _ = run_session(session, Path(scratch) / f"{n:03d}", RulesExtractor())
            found, bad = misses(session, part.authors[session.id], stored)
            all_misses.extend(found)
            wrong.extend((session.id, m) for m in bad)
    counts = Counter(m.cls for m in all_misses)
    stages = Counter(m.stage.split()[0] for m in all_misses if m.stage)
    summary = {
        "missed": len(all_misses),
        **{cls: counts[cls] for cls in CLASSES},
        "assent_unsignalled": sum(m.unsignalled for m in all_misses),
        **{f"never_stored_at_{name}": stages[name] for name in STAGES},
        "wrong": len(wrong),
    }
    if args.json:
        print(json.dumps({"counts": summary, "misses": [m.__dict__ for m in all_misses]}, ensure_ascii=False))
        return 0
    print(", ".join(f"{key} {value}" for key, value in summary.items()))
    if args.list:
        for m in all_misses:
            mark = " (assent to an unsignalled proposal)" if m.unsignalled else ""
            mark += f" [{m.stage}]" if m.stage else ""
            print(f"{m.session} {m.gold} [{m.kind}, {m.subject!r}] {m.cls}{mark}: {' // '.join(m.quotes)[:160]}")
        for session_id, memory in wrong:
            print(f"{session_id} wrong {memory.kind}: {' '.join(memory.content.split())[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
