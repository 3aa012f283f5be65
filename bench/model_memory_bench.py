"""Sweep throughput: the C-40 model path with a zero-latency model vs the deterministic path (issue 14).

    python bench/model_memory_bench.py [--tasks 400] [--repeat 3] [--json] [--pg-url postgresql+psycopg://…]

Each run seeds a fresh database with N completed, eligible tasks of one user, then times ONE sweep
(`process_auto_memories`) that extracts all of them:

- `deterministic`: no `extract_model` — the v1 path (one transaction per task);
- `model`: `extract_model` set, a `CannedProvider` that answers instantly (zero latency) with a valid
  Stage-1 candidate quoting the task's prompt and a valid Stage-2 `create` — so the figure is the
  pipeline's own overhead: payload building, two contract parses, validation, the cap checks (one
  ledger read per call), two charge writes and the one memory transaction;
- `model_no_memory`: the model answers Stage 1 with no candidate (one call, no Stage 2).

Prints medians of `--repeat` runs (tasks/s) and each model ratio against the deterministic median
measured in the same run. SQLite always; PostgreSQL when `--pg-url` or AUTOPATCH_TEST_PG_URL is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.memory_costs import Caps, Prices
from autopatch_j.cloud.memory_settings import update_settings
from autopatch_j.cloud.model_memory import ModelMemory, ModelMemoryConfig
from autopatch_j.cloud.projects import create_project
from autopatch_j.cloud.records import TaskStatus
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.tables import tasks
from autopatch_j.cloud.tasks import create_task
from autopatch_j.cloud.users import create_user
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.config import LLMSettings
from autopatch_j.llm.provider import ChatRequest, ChatResponse, Purpose, Usage
from autopatch_j.runtime import FakeClock

CANNED_LLM = LLMSettings(api_key="", base_url="canned://", model="canned")  # never called: the provider is given

UNLIMITED = Caps(sweep_tokens=10**12, sweep_usd=1e9, user_daily_tokens=10**12, user_daily_usd=1e9)
RESULT = "Done: the bug is fixed and the tests pass. " * 6


def zero_latency(*, with_memory: bool) -> CannedProvider:
    def answer(request: ChatRequest) -> ChatResponse:
        payload = json.loads(request.messages[-1].content or "{}")
        if request.purpose is Purpose.EXTRACTION:
            turn = payload["turns"][0]
            quote = turn["user"].split(".")[0]
            candidates = (
                [{"kind": "user_preference", "content": "always use ruff for linting", "subject": "linter",
                  "sources": [{"turn_id": turn["turn_id"], "role": "user", "quote": quote}]}]
                if with_memory else []
            )  # fmt: skip
            content = json.dumps({"compaction": "", "candidates": candidates})
        else:
            ops = [
                {"op": "create", "candidate_ids": [c["id"]], "target_memory_id": None, "title": "linter",
                 "aliases": ["linter"], "keywords": ["ruff"], "content": "Always use ruff for linting."}
                for c in payload["candidates"]
            ]  # fmt: skip
            content = json.dumps({"operations": ops})
        return ChatResponse(content=content, usage=Usage(400, 80))

    return CannedProvider(default=answer)


@contextmanager
def fresh_db(backend: str, pg_url: str | None, workdir: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{workdir / f'{uuid.uuid4().hex}.sqlite3'}"
        return
    assert pg_url is not None
    name = f"bench_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.engine.make_url(pg_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def one_run(url: str, mode: str, n: int) -> float:
    """Seed N eligible tasks, then time one sweep; returns tasks per second."""
    engine = make_engine(url)
    migrate(engine)
    clock = FakeClock()
    with write_tx(engine) as conn:
        user = create_user(conn, name="bench", is_admin=False, now=clock()).user
        project = create_project(conn, user=user, name="bench", now=clock())
        changes: dict[str, Any] = {"generate_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        if mode != "deterministic":
            changes["extract_model"] = "zero-latency"
        update_settings(conn, user=user, changes=changes, now=clock())
        for i in range(n):
            prompt = f"From now on, always use ruff for linting in module {i}. Fix bug {i}."
            task = create_task(conn, user=user, project_id=project.id, prompt=prompt, goal=None,
                               parent_task_id=None, now=clock())  # fmt: skip
            conn.execute(
                sa.update(tasks).where(tasks.c.id == task.id).values(
                    status=TaskStatus.COMPLETED, result_text=RESULT, started_at=clock() - timedelta(seconds=60),
                    finished_at=clock(), updated_at=clock(),
                )
            )  # fmt: skip
    clock.advance(10)
    model = None
    if mode != "deterministic":
        provider = zero_latency(with_memory=mode == "model")
        config = ModelMemoryConfig(llm=CANNED_LLM, timeout_s=1, caps=UNLIMITED, prices=Prices(0, 0))
        model = ModelMemory(config, provider_for=lambda _m: provider)
    started = time.perf_counter()
    report = process_auto_memories(engine, clock=clock, model=model)
    elapsed = time.perf_counter() - started
    engine.dispose()
    expected = n if mode != "model_no_memory" else 0
    if len(report.extracted) != expected or report.fallbacks:
        raise SystemExit(f"{mode}: extracted {len(report.extracted)} of {n}, fallbacks {report.fallbacks}")
    return n / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pg-url", default=os.environ.get("AUTOPATCH_TEST_PG_URL"))
    args = parser.parse_args(argv)
    backends = ["sqlite"] + (["postgres"] if args.pg_url else [])
    out: dict[str, Any] = {"tasks": args.tasks, "repeat": args.repeat, "backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            figures: dict[str, list[float]] = {"deterministic": [], "model": [], "model_no_memory": []}
            for _ in range(args.repeat):  # interleaved so machine noise hits every mode alike
                for mode, runs in figures.items():
                    with fresh_db(backend, args.pg_url, Path(tmp)) as url:
                        runs.append(one_run(url, mode, args.tasks))
            medians = {mode: statistics.median(runs) for mode, runs in figures.items()}
            out["backends"][backend] = {
                "tasks_per_s_median": {mode: round(v, 1) for mode, v in medians.items()},
                "slowdown_vs_deterministic": {
                    mode: round(medians["deterministic"] / medians[mode], 2) for mode in ("model", "model_no_memory")
                },
                "runs": {mode: [round(v, 1) for v in runs] for mode, runs in figures.items()},
            }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for backend, fig in out["backends"].items():
            print(f"{backend}: tasks/s {fig['tasks_per_s_median']}; slowdown {fig['slowdown_vs_deterministic']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
