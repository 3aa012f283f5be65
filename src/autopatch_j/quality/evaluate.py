"""`autopatch-j eval`: run the quality corpus through the real pipeline and measure (M-81, M-82, M-83).

Cases run in pairs, each case in its own scratch project (a temporary directory), the two projects
interleaved step by step in one process. Every ordinary turn goes through `AgentHost.handle` — the
real admission path — with a canned main model that answers with the corpus's assistant text. Jobs
run through the real `Pipeline` (claim → extractor outside any transaction → validation → fenced
commit; consolidation likewise) by the real `drain`; retrieval through `MemoryManager.search`.
Per case, the drain runs after every turn or only before actions and at the end (seeded).

Extractors: `offline` — the embedded `RulesExtractor`; `canned` — the `LLMExtractor` over a
`CannedProvider` whose answers are scripted from the gold memories with seeded adversarial output
(`scripted.py`); `live` — the `LLMExtractor` over a real provider the caller built (the CLI does so
only when `AUTOPATCH_LIVE_EVAL=1`).

After each case: a repair probe (code_audit proposing a patch, patch_explain, patch_revise) through
the same host, its requests captured at the provider boundary and scanned for the project's Memory;
a replay probe for every forget (the forgotten evidence's extraction jobs are delivered again and
drained); then scoring and the invariants. Figures come from stored rows and captured requests.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from autopatch_j.agent.host import AgentHost
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import ChatRequest, ChatResponse, LLMProvider, Purpose
from autopatch_j.memory.drain import DrainReport, drain
from autopatch_j.memory.extractor import Extractor, LLMExtractor
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Outcome, Pipeline
from autopatch_j.memory.records import Intent, ItemStatus
from autopatch_j.quality import invariants as inv
from autopatch_j.quality.corpus import CATEGORIES, Case, Corpus, ForgetStep, NewThreadStep, TurnStep
from autopatch_j.quality.metrics import CaseScore, score_case, summarize
from autopatch_j.quality.scripted import ScriptedModel
from autopatch_j.runtime import FakeClock
from autopatch_j.workspace.store import ReviewWorkspace

Mode = Literal["offline", "canned", "live"]
MODES: tuple[str, ...] = ("offline", "canned", "live")
DEFAULT_ADVERSARIAL_RATE = 0.35
DEFAULT_RETRY_ROUNDS = 6  # drains per step: past every backoff of a job that keeps failing
_APP_PY = "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n"


class RecordingProvider:
    """Wraps a real provider and records every request (the provider boundary of the live mode)."""

    def __init__(self, inner: LLMProvider) -> None:
        self._inner = inner
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        return self._inner.complete(request)

    def stream(self, request: ChatRequest) -> Any:
        self.requests.append(request)
        events: Any = self._inner.stream(request)
        return _iterate(events)


def _iterate(events: Any) -> Any:
    yield from events


@dataclass
class CaseRun:
    """One case in its scratch project, with everything needed to drive and inspect it."""

    case: Case
    root: Path
    clock: FakeClock
    manager: MemoryManager
    main: CannedProvider
    host: AgentHost
    pipeline: Pipeline
    stage_requests: Callable[[], list[ChatRequest]]
    script: ScriptedModel | None
    batched: bool
    retry_rounds: int = DEFAULT_RETRY_ROUNDS
    turn_ids: list[int] = field(default_factory=list)
    old_evidence: list[tuple[int, str, str]] = field(default_factory=list)
    forgotten_memory_ids: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    steps: list[Any] = field(default_factory=list)  # StepResult of every drain
    repair_leaks: list[str] = field(default_factory=list)
    repair_requests: int = 0
    cross_repo_leaks: list[str] = field(default_factory=list)


@dataclass
class EvalReport:
    mode: str
    seed: int
    corpus_version: str
    cases: list[CaseScore]
    invariants: dict[str, float | int]
    details: dict[str, Any]
    elapsed_s: float

    @property
    def invariants_ok(self) -> bool:
        i = self.invariants
        return (
            i["illegal_provenance"] == 0
            and i["repair_memory_leakage"] == 0
            and i["cross_repo_leakage"] == 0
            and i["forgotten_rebuilt"] == 0
            and i["provenance_completeness"] == 1.0
            and i.get("subject_conflicts", 0) == 0
        )

    def to_dict(self) -> dict[str, Any]:
        languages = Counter(case.language for case in self.cases)
        return {
            "mode": self.mode,
            "seed": self.seed,
            "corpus": {
                "version": self.corpus_version,
                "cases": len(self.cases),
                "languages": dict(sorted(languages.items())),
            },
            "invariants": self.invariants,
            "invariants_ok": self.invariants_ok,
            **summarize(self.cases, CATEGORIES),
            "details": self.details,
            "cases": [case.to_dict() for case in self.cases],
            "elapsed_s": round(self.elapsed_s, 3),
        }


def evaluate(
    corpus: Corpus,
    *,
    mode: Mode,
    seed: int,
    live_provider: LLMProvider | None = None,
    adversarial_rate: float = DEFAULT_ADVERSARIAL_RATE,
    workdir: Path | None = None,
    keep: bool = False,
    retry_rounds: int = DEFAULT_RETRY_ROUNDS,
    on_case: Callable[[CaseScore], None] | None = None,
) -> EvalReport:
    """Run every case; return per-case scores, per-category figures and the five invariants."""
    if mode not in MODES:
        raise ValueError(f"unknown eval mode {mode!r}")
    if mode == "live" and live_provider is None:
        raise ValueError("the live mode needs a provider")
    rng = random.Random(seed)
    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="autopatch-eval-", dir=workdir))
    scores: list[CaseScore] = []
    totals: dict[str, Any] = {
        "illegal_provenance": [],
        "subject_conflicts": [],
        "repair_requests": 0,
        "repair_leaks": [],
        "cross_repo_leaks": [],
        "forgotten": 0,
        "rebuilt": [],
        "complete": 0,
        "total": 0,
        "replay_probes": 0,
        "steps": Counter(),
        "filtered": 0,
        "structural_injected": Counter(),
        "semantic_injected": 0,
        "replays": 0,
    }
    try:
        cases = list(corpus.cases)
        blank = _blank_store(base / "blank")
        for index in range(0, len(cases), 2):
            pair = cases[index : index + 2]
            runs = [
                _start(case, base / f"{index + n:03d}-{case.id}", blank, mode, rng, live_provider, adversarial_rate)
                for n, case in enumerate(pair)
            ]
            for run in runs:
                run.retry_rounds = max(1, retry_rounds)
            _interleave(runs)
            for run in runs:
                _finish(run)
            _cross_repo(runs)
            for run in runs:
                score = _score(run, totals)
                scores.append(score)
                if on_case is not None:
                    on_case(score)
            if not keep:  # scored: the pair's scratch repos go now, so a whole part never piles up on disk
                for run in runs:
                    run.manager.close()
                    shutil.rmtree(run.root, ignore_errors=True)
    finally:
        if not keep:
            shutil.rmtree(base, ignore_errors=True)
    completeness = 1.0 if totals["total"] == 0 else totals["complete"] / totals["total"]
    invariants: dict[str, float | int] = {
        "illegal_provenance": len(totals["illegal_provenance"]),
        "repair_memory_leakage": len(totals["repair_leaks"]),
        "cross_repo_leakage": len(totals["cross_repo_leaks"]),
        "forgotten_rebuilt": len(totals["rebuilt"]),
        "provenance_completeness": round(completeness, 6),
        "subject_conflicts": len(totals["subject_conflicts"]),
    }
    details = {
        "illegal_provenance": totals["illegal_provenance"][:20],
        "subject_conflicts": totals["subject_conflicts"][:20],
        "repair_requests_scanned": totals["repair_requests"],
        "repair_leaks": totals["repair_leaks"][:20],
        "cross_repo_leaks": totals["cross_repo_leaks"][:20],
        "forgotten_memories": totals["forgotten"],
        "replay_probes": totals["replay_probes"],
        "forgotten_rebuilt": totals["rebuilt"][:20],
        "active_preferences_decisions": totals["total"],
        "pipeline_steps": dict(totals["steps"]),
        "candidates_filtered": totals["filtered"],
        "adversarial": {
            "structural_injected": dict(totals["structural_injected"]),
            # Refused either way: retried, or — the same error twice — failed for good with the
            # offline rules run instead. Only injected outputs can fail a canned step.
            "structural_rejected": totals["steps"].get("retry", 0) + totals["steps"].get("failed", 0),
            "semantic_injected": totals["semantic_injected"],
            "replays_of_forgotten_evidence": totals["replays"],
        },
        "workdir": str(base) if keep else None,
    }
    return EvalReport(
        mode=mode,
        seed=seed,
        corpus_version=corpus.version,
        cases=scores,
        invariants=invariants,
        details=details,
        elapsed_s=time.perf_counter() - started,
    )


# -- running a case ------------------------------------------------------------------------------------


def _blank_store(root: Path) -> Path:
    """A new Memory database as every case starts with, made once per run; each case's repository
    starts from a copy instead of creating the schema again."""
    manager = MemoryManager(root=root, clock=FakeClock(), owner="eval-blank")
    health = manager.open()
    manager.close()
    if not health.ok:
        raise RuntimeError(f"a blank Memory for the eval is degraded: {health.reason}")
    return manager.paths.db


def _start(
    case: Case, root: Path, blank: Path, mode: Mode, rng: random.Random, live: LLMProvider | None, rate: float
) -> CaseRun:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(_APP_PY, encoding="utf-8")
    clock = FakeClock()
    manager = MemoryManager(root=root, clock=clock, owner=f"eval-{case.id}")
    manager.paths.state_dir.mkdir(parents=True)
    shutil.copyfile(blank, manager.paths.db)
    health = manager.open()
    if not health.ok:
        raise RuntimeError(f"scratch Memory for {case.id} is degraded: {health.reason}")
    case_rng = random.Random(rng.getrandbits(64))
    script: ScriptedModel | None = None
    extractor: Extractor
    stage_requests: Callable[[], list[ChatRequest]]
    if mode == "offline":
        extractor = RulesExtractor()
        stage_requests = list
    elif mode == "canned":
        script = ScriptedModel(case=case, rng=case_rng, adversarial_rate=rate)
        stage = CannedProvider(default=script)
        extractor = LLMExtractor(provider=stage)
        stage_requests = lambda: stage.requests  # noqa: E731
    else:
        assert live is not None
        recorder = RecordingProvider(live)
        extractor = LLMExtractor(provider=recorder)
        stage_requests = lambda: list(recorder.requests)  # noqa: E731
    main = CannedProvider()
    host = AgentHost(
        manager=manager, provider=main, root=root, workspace=ReviewWorkspace(directory=manager.paths.workspace)
    )
    pipeline = Pipeline.for_manager(manager, extractor=extractor, heartbeat_seconds=None)
    return CaseRun(
        case=case,
        root=root,
        clock=clock,
        manager=manager,
        main=main,
        host=host,
        pipeline=pipeline,
        stage_requests=stage_requests,
        script=script,
        batched=case_rng.random() < 0.5,
    )


def _interleave(runs: list[CaseRun]) -> None:
    """Run the cases' steps alternately, so the two scratch repos live side by side in one process."""
    longest = max(len(run.case.steps) for run in runs)
    for position in range(longest):
        for run in runs:
            if position < len(run.case.steps):
                _run_step(run, run.case.steps[position])


def _run_step(run: CaseRun, step: TurnStep | NewThreadStep | ForgetStep) -> None:
    run.clock.advance(5.0)
    if isinstance(step, TurnStep):
        run.main.enqueue(Purpose.MAIN, step.assistant)
        result = run.host.handle(step.user, intent=Intent(step.intent))
        if result.turn_id is None:
            raise RuntimeError(f"{run.case.id}: an ordinary turn was not admitted")
        run.turn_ids.append(result.turn_id)
        if run.script is not None:
            run.script.turn_ids = run.turn_ids
        if not run.batched:
            _drain(run)
    elif isinstance(step, NewThreadStep):
        _drain(run, thread_id=run.manager.active_thread().id)  # `/new` gives the old thread one chance
        run.manager.start_new_thread()
    else:
        _drain(run)
        _forget(run, step)


def _drain(run: CaseRun, *, thread_id: int | None = None) -> None:
    """Drain, and keep draining past backoff (fake clock) until no job is due or rounds run out."""
    for _ in range(run.retry_rounds):
        report: DrainReport = drain(run.pipeline, thread_id=thread_id, budget_s=None)
        run.steps.extend(report.steps)
        if not any(step.outcome is Outcome.RETRY for step in report.steps):
            return
        run.clock.advance(3_700.0)  # past the longest backoff (1 h, M-48)
    run.notes.append("jobs still failing after retries")


def _forget(run: CaseRun, step: ForgetStep) -> None:
    needle = step.contains.casefold()
    for item in run.manager.list_items():
        if item.kind.value != step.kind:
            continue
        detail = run.manager.show_item(item.memory_id)
        texts = [item.title, item.content, *(source.quote for source in detail.sources)]
        if not any(needle in text.casefold() for text in texts):
            continue
        run.old_evidence.extend((source.turn_id, source.role.value, source.quote) for source in detail.sources)
        run.manager.forget(item.memory_id)
        run.forgotten_memory_ids.append(item.memory_id)
        if run.script is not None:
            for memory in run.case.memories:
                if memory.state == "forgotten" and memory.kind == step.kind:
                    run.script.forgotten.add(memory.key)
        return
    run.notes.append(f"forget {step.kind} containing {step.contains!r}: no such active memory")
    if run.script is not None:  # the scripted model still replays the gold memory's evidence
        for memory in run.case.memories:
            if memory.state == "forgotten" and memory.kind == step.kind:
                run.script.forgotten.add(memory.key)


_REPLAY_JOBS = (
    "UPDATE memory_jobs SET status = 'pending', owner = NULL, lease_expires_at = NULL, attempts = 0, "
    "next_attempt_at = ?, updated_at = ? WHERE kind = 'extraction' AND turn_id IN (SELECT value FROM json_each(?))"
)


def _finish(run: CaseRun) -> None:
    _drain(run)
    if run.old_evidence:
        # Replay probe: deliver the forgotten evidence's extraction jobs again (a duplicate delivery).
        turn_ids = sorted({turn_id for turn_id, _, _ in run.old_evidence})
        with run.manager.db.write("eval: replay the forgotten evidence") as conn:
            conn.execute(_REPLAY_JOBS, (run.clock.now(), run.clock.now(), json.dumps(turn_ids)))
        _drain(run)
    _repair_probe(run)


def _repair_probe(run: CaseRun) -> None:
    """code_audit (with a patch), patch_explain and patch_revise; scan what reached the provider."""
    before = len(run.main.requests)
    audit = {
        "summary": "One risky call.",
        "findings": [
            {"path": "src/app.py", "line": 5, "severity": "high", "title": "shell=True", "detail": "Command injection."}
        ],
        "patch": {
            "path": "src/app.py",
            "search": "subprocess.call(cmd, shell=True)",
            "replace": "subprocess.call(cmd)",
            "explanation": "Drop the shell.",
        },
    }
    revise = {"search": "subprocess.call(cmd, shell=True)", "replace": "subprocess.run(cmd, check=True)",
              "explanation": "Use run with check."}  # fmt: skip
    run.main.enqueue(Purpose.MAIN, json.dumps(audit), "The patch removes shell=True.", json.dumps(revise))
    run.host.handle("review src/app.py", intent=Intent.CODE_AUDIT)
    run.host.handle("explain the patch", intent=Intent.PATCH_EXPLAIN)
    run.host.handle("use subprocess.run with check=True instead", intent=Intent.PATCH_REVISE)
    requests = run.main.requests[before:]
    run.repair_requests = len(requests)
    with run.manager.db.read("eval: fingerprints") as conn:
        prints = inv.fingerprints(conn)
    run.repair_leaks = [f"{run.case.id}: {leak}" for leak in inv.leaking_requests(requests, prints=prints)]


def _cross_repo(runs: list[CaseRun]) -> None:
    """Each repo's fingerprints must appear nowhere in the other's database, retrieval, context or requests."""
    if len(runs) < 2:
        return
    prints: list[set[str]] = []
    stored: list[list[str]] = []
    for run in runs:
        with run.manager.db.read("eval: cross-repo scan") as conn:
            prints.append(inv.fingerprints(conn))
            stored.append(inv.database_texts(conn))
    for me, other in ((0, 1), (1, 0)):
        run = runs[me]
        thread_id = run.manager.active_thread().id
        haystacks = list(stored[me])
        for query in [hit.query for hit in runs[other].case.expect.must_hit]:
            for hit in run.manager.search(thread_id=thread_id, query=query):
                haystacks.extend((hit.title, hit.synopsis))
        haystacks.append(run.manager.routing_context(thread_id=thread_id))
        haystacks.extend(inv.request_text(request) for request in (*run.stage_requests(), *run.main.requests))
        own = set(stored[me])
        leaked = inv.foreign_texts(haystacks, foreign=prints[other], own=own)
        run.cross_repo_leaks = [f"{runs[other].case.id} → {run.case.id}: {text[:40]!r}" for text in leaked]


def _score(run: CaseRun, totals: dict[str, Any]) -> CaseScore:
    manager = run.manager
    thread_id = manager.active_thread().id
    items = manager.list_items()
    sources = {item.memory_id: manager.show_item(item.memory_id).sources for item in items}
    results = {
        query: manager.search(thread_id=thread_id, query=query)
        for query in {q.query for q in run.case.expect.must_hit} | {q.query for q in run.case.expect.must_not_hit}
    }
    score = score_case(run.case, turn_ids=run.turn_ids, items=items, sources=sources, results=results)
    with manager.db.read("eval: invariants") as conn:
        illegal = inv.illegal_provenance(conn)
        completeness = inv.provenance_completeness(conn)
        conflicts = inv.subject_conflicts(conn)
        rebuilt = inv.forgotten_rebuilt(conn, old_evidence=run.old_evidence)
        stale_compactions = inv.forgotten_in_compaction(conn, old_evidence=run.old_evidence)
    forgotten_still = all(
        manager.show_item(memory_id).item.status is ItemStatus.FORGOTTEN for memory_id in run.forgotten_memory_ids
    )
    if not forgotten_still:
        rebuilt = sorted({*rebuilt, *run.forgotten_memory_ids})
    totals["illegal_provenance"].extend(f"{run.case.id}: {f.reason}" for f in illegal)
    totals["subject_conflicts"].extend(f"{run.case.id}: {subject}" for subject in conflicts)
    totals["repair_requests"] += run.repair_requests
    totals["repair_leaks"].extend(run.repair_leaks)
    totals["cross_repo_leaks"].extend(run.cross_repo_leaks)
    totals["forgotten"] += len(run.forgotten_memory_ids)
    totals["replay_probes"] += 1 if run.old_evidence else 0
    totals["rebuilt"].extend(f"{run.case.id}: memory {m}" for m in rebuilt)
    totals["rebuilt"].extend(f"{run.case.id}: compaction of thread {t}" for t in stale_compactions)
    totals["complete"] += completeness.complete
    totals["total"] += completeness.total
    for step in run.steps:
        totals["steps"][step.outcome.value] += 1
        totals["filtered"] += step.filtered
    if run.script is not None:
        totals["structural_injected"].update(run.script.counts.structural_injected)
        totals["semantic_injected"] += run.script.counts.semantic_injected
        totals["replays"] += run.script.counts.replays
    score.notes.extend(run.notes)
    score.invariant_breaks = (
        len(illegal) + len(run.repair_leaks) + len(run.cross_repo_leaks) + len(rebuilt) + len(stale_compactions)
    )
    score.invariant_breaks += len(completeness.incomplete)
    score.drain = "batched" if run.batched else "each turn"
    return score
