"""Cloud control-plane benchmark: sweep, API latency under concurrency, claim throughput.

    python bench/cloud_bench.py [--quick] [--json] [--pg-url postgresql+psycopg://…]

PostgreSQL runs when `--pg-url` or `AUTOPATCH_TEST_PG_URL` names a server (a throwaway database
is created and dropped). Everything is loopback-only and bounded; nothing is written into the
test suite. Figures are medians of repeated runs where a run is cheap enough to repeat.

1. Sweep over N completed tasks (10,000; 1,000 with --quick; half the users have generation on), a
   mix of eligible and ineligible ones. Baseline, measured in the same run on an identical database:
   the unbounded full-table sweep (`process_auto_memories()` over every user, as before issue 10).
   After: the worker's sweep (`Worker.sweep()`: bounded batches above a watermark, generating users
   only): its first call, the whole pass (every batch until the watermark wraps) and an idle poll.
2. API: p50/p99 latency of a read/write mix under 50 concurrent clients against a real uvicorn
   server started with `autopatch-j cloud serve` on a free loopback port.
3. Claims: tasks/s run by 4 worker processes with the scripted executor (1 worker as baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.executors import ScriptedExecutor
from autopatch_j.cloud.memory_settings import update_settings
from autopatch_j.cloud.projects import create_project
from autopatch_j.cloud.quotas import set_quota
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.tables import task_rounds, tasks
from autopatch_j.cloud.users import create_user
from autopatch_j.cloud.worker import Worker

RESULT = "The change is done; tests pass and the report follows. " * 6


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


# --- databases ------------------------------------------------------------------------------


@contextmanager
def database(backend: str, pg_url: str | None, workdir: Path) -> Iterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{workdir / f'bench-{uuid.uuid4().hex[:6]}.sqlite3'}"
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


def seed(url: str, *, completed: int, queued: int = 0, users: int = 4) -> dict[str, Any]:
    """Users (half with generate on), one project each, `completed` finished tasks, `queued` new ones."""
    engine = make_engine(url)
    migrate(engine)
    now = datetime.now(UTC)
    made = []
    with write_tx(engine) as conn:
        for i in range(users):
            new = create_user(conn, name=f"bench{i}", is_admin=i == 0, now=now)
            project = create_project(conn, user=new.user, name=f"p{i}", now=now)
            if i % 2 == 0:
                update_settings(conn, user=new.user, changes={"generate_memories": 1, "use_memories": 1}, now=now)
            set_quota(conn, actor_id=None, user_id=new.user.id, monthly_limit_usd=None, now=now)
            made.append((new, project))
    rows = []
    for n in range(completed):
        new, project = made[n % users]
        finished = now - timedelta(seconds=3600 + n)
        short = n % 7 == 0  # ineligible by duration
        rows.append(
            {
                "project_id": project.id,
                "user_id": new.user.id,
                "prompt": f"goal {n % 500}\nbody {n}",
                "goal": None,
                "status": "completed",
                "result_text": RESULT if n % 11 else "tiny",
                "started_at": finished - timedelta(seconds=5 if short else 120),
                "finished_at": finished,
                "parent_task_id": None,
                "cost_usd": 0.0,
                "round": 1,
                "attempt": 1,
                "created_at": finished,
                "updated_at": finished,
            }
        )
    for n in range(queued):
        new, project = made[n % users]
        rows.append(
            {
                "project_id": project.id,
                "user_id": new.user.id,
                "prompt": f"queued {n}",
                "goal": None,
                "status": "queued",
                "result_text": None,
                "started_at": None,
                "finished_at": None,
                "parent_task_id": None,
                "cost_usd": 0.0,
                "round": 1,
                "attempt": 0,
                "created_at": now,
                "updated_at": now,
            }
        )
    with write_tx(engine) as conn:
        for start in range(0, len(rows), 2000):
            chunk = rows[start : start + 2000]
            ids = conn.execute(sa.insert(tasks).returning(tasks.c.id), chunk).scalars().all()
            conn.execute(
                sa.insert(task_rounds),
                [
                    {"task_id": i, "round": 1, "prompt": r["prompt"], "created_at": now}
                    for i, r in zip(ids, chunk, strict=True)
                ],
            )
    engine.dispose()
    return {"tokens": [new.token for new, _ in made], "projects": [p.id for _, p in made]}


# --- 1. sweep ------------------------------------------------------------------------------------


def bench_sweep(backend: str, pg_url: str | None, workdir: Path, *, tasks_n: int, repeats: int) -> dict[str, Any]:
    clock = lambda: datetime.now(UTC)  # noqa: E731
    with database(backend, pg_url, workdir) as url:
        seed(url, completed=tasks_n)
        engine = make_engine(url)
        t0 = time.perf_counter()
        baseline = process_auto_memories(engine, clock=clock)
        baseline_s = time.perf_counter() - t0
        steady = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            again = process_auto_memories(engine, clock=clock)
            steady.append(time.perf_counter() - t0)
            assert again.extracted == []
        engine.dispose()
    with database(backend, pg_url, workdir) as url:
        seed(url, completed=tasks_n)
        engine = make_engine(url)
        worker = Worker(engine=engine, executor=ScriptedExecutor(), clock=clock)
        t0 = time.perf_counter()
        first = worker.sweep(new_work=False)
        first_s = time.perf_counter() - t0
        extracted, batches = len(first.extracted), 1
        while worker._sweep_after:  # finish the pass: the sum of all batches
            extracted += len(worker.sweep(new_work=False).extracted)
            batches += 1
        pass_s = time.perf_counter() - t0
        idle = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            assert worker.sweep(new_work=False).scanned == 0
            idle.append(time.perf_counter() - t0)
        engine.dispose()
    assert extracted == len(baseline.extracted), (extracted, len(baseline.extracted))
    return {
        "tasks": tasks_n,
        "extracted": len(baseline.extracted),
        "skipped": len(baseline.skipped),
        "baseline_first_sweep_s": round(baseline_s, 3),
        "baseline_steady_sweep_median_s": round(statistics.median(steady), 3),
        "worker_first_sweep_s": round(first_s, 3),
        "worker_first_sweep_vs_baseline": round(first_s / baseline_s, 3),
        "worker_batch": worker.sweep_batch,
        "worker_pass_batches": batches,
        "worker_whole_pass_s": round(pass_s, 3),
        "worker_idle_poll_median_s": round(statistics.median(idle), 6),
    }


# --- 2. API latency --------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(url: str) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "autopatch_j", "cloud", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the API server did not start")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


async def _client(base: str, token: str, project: int, task_ids: list[int], n: int, out: list[float]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        for _ in range(2):  # warm-up: connection set-up and the server's pools are not measured
            (await http.get("/users/me")).raise_for_status()
        for i in range(n):
            kind = i % 10
            t0 = time.perf_counter()
            if kind < 4:
                response = await http.get(f"/tasks/{task_ids[i % len(task_ids)]}")
            elif kind < 7:
                response = await http.get(f"/projects/{project}/tasks", params={"limit": 20})
            elif kind < 9:
                response = await http.get("/users/me")
            else:
                response = await http.post(f"/projects/{project}/tasks", json={"prompt": f"bench {i}"})
            out.append(time.perf_counter() - t0)
            response.raise_for_status()


def bench_api(url: str, *, clients: int, requests_per_client: int) -> dict[str, Any]:
    info = seed(url, completed=500, users=2)
    token, project = info["tokens"][0], info["projects"][0]
    engine = make_engine(url)
    with engine.connect() as conn:
        task_ids = list(conn.execute(sa.select(tasks.c.id).where(tasks.c.project_id == project).limit(200)).scalars())
    engine.dispose()
    latencies: list[float] = []
    with served(url) as base:

        async def main() -> float:
            t0 = time.perf_counter()
            await asyncio.gather(
                *[_client(base, token, project, task_ids, requests_per_client, latencies) for _ in range(clients)]
            )
            return time.perf_counter() - t0

        wall = asyncio.run(main())
    return {
        "clients": clients,
        "requests": len(latencies),
        "p50_ms": round(percentile(latencies, 50) * 1000, 2),
        "p99_ms": round(percentile(latencies, 99) * 1000, 2),
        "throughput_rps": round(len(latencies) / wall, 1),
    }


# --- 3. claim throughput -----------------------------------------------------------------------


def _work(url: str, index: int, ready: Any, go: Any, out: Any) -> None:
    engine = make_engine(url, pool_size=2)
    worker = Worker(engine=engine, executor=ScriptedExecutor(), worker_id=f"bench-{index}", lease_seconds=60)
    with engine.connect() as conn:  # warm the connection before the clock starts
        conn.exec_driver_sql("SELECT 1")
    ready.put(index)
    go.wait(120)
    ran = 0
    while worker.run_one() is not None:
        ran += 1
    engine.dispose()
    out.put(ran)


def bench_claims(url: str, *, tasks_n: int, workers: int) -> dict[str, Any]:
    seed(url, completed=0, queued=tasks_n, users=2)
    ctx = mp.get_context("spawn")
    out, ready, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_work, args=(url, i, ready, go, out)) for i in range(workers)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=120)
    t0 = time.perf_counter()
    go.set()
    counts = [out.get(timeout=600) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join(30)
    engine = make_engine(url)
    with engine.connect() as conn:
        done = conn.execute(sa.select(sa.func.count()).where(tasks.c.status == "completed")).scalar_one()
        attempts = conn.execute(sa.select(sa.func.max(tasks.c.attempt))).scalar_one()
    engine.dispose()
    assert done == tasks_n == sum(counts) and attempts == 1, (done, counts, attempts)
    return {"workers": workers, "tasks": tasks_n, "wall_s": round(wall, 2), "tasks_per_s": round(tasks_n / wall, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller sizes (about a minute)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--only", choices=["sweep", "api", "claims"], help="run one part only")
    parser.add_argument("--pg-url", default=os.environ.get("AUTOPATCH_TEST_PG_URL"), help="PostgreSQL admin URL")
    args = parser.parse_args(argv)
    sizes = (
        {"sweep": 1000, "repeats": 3, "clients": 50, "per_client": 10, "claims": 200}
        if args.quick
        else {"sweep": 10_000, "repeats": 3, "clients": 50, "per_client": 40, "claims": 1000}
    )
    backends = ["sqlite"] + (["postgres"] if args.pg_url else [])
    report: dict[str, Any] = {"quick": args.quick, "backends": {}}
    with tempfile.TemporaryDirectory(prefix="cloud-bench-") as tmp:
        workdir = Path(tmp)
        for backend in backends:
            figures: dict[str, Any] = {}
            if args.only in (None, "sweep"):
                figures["sweep"] = bench_sweep(
                    backend, args.pg_url, workdir, tasks_n=sizes["sweep"], repeats=sizes["repeats"]
                )
            if args.only in (None, "api"):
                with database(backend, args.pg_url, workdir) as url:
                    figures["api"] = bench_api(url, clients=sizes["clients"], requests_per_client=sizes["per_client"])
            if args.only in (None, "claims"):
                claims = []
                for workers in (1, 4):
                    with database(backend, args.pg_url, workdir) as url:
                        claims.append(bench_claims(url, tasks_n=sizes["claims"], workers=workers))
                figures["claims"] = claims
                figures["claims_speedup_4_vs_1"] = round(claims[1]["tasks_per_s"] / claims[0]["tasks_per_s"], 2)
            report["backends"][backend] = figures
            if not args.json:
                print_backend(backend, figures)
    if args.json:
        print(json.dumps(report, indent=2))
    return 0


def print_backend(backend: str, f: dict[str, Any]) -> None:
    print(f"== {backend}")
    if "sweep" in f:
        print_sweep(f["sweep"])
    if "api" in f:
        a = f["api"]
        print(
            f"api: {a['clients']} concurrent clients, {a['requests']} requests: p50 {a['p50_ms']} ms, "
            f"p99 {a['p99_ms']} ms, {a['throughput_rps']} req/s"
        )
    for c in f.get("claims", []):
        print(f"claims: {c['workers']} worker(s), {c['tasks']} tasks in {c['wall_s']} s = {c['tasks_per_s']} tasks/s")
    if "claims" in f:
        print(f"claims: 4 workers vs 1 = {f['claims_speedup_4_vs_1']}×")


def print_sweep(s: dict[str, Any]) -> None:
    print(
        f"sweep baseline (unbounded, every user): {s['tasks']} completed tasks → {s['extracted']} extracted, "
        f"{s['skipped']} skipped; first sweep {s['baseline_first_sweep_s']} s, "
        f"steady-state median {s['baseline_steady_sweep_median_s']} s"
    )
    print(
        f"sweep worker (batches of {s['worker_batch']}, generating users): first sweep {s['worker_first_sweep_s']} s "
        f"({s['worker_first_sweep_vs_baseline']}× baseline); whole pass {s['worker_pass_batches']} batches "
        f"{s['worker_whole_pass_s']} s; idle poll median {s['worker_idle_poll_median_s']} s"
    )


if __name__ == "__main__":
    sys.exit(main())
