"""Canned-mode eval of the cloud memory extractor (C-40) on the Memory quality corpus (issue 14 item 3).

    python bench/cloud_memory_eval.py [--json] [--seed 6] [--rate 0.35] [--limit N | --per-category K]
    python bench/cloud_memory_eval.py --live-url http://127.0.0.1:PORT/v1 --model NAME --per-category 1


Each corpus case gets its own user and project. Each thread of the case (split at `/new`) becomes one
cloud task whose rounds are the thread's user turns and whose `result_text` is the thread's last
assistant answer (the cloud stores only the final result: assistant turns before the last are not
visible, so confirmations of an earlier proposal cannot be proven and fall back). After each thread
the sweep runs with `ModelMemory` over a `CannedProvider` answered by Memory's own `ScriptedModel`
(gold candidates plus seeded adversarial output: prose, unknown fields, fabricated quotes, unknown
turns/candidates/targets, assistant-only claims). A `forget` step deletes the matching active memory.

Live mode (`--live-url`, issue 14 item 4): the same cases and checks, but `ModelMemory` talks to a
real OpenAI-compatible server (e.g. a local llama.cpp server) through the production `OpenAIProvider`
with the model `--model`; the report adds the number of model calls and their duration. A model's
invalid output is not an eval failure: it falls back to the deterministic path (counted per reason),
and the invariants must hold either way. `--per-category K` takes the first K cases of every corpus
category (a stratified sample small enough for a slow local model).

Invariants (all must hold; exit 1 otherwise), the cloud analogues of `quality/invariants.py`:
- illegal_provenance = 0: every stored quote is an exact substring of the REDACTED text of its
  task round and role, the task is the memory's own (same user; same project for project scope), and
  every model memory has a user source;
- cross_repo_leakage = 0: no memory of one case (user/project) cites a task of another;
- forgotten_rebuilt = 0: no memory created after a deletion cites the deleted memory's evidence;
- provenance_completeness = 1.0: every model-written memory has ≥ 1 source row;
- repair_memory_leakage: the cloud has no repair intents; its analogue — no memory from a task whose
  generate switch is off (one such task per case) — must be 0.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from statistics import median
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.db import make_engine, read_tx, write_tx
from autopatch_j.cloud.memories import delete_memory
from autopatch_j.cloud.memory_costs import Caps, Prices
from autopatch_j.cloud.memory_settings import set_flags, update_settings
from autopatch_j.cloud.model_memory import ModelMemory, ModelMemoryConfig
from autopatch_j.cloud.model_memory_input import load_conversation
from autopatch_j.cloud.projects import create_project
from autopatch_j.cloud.records import MemoryStatus, TaskStatus, User
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.tables import identity_memories, identity_memory_sources, tasks
from autopatch_j.cloud.tasks import continue_task, create_task
from autopatch_j.cloud.users import create_user
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.config import LLMSettings
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, ChatResponse, LLMProvider, StreamEvent
from autopatch_j.memory.records import SourceRole
from autopatch_j.quality.corpus import Case, ForgetStep, NewThreadStep, TurnStep, load_corpus
from autopatch_j.quality.scripted import ScriptedModel
from autopatch_j.runtime import FakeClock

CANNED_LLM = LLMSettings(api_key="", base_url="canned://", model="canned")  # never called: the provider is given

if TYPE_CHECKING:
    from collections.abc import Iterator

UNLIMITED = Caps(sweep_tokens=10**12, sweep_usd=1e9, user_daily_tokens=10**12, user_daily_usd=1e9)
SETTINGS = {
    "generate_memories": 1,
    "idle_seconds": 0,
    "min_duration_seconds": 0,
    "min_result_chars": 0,
    "disable_on_external_context": 0,
    "extract_model": "canned",
}


class TimedProvider:
    """Wraps the live provider to record each call's wall time (seconds)."""

    def __init__(self, inner: LLMProvider) -> None:
        self.inner = inner
        self.seconds: list[float] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        started = time.perf_counter()
        try:
            return self.inner.complete(request)
        finally:
            self.seconds.append(time.perf_counter() - started)

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        return self.inner.stream(request)


def live_model(base_url: str, model: str, timeout_s: float) -> tuple[ModelMemory, TimedProvider]:
    """The production model path against a real OpenAI-compatible server, timed per call."""
    settings = LLMSettings(api_key="no-key", base_url=base_url, model=model)
    timed = TimedProvider(OpenAIProvider(settings=settings, timeout_s=timeout_s))
    config = ModelMemoryConfig(llm=settings, timeout_s=timeout_s, caps=UNLIMITED,
                               prices=Prices(0, 0))  # fmt: skip
    return ModelMemory(config, provider_for=lambda _model: timed), timed


class CaseRunner:
    def __init__(
        self, engine: sa.Engine, clock: FakeClock, case: Case, rng: random.Random, rate: float,
        live: tuple[ModelMemory, str] | None = None,
    ) -> None:  # fmt: skip
        self.engine, self.clock, self.case = engine, clock, case
        self.script = ScriptedModel(case=case, rng=rng, adversarial_rate=rate)
        if live is None:
            provider = CannedProvider(default=self.script)
            config = ModelMemoryConfig(llm=CANNED_LLM, timeout_s=1, caps=UNLIMITED,
                                       prices=Prices(0, 0))  # fmt: skip
            self.model = ModelMemory(config, provider_for=lambda _model: provider)
            settings = SETTINGS
        else:  # the script only tracks turn ids and forgotten keys; the live server answers
            self.model, model_name = live
            settings = {**SETTINGS, "extract_model": model_name}
        with write_tx(engine) as conn:
            self.user: User = create_user(conn, name=f"u-{case.id}", is_admin=False, now=clock()).user
            self.project_id = create_project(conn, user=self.user, name=case.id, now=clock()).id
            update_settings(conn, user=self.user, changes=settings, now=clock())
        self.fallbacks: dict[str, int] = {}
        self.deleted: list[tuple[int, set[tuple[int, int, str]]]] = []  # (deleted at memory id, evidence)

    def run(self) -> None:
        thread: list[int] = []
        turn_index = 0
        for step in self.case.steps:
            if isinstance(step, TurnStep):
                thread.append(turn_index)
                turn_index += 1
            elif isinstance(step, NewThreadStep):
                self._thread(thread)
                thread = []
            elif isinstance(step, ForgetStep):
                self._thread(thread)
                thread = []
                self._forget(step)
        self._thread(thread)
        self._generate_off_probe()

    def _thread(self, indexes: list[int]) -> None:
        if not indexes:
            return
        turns = self.case.turns
        with write_tx(self.engine) as conn:
            task = create_task(
                conn, user=self.user, project_id=self.project_id, prompt=turns[indexes[0]].user, goal=None,
                parent_task_id=None, now=self.clock(),
            )  # fmt: skip
        for number, index in enumerate(indexes):
            if number:
                with write_tx(self.engine) as conn:
                    continue_task(conn, user=self.user, task_id=task.id, prompt=turns[index].user, now=self.clock())
            self._complete(task.id, turns[index].assistant)
        # the scripted model's turn ids: this thread's turns are rounds 1..n, other turns are unseen ids
        self.script.turn_ids = [-(1000 + i) for i in range(len(turns))]
        for number, index in enumerate(indexes, start=1):
            self.script.turn_ids[index] = number
        self.clock.advance(10)
        report = process_auto_memories(self.engine, clock=self.clock, user_id=self.user.id, model=self.model)
        for reason in report.fallbacks.values():
            self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1

    def _complete(self, task_id: int, result: str) -> None:
        now = self.clock()
        with write_tx(self.engine) as conn:
            conn.execute(
                sa.update(tasks)
                .where(tasks.c.id == task_id)
                .values(status=TaskStatus.COMPLETED, result_text=result, started_at=now - timedelta(seconds=5),
                        finished_at=now, updated_at=now)
            )  # fmt: skip

    def _forget(self, step: ForgetStep) -> None:
        scope = "user" if step.kind == "user_preference" else "project"
        with read_tx(self.engine) as conn:
            rows = conn.execute(
                sa.select(identity_memories.c.id, identity_memories.c.content).where(
                    identity_memories.c.user_id == self.user.id,
                    identity_memories.c.scope == scope,
                    identity_memories.c.status == MemoryStatus.ACTIVE,
                )
            ).all()
            for memory_id, content in rows:
                quotes = _sources(conn, memory_id)
                if step.contains in content or any(step.contains in q for _, _, q in quotes):
                    self.deleted.append((memory_id, quotes))
                    with write_tx(self.engine) as wconn:
                        delete_memory(wconn, user=self.user, memory_id=memory_id, now=self.clock())
                    gold = next((m.key for m in self.case.memories if m.kind == step.kind), None)
                    if gold:
                        self.script.forgotten.add(gold)
                    return

    def _generate_off_probe(self) -> None:
        first = self.case.turns[0]
        with write_tx(self.engine) as conn:
            task = create_task(
                conn, user=self.user, project_id=self.project_id, prompt=first.user, goal=None, parent_task_id=None,
                now=self.clock(),
            )  # fmt: skip
            set_flags(conn, user=self.user, task_id=task.id, changes={"generate_memories": False}, now=self.clock())
        self._complete(task.id, first.assistant)
        self.off_task = task.id
        self.script.turn_ids = [1] + [-(1000 + i) for i in range(1, len(self.case.turns))]
        self.clock.advance(10)
        process_auto_memories(self.engine, clock=self.clock, user_id=self.user.id, model=self.model)


def _sources(conn: sa.Connection, memory_id: int) -> set[tuple[int, int, str]]:
    rows = conn.execute(
        sa.select(identity_memory_sources.c.task_id, identity_memory_sources.c.round, identity_memory_sources.c.quote)
        .where(identity_memory_sources.c.memory_id == memory_id)
    ).all()  # fmt: skip
    return {(r[0], r[1], r[2]) for r in rows}


def invariants(engine: sa.Engine, runners: list[CaseRunner]) -> dict[str, Any]:
    illegal = cross = rebuilt = leak = 0
    model_memories = with_sources = 0
    by_user = {r.user.id: r for r in runners}
    with read_tx(engine) as conn:
        memories = conn.execute(sa.select(identity_memories)).mappings().all()
        task_rows = {row.id: row for row in conn.execute(sa.select(tasks.c.id, tasks.c.user_id, tasks.c.project_id))}
        conversations: dict[int, Any] = {}
        for memory in memories:
            sources = conn.execute(
                sa.select(identity_memory_sources).where(identity_memory_sources.c.memory_id == memory["id"])
            ).mappings().all()  # fmt: skip
            if memory["source_thread_id"] is not None:  # a deterministic (fallback) memory: no quotes
                continue
            model_memories += 1
            with_sources += bool(sources)
            if not any(s["role"] == SourceRole.USER.value for s in sources):
                illegal += 1
            for s in sources:
                task = task_rows[s["task_id"]]
                if task.user_id != memory["user_id"] or (
                    memory["scope"] == "project" and task.project_id != memory["project_id"]
                ):
                    cross += 1
                if s["task_id"] not in conversations:
                    conversations[s["task_id"]] = load_conversation(conn, task_id=s["task_id"]).request
                turn = conversations[s["task_id"]].turn(s["round"])
                if turn is None or s["quote"] not in turn.text_for(SourceRole(s["role"])):
                    illegal += 1
            runner = by_user[memory["user_id"]]
            evidence = {(s["task_id"], s["round"], s["quote"]) for s in sources}
            if any(memory["id"] > deleted_id and evidence & old for deleted_id, old in runner.deleted):
                rebuilt += 1
            if any(s["task_id"] == runner.off_task for s in sources):
                leak += 1
        leak += sum(1 for m in memories if m["source_thread_id"] in {str(r.off_task) for r in runners})
    return {
        "illegal_provenance": illegal,
        "cross_repo_leakage": cross,
        "forgotten_rebuilt": rebuilt,
        "provenance_completeness": (with_sources / model_memories) if model_memories else 1.0,
        "repair_memory_leakage (generate-off analogue)": leak,
        "model_memories": model_memories,
    }


def recall(engine: sa.Engine, runners: list[CaseRunner]) -> tuple[int, int]:
    """(gold active preferences/decisions found active with the gold content, gold total)."""
    found = total = 0
    with read_tx(engine) as conn:
        for runner in runners:
            active = set(
                conn.execute(
                    sa.select(identity_memories.c.content).where(
                        identity_memories.c.user_id == runner.user.id,
                        identity_memories.c.status == MemoryStatus.ACTIVE,
                    )
                ).scalars()
            )
            for gold in runner.case.memories:
                if gold.kind != "discussion_context" and gold.state == "active":
                    total += 1
                    found += gold.content in active
    return found, total


def stratified(cases: list[Case], per_category: int) -> list[Case]:
    """The first `per_category` cases of every category, in corpus order."""
    taken: dict[str, int] = {}
    chosen = []
    for case in cases:
        if taken.get(case.category, 0) < per_category:
            taken[case.category] = taken.get(case.category, 0) + 1
            chosen.append(case)
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--rate", type=float, default=0.35, help="adversarial rate (Memory's canned default)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
    parser.add_argument("--per-category", type=int, default=None, help="only the first K cases of each category")
    parser.add_argument("--live-url", default=None, help="an OpenAI-compatible server (live mode), e.g. .../v1")
    parser.add_argument("--model", default="gemma-3-270m", help="the model name sent in live mode")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per live call (whole call)")
    args = parser.parse_args(argv)
    corpus = load_corpus()
    cases = list(corpus.cases)
    if args.per_category:
        cases = stratified(cases, args.per_category)
    if args.limit:
        cases = cases[: args.limit]
    live = live_model(args.live_url, args.model, args.timeout) if args.live_url else None
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'eval.sqlite3'}")
        migrate(engine)
        clock = FakeClock()
        rng = random.Random(args.seed)
        runners = []
        for case in cases:
            runner = CaseRunner(engine, clock, case, random.Random(rng.random()), args.rate,
                                live=(live[0], args.model) if live else None)  # fmt: skip
            runner.run()
            runners.append(runner)
        result = invariants(engine, runners)
        found, total = recall(engine, runners)
        engine.dispose()
    fallbacks: dict[str, int] = {}
    for runner in runners:
        for reason, n in runner.fallbacks.items():
            fallbacks[reason] = fallbacks.get(reason, 0) + n
    ok = (
        result["illegal_provenance"] == 0
        and result["cross_repo_leakage"] == 0
        and result["forgotten_rebuilt"] == 0
        and result["provenance_completeness"] == 1.0
        and result["repair_memory_leakage (generate-off analogue)"] == 0
    )
    report: dict[str, Any] = {"mode": f"live {args.model} @ {args.live_url}" if live else "canned"}
    report |= {
        "cases": len(cases),
        "categories": len({c.category for c in cases}),
        "corpus_version": corpus.version,
        "seed": args.seed,
        "invariants": result,
        "invariants_ok": ok,
        "recall_active_preferences_decisions": f"{found}/{total}",
        "fallbacks": dict(sorted(fallbacks.items())),
        "seconds": round(time.perf_counter() - started, 1),
    }
    if live:
        calls = live[1].seconds
        report["model_calls"] = len(calls)
        report["seconds_per_call"] = _spread(calls)
    else:
        report["adversarial_rate"] = args.rate
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else _text(report))
    return 0 if ok else 1


def _spread(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {}
    return {"median": round(median(seconds), 2), "min": round(min(seconds), 2), "max": round(max(seconds), 2)}


def _text(report: dict[str, Any]) -> str:
    return "\n".join(f"{key}: {value}" for key, value in report.items())


if __name__ == "__main__":
    sys.exit(main())
