"""Soak: the control plane under mixed traffic while workers are killed.

    python bench/soak.py [--minutes 10] [--pg-url postgresql+psycopg://…] [--json]

On a throwaway PostgreSQL database (`--pg-url` or `AUTOPATCH_TEST_PG_URL`; created and dropped) it
runs `autopatch-j cloud serve --workers 2`, three `autopatch-j cloud worker --executor scripted`
processes and mixed API traffic from `--clients` keep-alive clients (task detail, task lists,
`/users/me`, new tasks, continues, memories), and every `--kill-every` seconds it kills one worker
with SIGKILL and starts a new one in its place (what a supervisor does). The offered load adapts to
what the workers can run: four times a second the script reads the queue's length, counts the writes
sent since, and while that sum is at `--max-backlog` the clients send a task detail read instead
of a new task or a continue (counted as "writes held back"), so the queue outgrows the bound by
writes in flight only (at most one per client). At the end it
stops the traffic, lets the queue drain (up to `--drain` seconds) and prints: requests per second,
p50/p99 latency, server errors, whether every task round ran exactly once (the queue drained, every
round has an outcome, one `task_finished` per round, none missing, none twice), the RSS of every
process at the start and the end, and the database size. `--sqlite` runs on a SQLite file instead (a quick
check of the script itself).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.memory_settings import update_settings
from autopatch_j.cloud.projects import create_project, set_member
from autopatch_j.cloud.quotas import set_quota
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.users import create_user
from autopatch_j.runtime import utc_now

CLI = [sys.executable, "-m", "autopatch_j", "cloud"]


@contextmanager
def database(pg_url: str | None, workdir: Path) -> Iterator[str]:
    """A SQLite file in `workdir`, or a scratch PostgreSQL database (cloud_bench's, dropped after)."""
    if pg_url is None:
        yield f"sqlite:///{workdir / 'soak.sqlite3'}"
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cloud_bench import database as scratch_database

    with scratch_database("postgres", pg_url, workdir) as url:
        yield url


def seed(url: str) -> tuple[list[str], int]:
    """Three users with memories on, members of one project, no quota limit."""
    engine = make_engine(url)
    migrate(engine)
    now = utc_now()
    tokens = []
    with write_tx(engine) as conn:
        made = [create_user(conn, name=f"soak{i}", is_admin=False, now=now) for i in range(3)]
        project = create_project(conn, user=made[0].user, name="soak", now=now)
        for other in made[1:]:
            set_member(
                conn, actor=made[0].user, project_id=project.id, user_id=other.user.id, role=Role.MEMBER, now=now
            )
        for user in made:
            set_quota(conn, actor_id=None, user_id=user.user.id, monthly_limit_usd=None, now=now)
            update_settings(
                conn,
                user=user.user,
                changes={"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0},
                now=now,
            )
            tokens.append(user.token)
    engine.dispose()
    return tokens, project.id


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


TICK_SECONDS = 0.25  # how often the queue's length is read (and a kill considered)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))] if ordered else 0.0


class Traffic:
    """Mixed API traffic; remembers every task it created."""

    def __init__(self, base: str, tokens: list[str], project_id: int, max_backlog: int) -> None:
        self.base = base
        self.tokens = tokens
        self.project_id = project_id
        self.latencies: list[float] = []
        self.statuses: dict[int, int] = {}
        self.task_ids: list[int] = []
        self.stop = False
        self.held_back = 0
        self.max_backlog = max_backlog
        # the queue's length at the last reading plus the writes sent since: clients hold their
        # writes while it is at the bound, so the queue outgrows it by writes in flight only
        self.backlog_estimate = 0

    def observe_backlog(self, backlog: int) -> None:
        self.backlog_estimate = backlog

    def may_write(self) -> bool:
        """Counts a write about to be sent; False while the queue is (estimated) at the bound."""
        if self.backlog_estimate >= self.max_backlog:
            return False
        self.backlog_estimate += 1
        return True

    async def client(self, n: int) -> None:
        rnd = random.Random(n)
        token = self.tokens[n % len(self.tokens)]
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=self.base, headers=headers, timeout=30) as http:
            while not self.stop:
                kind = rnd.random()
                if 0.65 <= kind < 0.95 and not self.may_write() and self.task_ids:
                    self.held_back += 1
                    kind = 0.0  # the queue is full: read a task instead of queueing one
                if kind < 0.40 and self.task_ids:
                    call = http.get(f"/tasks/{rnd.choice(self.task_ids)}")
                elif kind < 0.55:
                    call = http.get(f"/projects/{self.project_id}/tasks", params={"limit": 20})
                elif kind < 0.65:
                    call = http.get("/users/me")
                elif kind < 0.85:
                    body = {"prompt": f"soak task {n}-{rnd.randrange(10**6)}: add a check"}
                    call = http.post(f"/projects/{self.project_id}/tasks", json=body)
                elif kind < 0.95 and self.task_ids:
                    call = http.post(f"/tasks/{rnd.choice(self.task_ids)}/continue", json={"prompt": "and more"})
                else:
                    call = http.post("/users/me/memories", json={"content": f"prefers check {rnd.randrange(100)}"})
                started = time.perf_counter()
                try:
                    response = await call
                except httpx.HTTPError:
                    self.statuses[0] = self.statuses.get(0, 0) + 1
                    continue
                self.latencies.append(time.perf_counter() - started)
                self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
                if response.status_code == 201 and "/tasks" in str(response.url):
                    self.task_ids.append(response.json()["id"])


def wait_ready(base: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise SystemExit("error: the server did not become ready within a minute")


def exactly_once(url: str, drain_seconds: float) -> dict[str, Any]:
    engine = make_engine(url)
    deadline = time.monotonic() + drain_seconds
    open_tasks = -1
    with engine.connect() as conn:
        while time.monotonic() < deadline:
            open_tasks = conn.execute(
                sa.text("SELECT count(*) FROM tasks WHERE status IN ('queued', 'running')")
            ).scalar_one()
            conn.commit()
            if open_tasks == 0:
                break
            time.sleep(1)
        without_outcome = conn.execute(
            sa.text("SELECT count(*) FROM task_rounds WHERE status IS NULL OR status IN ('queued', 'running')")
        ).scalar_one()
        by_task = sa.text("SELECT task_id, count(*) FROM task_rounds GROUP BY task_id")
        rounds: dict[int, int] = dict(conn.execute(by_task).all())
        finished: dict[int, int] = dict(
            conn.execute(
                sa.text("SELECT task_id, count(*) FROM audit_events WHERE kind = 'task_finished' GROUP BY task_id")
            ).all()
        )
        still_open = {
            row[0] for row in conn.execute(sa.text("SELECT id FROM tasks WHERE status IN ('queued', 'running')"))
        }
        resumed = conn.execute(
            sa.text(
                "SELECT count(*) FROM audit_events WHERE kind = 'task_claimed' AND detail LIKE '%\"resumed\": true%'"
            )
        ).scalar_one()
        size = (
            conn.execute(sa.text("SELECT pg_database_size(current_database())")).scalar_one()
            if engine.dialect.name == "postgresql"
            else Path(str(engine.url.database)).stat().st_size
        )
    engine.dispose()
    twice = sorted(t for t, n in finished.items() if n > rounds.get(t, 0))
    missing = sorted(t for t, n in rounds.items() if finished.get(t, 0) < n and t not in still_open)
    return {
        "tasks": len(rounds),
        "rounds": sum(rounds.values()),
        "rounds_recorded": sum(finished.values()),
        "recorded_twice": len(twice),
        "closed_not_recorded": len(missing),
        "left_open": open_tasks,
        "rounds_without_outcome": without_outcome,
        "resumed_after_a_kill": resumed,
        # exactly once: the queue drained, every round ran (has an outcome and one `task_finished`)
        "exactly_once": not twice and not missing and open_tasks == 0 and without_outcome == 0,
        "db_bytes": size,
    }


async def drive(traffic: Traffic, clients: int, seconds: float, on_tick: Any) -> float:
    tasks = [asyncio.create_task(traffic.client(n)) for n in range(clients)]
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        await asyncio.sleep(TICK_SECONDS)
        on_tick(time.monotonic() - started)
    traffic.stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between SIGKILLs")
    parser.add_argument(
        "--max-backlog", type=int, default=24, help="queued tasks at which clients stop queueing new work"
    )
    parser.add_argument("--drain", type=float, default=180.0, help="seconds the queue gets to drain at the end")
    parser.add_argument("--pg-url", default=os.environ.get("AUTOPATCH_TEST_PG_URL"))
    parser.add_argument("--sqlite", action="store_true", help="run on a SQLite file instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.max_backlog < 1 or args.minutes <= 0 or args.clients < 1:
        raise SystemExit("error: --max-backlog and --clients must be at least 1 and --minutes positive")
    if not args.sqlite and not args.pg_url:
        raise SystemExit("error: give --pg-url (or set AUTOPATCH_TEST_PG_URL), or --sqlite for a quick check")
    with tempfile.TemporaryDirectory() as tmp, database(None if args.sqlite else args.pg_url, Path(tmp)) as url:
        tokens, project_id = seed(url)
        port = free_port()
        env = {
            **os.environ,
            "AUTOPATCH_CLOUD_DB": url,
            "AUTOPATCH_CLOUD_LEASE_SECONDS": "6",
            "AUTOPATCH_CLOUD_POLL_SECONDS": "0.2",
            "AUTOPATCH_CLOUD_SWEEP_PASS_SECONDS": "5",
        }
        server = start([*CLI, "serve", "--port", str(port), "--workers", "2"], env)
        workers = [start([*CLI, "worker", "--executor", "scripted"], env) for _ in range(3)]
        base = f"http://127.0.0.1:{port}"
        kills = 0
        rss: dict[str, dict[str, int | None]] = {}
        try:
            wait_ready(base)
            time.sleep(2)
            serve_pids = [server.pid, *children(server.pid)]
            for pid in serve_pids:
                rss[f"serve {pid}"] = {"start": rss_kib(pid)}
            for w in workers:
                rss[f"worker {w.pid}"] = {"start": rss_kib(w.pid)}
            traffic = Traffic(base, tokens, project_id, args.max_backlog)
            next_kill = args.kill_every
            queue_reader = make_engine(url)
            queued_len = sa.text("SELECT count(*) FROM tasks WHERE status = 'queued'")
            peak_backlog = 0

            def tick(elapsed: float) -> None:
                nonlocal next_kill, kills, peak_backlog
                with queue_reader.connect() as conn:
                    backlog = int(conn.execute(queued_len).scalar_one())
                peak_backlog = max(peak_backlog, backlog)
                traffic.observe_backlog(backlog)
                if elapsed >= next_kill:
                    victim = workers[kills % len(workers)]
                    victim.send_signal(signal.SIGKILL)
                    victim.wait()
                    rss.setdefault(f"worker {victim.pid}", {})["end"] = None  # killed
                    workers[kills % len(workers)] = start([*CLI, "worker", "--executor", "scripted"], env)
                    kills += 1
                    next_kill += args.kill_every

            elapsed = asyncio.run(drive(traffic, args.clients, args.minutes * 60, tick))
            for name in list(rss):
                pid = int(name.split()[1])
                if rss[name].get("end", 0) is not None:
                    rss[name]["end"] = rss_kib(pid)
            for w in workers:
                rss.setdefault(f"worker {w.pid}", {"start": None})["end"] = rss_kib(w.pid)
            queue_reader.dispose()
            checked = exactly_once(url, drain_seconds=args.drain)
        finally:
            for proc in [*workers, server]:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
            for proc in [*workers, server]:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
    requests = len(traffic.latencies)
    figures = {
        "backend": "sqlite" if args.sqlite else "postgresql",
        "seconds": round(elapsed, 1),
        "clients": args.clients,
        "workers_killed": kills,
        "requests": requests,
        "req_per_s": round(requests / elapsed, 1),
        "p50_ms": round(percentile(traffic.latencies, 50) * 1000, 1),
        "p99_ms": round(percentile(traffic.latencies, 99) * 1000, 1),
        "mean_ms": round(statistics.fmean(traffic.latencies) * 1000, 1) if requests else 0.0,
        "statuses": dict(sorted(traffic.statuses.items())),
        "server_errors": sum(n for code, n in traffic.statuses.items() if code >= 500 or code == 0),
        "max_backlog": args.max_backlog,
        "peak_backlog": peak_backlog,
        "writes_held_back": traffic.held_back,
        "rss_kib": rss,
        **checked,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"soak on {figures['backend']}: {figures['seconds']} s, {args.clients} clients, {kills} workers SIGKILLed")
    print(
        f"requests: {requests} ({figures['req_per_s']} req/s), p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms"
    )
    print(f"statuses: {figures['statuses']} (server errors or dropped: {figures['server_errors']})")
    print(
        f"backlog: peak {peak_backlog} queued (bound {args.max_backlog}); "
        f"{traffic.held_back} writes held back while the queue was full"
    )
    print(
        f"tasks: {checked['tasks']} with {checked['rounds']} rounds; recorded {checked['rounds_recorded']}, "
        f"twice {checked['recorded_twice']}, closed but never recorded {checked['closed_not_recorded']}, "
        f"still queued or running after the drain {checked['left_open']}, "
        f"rounds without an outcome {checked['rounds_without_outcome']}, "
        f"resumed after a kill {checked['resumed_after_a_kill']}: exactly once = {checked['exactly_once']}"
    )
    for name, values in rss.items():
        start_kib, end_kib = values.get("start"), values.get("end")
        growth = f"{(end_kib - start_kib) / 1024:+.1f} MiB" if start_kib and end_kib else "(killed or started later)"
        print(f"RSS {name}: {start_kib} → {end_kib} KiB {growth}")
    print(f"database size: {checked['db_bytes'] / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
