"""Trace Stage 2 where a realistic session ends with one subject wrong: the values behind each operation.

    .venv/bin/python scripts/realistic_supersede_trace.py --corpus <copy of d22, d23, d24>
    .venv/bin/python scripts/realistic_supersede_trace.py --corpus DIR --session d23-018 --session d24-004
    .venv/bin/python scripts/realistic_supersede_trace.py --corpus DIR --summary

Each session is played through the real pipeline with the offline extractor (as `autopatch-j eval
--part realistic` plays it). A session is printed when its score has a *duplicate* (a second active
memory on one gold memory), a *stale* memory (active, but the gold took it back), a *subject conflict*
or a *superseded miss* (an active gold memory whose only stored memories are no longer active), and
with `--session` whatever its score. For each such session: the user turns, the gold memories
(kind, subject, state, sources), every stored memory at the end (status, stored subject, content,
sources), then every Stage-2 batch: each candidate (its turns, kind, subject, the user's words), the
operation it became and its target, and against the three related active memories the subject model
finds likeliest, the subject model's probability (`same`) and the revision model's (`rev`) for the
pair, with both thresholds — the figures `supersede.SubjectReader.target` decides on — and, for a
`supersede`, `revise` or `retire`, the step that chose its target (`step`: the subject model, the
revision model, a comparison settled, a retirement by the subject model, a retirement of what
was just said, the alternatives table, a terse value, a voted
subject, or Stage 2's stored subject or shared name in `OperationRules`). `--summary`
prints only the count of each kind of session. Deterministic; the shipped tables unless another
package is first on `PYTHONPATH` (a fold's tables, say).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

from autopatch_j.memory.batches import ConsolidationRequest, RelatedItem
from autopatch_j.memory.consolidation import subject_key
from autopatch_j.memory.contracts import ConsolidationOutput
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.records import Candidate
from autopatch_j.memory.subjects import Statement
from autopatch_j.memory.supersede import SubjectReader
from autopatch_j.quality.realistic import Session, load_realistic
from autopatch_j.quality.realistic_eval import Stored, overlap, run_session, score_session

#: The related memories printed per candidate, likeliest first.
SHOWN = 3
#: The class of each score note that marks a session as traced, by what the note says.
MARKS = {
    "duplicate of ": "duplicate",
    "still active, ": "stale",
    " active memories on subject ": "subject conflict",
    " active memories with the stored subject ": "store subject conflict",
}


def marked(note: str) -> str:
    """The class of a score note (`MARKS`), "" for a note of another class."""
    return next((cls for text, cls in MARKS.items() if text in note), "")


def _clip(text: str, n: int = 150) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


class TracingExtractor(RulesExtractor):
    """The offline extractor, recording what Stage 2 decides and the values it decides on."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        out = super().consolidate(request)
        reader = self.operations.subjects
        taken: set[int] = set()
        for candidate, op in zip(request.candidates, out.operations, strict=True):
            said = " ".join(s.quote for s in candidate.sources) or candidate.content
            turns = sorted({s.turn_id for s in candidate.sources})
            step = ""
            if op.target_memory_id is not None:
                step = f" (step: {_step(reader, candidate, request.related, taken, op.target_memory_id)})"
                taken.add(op.target_memory_id)
            self.lines.append(
                f"  candidate {candidate.id} (turn ids {turns}) {candidate.kind.value} subject {candidate.subject!r}"
                f" -> {op.op} {op.target_memory_id or ''}{step} stored as {op.subject!r}: {_clip(said)!r}"
            )
            if candidate.kind.value == "discussion_context":
                continue
            read_as = reader._new(candidate)
            rows = []
            for r in request.related:
                old = Statement(" ".join(s.quote for s in r.sources) or r.item.content, r.item.kind.value)
                same = reader.model.same_subject(read_as(r.item.kind), old)
                rows.append((same, reader.revisions.probability(read_as(r.item.kind), old, same), r))
            for same, rev, r in sorted(rows, key=lambda row: -row[0])[:SHOWN]:
                subject = r.subjects[0] if r.subjects else ""
                self.lines.append(
                    f"      memory {r.item.memory_id} {r.item.kind.value} {subject!r}: same {same:.2f} rev {rev:.2f}"
                    f" {_clip(r.item.content, 90)!r}"
                )
        self.lines.append(
            f"  (same-subject threshold {reader.model.threshold}, revision threshold {reader.revisions.threshold};"
            f" only takes a rule back: {[reader.retires(c) for c in request.candidates]})"
        )
        return out


def _step(
    reader: SubjectReader, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int], target: int
) -> str:
    """Which step of `SubjectReader.target` (or of `OperationRules` after it) chose `target` for
    `candidate`, the memories of `taken` already replaced in the batch."""
    read_as = reader._new(candidate)
    open_ = [r for r in related if r.item.memory_id not in taken]
    scored = {
        r.item.memory_id: reader.model.same_subject(
            read_as(r.item.kind), Statement(" ".join(s.quote for s in r.sources) or r.item.content, r.item.kind.value)
        )
        for r in open_
    }
    likeliest = max(open_, key=lambda r: (scored[r.item.memory_id], r.item.memory_id), default=None)
    found = next((r for r in open_ if r.item.memory_id == target), None)
    if found is None or likeliest is None:
        return "unknown"
    if found is likeliest and (reader.takes_back(candidate) or scored[target] >= reader.model.threshold):
        return "a retirement, subject model" if reader.takes_back(candidate) else "subject model"
    if found is likeliest and candidate.kind.value != "discussion_context":
        old = Statement(" ".join(s.quote for s in found.sources) or found.item.content, found.item.kind.value)
        if reader.revisions.revises(read_as(found.item.kind), old, scored[target]):
            return "revision model"
    if found.item.kind.value == "discussion_context" and not reader.takes_back(candidate):
        olds = {
            r.item.memory_id: Statement(" ".join(s.quote for s in r.sources) or r.item.content, r.item.kind.value)
            for r in open_
        }
        if reader._settled(read_as(found.item.kind), related, scored, olds) is found:
            return "a comparison settled"
    if reader.takes_back(candidate) and reader._just_said(candidate, related, taken) is found:
        return "a retirement of what was just said"
    if reader._switches_tool(
        candidate, found.item.kind, " ".join([*(s.quote for s in found.sources), found.item.content])
    ):
        return "alternatives"
    if reader._value_revised(candidate, related, taken) is found:
        return "terse value"
    voted = subject_key(reader.model.voted(" ".join(s.quote for s in candidate.sources) or candidate.content))
    if voted and found.subjects and subject_key(found.subjects[0]) == voted:
        return "voted subject"
    return "stored subject or shared name (operations)"


def superseded_misses(session: Session, stored: list[Stored], missed: set[str]) -> list[str]:
    """The missed active gold memories whose only stored memories are no longer active."""
    found = []
    for gold in session.memories:
        if gold.key not in missed:
            continue
        wanted = [(q.turn, q.role, q.quote) for q in gold.sources]
        quoting = [m for m in stored if any(overlap(session, h, w) for h in m.sources for w in wanted)]
        if quoting and all(m.status != "active" for m in quoting):
            found.append(f"superseded miss {gold.key}")
    return found


def trace(session: Session, lines: list[str], stored: list[Stored], marks: list[str]) -> None:
    print(f"===== {session.id} ({session.language}): {'; '.join(marks) or 'nothing wrong'}")
    for n, turn in enumerate(session.turns):
        print(f" user {n}: {_clip(turn.user, 300)!r}")
    for g in session.memories:
        sources = " // ".join(f"{q.turn}{q.role[0]}: {_clip(q.quote, 70)}" for q in g.sources)
        print(f" gold {g.key} {g.kind} [{g.subject}] {g.state}: {sources}")
    for m in stored:
        sources = ", ".join(f"{t}{role[0]}" for t, role, _ in m.sources)
        print(f" stored {m.memory_id} {m.status} {m.kind} [{m.subject}] ({sources}): {_clip(m.content, 110)!r}")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", required=True, help="a folder of realistic sessions (FORMAT.md)")
    parser.add_argument("--session", action="append", default=[], help="trace this session whatever its score")
    parser.add_argument("--summary", action="store_true", help="print only the count of each kind of session")
    args = parser.parse_args(argv)
    folder = Path(args.corpus)
    if not folder.is_dir():
        print(f"No such folder: {folder}.", file=sys.stderr)
        return 2
    part = load_realistic(folder)
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="supersede-trace-", ignore_cleanup_errors=True) as scratch:
        for n, session in enumerate(part.sessions):
            if args.session and session.id not in args.session:
                continue
            extractor = TracingExtractor()
            stored, _ = run_session(session, Path(scratch) / f"{n:03d}", extractor)
            score = score_session(session, part.authors[session.id], stored)
            missed = {note.split()[1] for note in score.notes if note.startswith("missed ")}
            marks = [note for note in score.notes if marked(note)]
            misses = superseded_misses(session, stored, missed)
            counts.update([*(marked(note) for note in marks), *(["superseded miss"] * len(misses))])
            marks += misses
            if (marks or args.session) and not args.summary:
                trace(session, extractor.lines, stored, marks)
    print(", ".join(f"{key} {value}" for key, value in sorted(counts.items())) or "nothing wrong")
    return 0


if __name__ == "__main__":
    sys.exit(main())
