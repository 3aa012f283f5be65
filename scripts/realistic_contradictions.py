"""List every contradiction of a realistic part with the sentences involved.

    .venv/bin/python scripts/realistic_contradictions.py                       # the checkout's dev part
    .venv/bin/python scripts/realistic_contradictions.py --corpus eval/realistic/test
    .venv/bin/python scripts/realistic_contradictions.py --session t4-012 --all
    .venv/bin/python scripts/realistic_contradictions.py --reader --summary   # Stage 1 read by the reader

For each session with a contradiction (`autopatch-j eval --part realistic` counts them: a stale
memory, two active memories matched to gold memories of one subject, two active memories with one
stored subject), prints the gold memories of the subjects concerned (state, sources) and every stored
memory (status, stored subject, content, sources), so a class of misses can be read off the list.
`--all` prints the sessions without a contradiction too; `--summary` prints only the count of each
class; `--reader` reads Stage 1 with the trained sentence reader (`RulesExtractor(read_with_model=True)`)
whatever the default. Offline extractor, deterministic.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.quality.realistic import GoldMemory, Session, find_checkout_part, load_realistic
from autopatch_j.quality.realistic_eval import Stored, matches, overlap, run_session, score_session


def _clip(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def classes(session: Session, stored: list[Stored]) -> list[str]:
    """What went wrong with each gold memory the user took back that a stored active memory still
    represents: the replacement was never read, was read as another kind, was read but replaced
    nothing; the retirement was never read, or was read but retired another memory (a memory no
    longer active holds a user sentence said after the gold one)."""
    found: list[str] = []
    keys = {g.key: g for g in session.memories}
    for gold in session.memories:
        if gold.state == "active" or not any(m.status == "active" and matches(session, m, gold) for m in stored):
            continue
        if gold.state == "superseded" and gold.superseded_by in keys:
            found.append(f"{gold.key}: replacement {_replacement(session, stored, keys[gold.superseded_by])}")
            continue
        said = max(s.turn for s in gold.sources)
        retired_other = [
            m for m in stored if m.status != "active" and any(t > said and r == "user" for t, r, _ in m.sources)
        ]
        found.append(
            f"{gold.key}: retirement {'read, retired another' if retired_other else 'not read (or read as nothing)'}"
        )
    return found


def _replacement(session: Session, stored: list[Stored], new: GoldMemory) -> str:
    wanted = [(s.turn, s.role, s.quote) for s in new.sources]
    near = [m for m in stored if any(overlap(session, h, w) for h in m.sources for w in wanted)]
    if not near:
        return "not read"
    if any(m.kind == new.kind for m in near):
        return "read, replaced nothing"
    return f"read as {near[0].kind}"


def report(session: Session, author: str, stored: list[Stored], *, everything: bool) -> int:
    score = score_session(session, author, stored)
    if not score.contradictions and not everything:
        return 0
    print(f"== {session.id} ({author}, {session.language}): stale {score.stale}, subject {score.subject_conflicts},"
          f" stored subject {score.store_subject_conflicts}")  # fmt: skip
    for line in classes(session, stored):
        print(f"   class {line}")
    for note in score.notes:
        if note.startswith(("still active", "2 active", "3 active")) or everything:
            print(f"   note: {note}")
    for gold in session.memories:
        by = f" by {gold.superseded_by}" if gold.superseded_by else ""
        print(f"   gold {gold.key} [{gold.kind}, {gold.subject!r}, {gold.state}{by}]: {_clip(gold.content)}")
        for src in gold.sources:
            print(f"        t{src.turn} {src.role}: {_clip(src.quote)}")
    for memory in stored:
        where = f"{memory.kind}, {memory.status}, {memory.subject!r}"
        print(f"   stored #{memory.memory_id} [{where}]: {_clip(memory.content)}")
        for at, role, quote in memory.sources:
            print(f"        t{at} {role}: {_clip(quote)}")
    print("   turns:")
    for n, turn in enumerate(session.turns):
        print(f"        t{n} user: {_clip(turn.user, 220)}")
    return score.contradictions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None, help="a realistic part folder (default: the checkout's)")
    parser.add_argument("--session", action="append", default=[], help="only this session id (repeatable)")
    parser.add_argument("--all", action="store_true", help="print sessions without a contradiction too")
    parser.add_argument("--summary", action="store_true", help="print only the count of each class")
    parser.add_argument("--reader", action="store_true", help="read Stage 1 with the trained sentence reader")
    args = parser.parse_args(argv)
    folder = args.corpus or find_checkout_part(Path.cwd(), Path(__file__).resolve())
    if folder is None:
        print("no eval/realistic folder found; pass --corpus DIR", file=sys.stderr)
        return 2
    part = load_realistic(folder)
    base = Path(tempfile.mkdtemp(prefix="realistic-contradictions-"))
    total = 0
    counts: Counter[str] = Counter()
    try:
        for n, session in enumerate(part.sessions):
            if args.session and session.id not in args.session:
                continue
            stored, _ = run_session(session, base / f"{n:03d}", RulesExtractor(read_with_model=args.reader or None))
            if args.summary:
                score = score_session(session, part.authors[session.id], stored)
                total += score.contradictions
                if score.contradictions:  # as the listing: a memory that also matches an active gold is no stale one
                    counts.update(line.split(": ", 1)[1] for line in classes(session, stored))
                counts["two active memories on one gold subject"] += score.subject_conflicts
                counts["two active memories with one stored subject"] += score.store_subject_conflicts
            else:
                total += report(session, part.authors[session.id], stored, everything=args.all)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for name, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{count:5d}  {name}")
    print(f"contradictions: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
