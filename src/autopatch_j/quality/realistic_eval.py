"""Memory-level scoring of realistic sessions through the real pipeline (`eval --part realistic`).

Each session runs in its own scratch project, the way `autopatch-j eval` runs a corpus case: every
turn goes through `AgentHost.handle` (the real admission path) with a canned main model answering
the session's assistant text, and the jobs run through the real `Pipeline` and `drain` after every
turn, with the chosen extractor (offline: the embedded rules extractor). Then the stored memories are
compared with the gold:

- a stored **active** memory is *right* when it matches an active gold memory — same kind, and one
  of its sources overlaps one of the gold's sources (same turn, same role, overlapping characters).
  Each gold memory is matched once; a second stored memory on the same gold memory is a
  *duplicate* and counts as wrong. Precision = right / stored active; recall = active gold matched /
  active gold.
- **stale**: a superseded or retired gold memory that a stored active memory still matches (and
  that stored memory matches no active gold) — an agent would be told something the user took back.
- **subject conflicts**: two stored active memories matching different gold memories of the same
  subject — the agent is told two different things about one subject; and **store subject
  conflicts**: two active preferences/decisions whose stored `subject` is the same and whose
  contents differ (the store itself knows they are about one thing). *Contradictions* = stale +
  both; the invariant is 0.
- **from not_memories**: stored memories (any state, every revision's sources) with a user source
  overlapping a `not_memories` quote, counted by its `why` (`pasted` must be 0).
- **queries**: a targeted query is found when a top-5 hit is the stored memory matched to its
  target; a `null` query must return nothing.
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.agent.host import AgentHost
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.drain import drain
from autopatch_j.memory.extractor import Extractor
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Outcome, Pipeline
from autopatch_j.memory.records import Intent, Source
from autopatch_j.quality.metrics import ratio
from autopatch_j.quality.realistic import WHY, GoldMemory, RealisticPart, Session
from autopatch_j.runtime import FakeClock
from autopatch_j.workspace.store import ReviewWorkspace

_RETRY_ROUNDS = 6


@dataclass
class Stored:
    """One stored memory at the end of a session, with its sources as (turn index, role, quote)."""

    memory_id: int
    kind: str
    status: str
    title: str
    content: str
    sources: list[tuple[int, str, str]]
    subject: str = ""


@dataclass
class SessionScore:
    id: str
    author: str
    language: str
    stored_active: int = 0
    right: int = 0
    duplicates: int = 0
    gold_active: int = 0
    found: int = 0
    stale: int = 0
    subject_conflicts: int = 0
    store_subject_conflicts: int = 0
    from_not_memories: Counter[str] = field(default_factory=Counter)
    query_tp: int = 0
    query_fn: int = 0
    query_fp: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def contradictions(self) -> int:
        return self.stale + self.subject_conflicts + self.store_subject_conflicts

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "author": self.author,
            "language": self.language,
            "stored_active": self.stored_active,
            "right": self.right,
            "duplicates": self.duplicates,
            "gold_active": self.gold_active,
            "found": self.found,
            "stale": self.stale,
            "subject_conflicts": self.subject_conflicts,
            "store_subject_conflicts": self.store_subject_conflicts,
            "from_not_memories": dict(sorted(self.from_not_memories.items())),
            "query_tp": self.query_tp,
            "query_fn": self.query_fn,
            "query_fp": self.query_fp,
            "notes": self.notes,
        }


def figures(scores: Sequence[SessionScore]) -> dict[str, Any]:
    """Totals of a set of sessions (an author, a language, the whole part)."""
    stored = sum(s.stored_active for s in scores)
    right = sum(s.right for s in scores)
    gold = sum(s.gold_active for s in scores)
    found = sum(s.found for s in scores)
    why: Counter[str] = Counter()
    for s in scores:
        why.update(s.from_not_memories)
    qtp, qfn, qfp = (sum(getattr(s, k) for s in scores) for k in ("query_tp", "query_fn", "query_fp"))
    return {
        "sessions": len(scores),
        "stored_active": stored,
        "right": right,
        "duplicates": sum(s.duplicates for s in scores),
        "gold_active": gold,
        "found": found,
        "precision": ratio(right, stored),
        "recall": ratio(found, gold),
        "pasted": why.get("pasted", 0),
        "from_not_memories": {w: why.get(w, 0) for w in WHY if why.get(w, 0)},
        "stale": sum(s.stale for s in scores),
        "subject_conflicts": sum(s.subject_conflicts for s in scores),
        "store_subject_conflicts": sum(s.store_subject_conflicts for s in scores),
        "contradictions": sum(s.contradictions for s in scores),
        "query_recall": ratio(qtp, qtp + qfn),
        "query_false_hits": qfp,
    }


@dataclass
class RealisticReport:
    mode: str
    source: str
    sessions: list[SessionScore]
    elapsed_s: float

    @property
    def invariants_ok(self) -> bool:
        """The realistic part's own invariant: no contradictory active memories."""
        return all(s.contradictions == 0 for s in self.sessions)

    def to_dict(self) -> dict[str, Any]:
        authors = list(dict.fromkeys(s.author for s in self.sessions))
        return {
            "part": "realistic",
            "mode": self.mode,
            "source": self.source,
            "totals": figures(self.sessions),
            "authors": {a: figures([s for s in self.sessions if s.author == a]) for a in authors},
            "invariants": {"contradictions": sum(s.contradictions for s in self.sessions)},
            "invariants_ok": self.invariants_ok,
            "sessions": [s.to_dict() for s in self.sessions],
            "elapsed_s": round(self.elapsed_s, 3),
        }


def evaluate_realistic(
    part: RealisticPart,
    *,
    extractor_factory: Callable[[], Extractor] = RulesExtractor,
    mode: str = "offline",
    on_session: Callable[[SessionScore], None] | None = None,
    workdir: Path | None = None,
) -> RealisticReport:
    """Run every session of the part through the real pipeline and score the stored memories."""
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="autopatch-realistic-", dir=workdir))
    scores: list[SessionScore] = []
    try:
        for index, session in enumerate(part.sessions):
            stored, hits = run_session(session, base / f"{index:03d}", extractor_factory())
            score = score_session(session, part.authors[session.id], stored, hits)
            scores.append(score)
            if on_session is not None:
                on_session(score)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return RealisticReport(mode=mode, source=part.source, sessions=scores, elapsed_s=time.perf_counter() - started)


def run_session(session: Session, root: Path, extractor: Extractor) -> tuple[list[Stored], dict[str, list[int]]]:
    """Play `session` in a scratch project under `root` with `extractor`: every memory at the end (each
    at its latest revision) and the memory ids each of the session's queries finds."""
    (root / "src").mkdir(parents=True)
    clock = FakeClock()
    manager = MemoryManager(root=root, clock=clock, owner=f"realistic-{session.id}")
    health = manager.open()
    if not health.ok:
        raise RuntimeError(f"scratch Memory for {session.id} is degraded: {health.reason}")
    main = CannedProvider()
    host = AgentHost(
        manager=manager, provider=main, root=root, workspace=ReviewWorkspace(directory=manager.paths.workspace)
    )
    pipeline = Pipeline.for_manager(manager, extractor=extractor, heartbeat_seconds=None)
    turn_ids: list[int] = []
    for turn in session.turns:
        clock.advance(5.0)
        main.enqueue(Purpose.MAIN, turn.assistant or "OK.")
        result = host.handle(turn.user, intent=Intent.GENERAL_CHAT)
        if result.turn_id is None:
            raise RuntimeError(f"{session.id}: an ordinary turn was not admitted")
        turn_ids.append(result.turn_id)
        for _ in range(_RETRY_ROUNDS):
            report = drain(pipeline, budget_s=None)
            if not any(step.outcome is Outcome.RETRY for step in report.steps):
                break
            clock.advance(3_700.0)
    index = {turn_id: n for n, turn_id in enumerate(turn_ids)}

    def mapped(sources: Sequence[Source]) -> list[tuple[int, str, str]]:
        return [(index[s.turn_id], s.role.value, s.quote) for s in sources if s.turn_id in index]

    with manager.db.read("realistic eval: every memory") as conn:
        rows = conn.execute(
            "SELECT memory_id, kind, status, title, content, subject FROM memory_items i WHERE revision = "
            "(SELECT MAX(revision) FROM memory_items j WHERE j.memory_id = i.memory_id) ORDER BY memory_id"
        ).fetchall()
        every = {
            row["memory_id"]: [
                (index[r["turn_id"]], r["role"], r["quote"])
                for r in conn.execute(
                    "SELECT DISTINCT q.turn_id, q.role, q.quote FROM memory_items i "
                    "JOIN memory_item_candidates ic ON ic.item_id = i.id "
                    "JOIN candidate_sources q ON q.candidate_id = ic.candidate_id WHERE i.memory_id = ?",
                    (row["memory_id"],),
                )
                if r["turn_id"] in index
            ]
            for row in rows
        }
    stored = []
    for row in rows:
        sources = every[row["memory_id"]]
        if row["status"] == "active":
            sources = mapped(manager.show_item(row["memory_id"]).sources) or sources
        stored.append(
            Stored(row["memory_id"], row["kind"], row["status"], row["title"], row["content"], sources, row["subject"])
        )
    thread_id = manager.active_thread().id
    hits = {
        q.query: [hit.memory_id for hit in manager.search(thread_id=thread_id, query=q.query)] for q in session.queries
    }
    return stored, hits


def _span(text: str, quote: str) -> tuple[int, int] | None:
    at = text.find(quote)
    return None if at < 0 else (at, at + len(quote))


def overlap(session: Session, a: tuple[int, str, str], b: tuple[int, str, str]) -> bool:
    if a[0] != b[0] or a[1] != b[1] or a[0] >= len(session.turns):
        return False
    text = session.text(a[0], a[1])
    sa, sb = _span(text, a[2]), _span(text, b[2])
    return sa is not None and sb is not None and sa[0] < sb[1] and sb[0] < sa[1]


def matches(session: Session, stored: Stored, gold: GoldMemory) -> bool:
    if stored.kind != gold.kind:
        return False
    wanted = [(s.turn, s.role, s.quote) for s in gold.sources]
    return any(overlap(session, have, want) for have in stored.sources for want in wanted)


def score_session(
    session: Session, author: str, stored: Sequence[Stored], hits: dict[str, list[int]] | None = None
) -> SessionScore:
    """Compare the stored memories of one session with its gold (see the module docstring)."""
    score = SessionScore(id=session.id, author=author, language=session.language)
    active_gold = [g for g in session.memories if g.state == "active"]
    old_gold = [g for g in session.memories if g.state != "active"]
    active = [m for m in stored if m.status == "active"]
    score.stored_active = len(active)
    score.gold_active = len(active_gold)
    matched_gold: dict[str, int] = {}  # gold key -> stored memory id
    subject_of: dict[int, tuple[str, str]] = {}  # stored memory id -> (gold subject, gold key)
    for memory in active:
        golds = [g for g in active_gold if matches(session, memory, g)]
        fresh = [g for g in golds if g.key not in matched_gold]
        if fresh:
            matched_gold[fresh[0].key] = memory.memory_id
            subject_of[memory.memory_id] = (fresh[0].subject, fresh[0].key)
            score.right += 1
            continue
        if golds:
            score.duplicates += 1
            score.notes.append(f"duplicate of {golds[0].key}: {memory.title[:60]}")
            continue
        old = [g for g in old_gold if matches(session, memory, g)]
        if old:
            score.stale += 1
            subject_of[memory.memory_id] = (old[0].subject, old[0].key)
            score.notes.append(f"still active, gold {old[0].state}: {old[0].key} ({memory.title[:60]})")
        else:
            score.notes.append(f"wrong {memory.kind}: {memory.title[:60]}")
    score.found = len(matched_gold)
    for gold in active_gold:
        if gold.key not in matched_gold:
            score.notes.append(f"missed {gold.key} ({gold.kind}, {gold.subject})")
    by_subject: dict[str, set[str]] = {}
    for subject, key in subject_of.values():
        by_subject.setdefault(subject, set()).add(key)
    for subject, keys in by_subject.items():
        if len(keys) > 1:
            score.subject_conflicts += len(keys) - 1
            score.notes.append(f"{len(keys)} active memories on subject {subject!r}")
    stated: dict[str, set[str]] = {}  # the store's own subjects of active preferences and decisions
    for memory in active:
        if memory.subject and memory.kind != "discussion_context":
            stated.setdefault(memory.subject, set()).add(memory.content)
    for subject, contents in stated.items():
        if len(contents) > 1:
            score.store_subject_conflicts += len(contents) - 1
            score.notes.append(f"{len(contents)} active memories with the stored subject {subject!r}")
    for memory in stored:
        users = [s for s in memory.sources if s[1] == "user"]
        whys = {
            nm.why
            for nm in session.not_memories
            if nm.role == "user" and any(overlap(session, s, (nm.turn, nm.role, nm.quote)) for s in users)
        }
        for why in sorted(whys):
            score.from_not_memories[why] += 1
            score.notes.append(f"from a {why} utterance: {memory.title[:60]}")
    for query in session.queries:
        got = (hits or {}).get(query.query, [])
        if query.target is None:
            score.query_fp += 1 if got else 0
        elif query.target in matched_gold and matched_gold[query.target] in got:
            score.query_tp += 1
        else:
            score.query_fn += 1
    return score


def sample_sessions(part: RealisticPart, n: int, *, seed: int) -> RealisticPart:
    """`n` sessions spread over the authors, chosen by the seed (session order kept)."""
    rng = random.Random(seed)
    by_author: dict[str, list[Session]] = {}
    for session in part.sessions:
        by_author.setdefault(part.authors[session.id], []).append(session)
    chosen: set[str] = set()
    pools = {a: rng.sample(s, len(s)) for a, s in by_author.items()}
    while len(chosen) < min(n, len(part.sessions)):
        for pool in pools.values():
            if pool and len(chosen) < n:
                chosen.add(pool.pop().id)
    keep = tuple(s for s in part.sessions if s.id in chosen)
    return part.model_copy(update={"sessions": keep})
