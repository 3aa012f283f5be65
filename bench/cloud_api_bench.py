"""Cloud API throughput: `GET /tasks/{id}` on `autopatch-j cloud serve` beside a bare FastAPI endpoint.

    python bench/cloud_api_bench.py [--clients 50] [--seconds 8] [--rounds 3] [--workers 2]
                                    [--before-python /path/to/old/.venv/bin/python] [--pg-url URL]
                                    [--pin] [--quick] [--json]

Every target is a real server subprocess on a free loopback port, started once and driven in turn
(rounds interleave the targets; each figure is the median over the rounds):

- `client ceiling`: a raw asyncio server answering every request with a fixed 200 — what the load
  generator itself can drive on this machine;
- `bare FastAPI`: one trivial `GET /tasks/{task_id}` endpoint, served by uvicorn with exactly the
  options `cloud serve` uses (`autopatch_j.cloud.server.uvicorn_options`);
- `serve (sqlite)`: `autopatch-j cloud serve` on a seeded SQLite file, `GET /tasks/{id}` by the
  task's owner (bearer token, membership check, full `TaskOut` body);
- `serve (postgres)`: the same on a throwaway PostgreSQL database (`--pg-url` or
  `AUTOPATCH_TEST_PG_URL`);
- `serve --workers N (sqlite)` with `--workers N`;
- `before (sqlite)` with `--before-python`: the same command run by another checkout's interpreter
  (for instance the main branch's `.venv/bin/python`), for a side-by-side before/after; and
  `before (postgres)` beside `serve (postgres)` when PostgreSQL is set.

The load generator is a small asyncio HTTP/1.1 keep-alive client (one connection per client, one
request in flight per connection, uvloop when installed), in this process. It shares the machine's
cores with the server; `--pin` puts the servers on CPU 0 and the client on CPU 1 (other processes
on the machine still run wherever they like). Reported per target: requests/s, p50/p99 latency,
non-200 answers, the server's CPU time per request and the ratio of requests/s to the bare endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
TICKS = os.sysconf("SC_CLK_TCK")


# --- servers run by this script itself (`--serve-raw PORT`, `--serve-bare PORT`) -------------------

_RAW_BODY = b'{"id":1}'
_RAW_RESPONSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
    + str(len(_RAW_BODY)).encode()
    + b"\r\n\r\n"
    + _RAW_BODY
)


class _RawProtocol(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: Any = transport  # uvloop's transports are not asyncio.Transport subclasses
        self.buffer = b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        answers = self.buffer.count(b"\r\n\r\n")
        if answers:
            self.buffer = self.buffer[self.buffer.rfind(b"\r\n\r\n") + 4 :]
            self.transport.write(_RAW_RESPONSE * answers)


def serve_raw(port: int) -> None:
    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(_RawProtocol, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    _run(main())


def serve_bare(port: int) -> None:
    import uvicorn
    from fastapi import FastAPI

    from autopatch_j.cloud.server import uvicorn_options

    app = FastAPI()

    @app.get("/tasks/{task_id}")
    async def bare(task_id: int) -> dict[str, int]:
        return {"id": task_id}

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(app, host="127.0.0.1", port=port, **uvicorn_options())


def _run(coro: Any) -> Any:
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


# --- the load generator ------------------------------------------------------------------------------


@dataclass
class Drive:
    latencies: list[float] = field(default_factory=list)
    bad: int = 0
    done: int = 0


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    at = lower.find(b"content-length:")
    if at < 0:
        raise RuntimeError("the server answered without a Content-Length")
    length = int(lower[at + 15 : lower.find(b"\r\n", at)])
    if length:
        await reader.readexactly(length)
    return status


async def _connection(port: int, request: bytes, warm_until: float, stop_at: float, out: Drive) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while True:
            started = time.perf_counter()
            if started >= stop_at:
                return
            writer.write(request)
            status = await _read_response(reader)
            if started >= warm_until:
                out.latencies.append(time.perf_counter() - started)
                out.done += 1
                if status != 200:
                    out.bad += 1
    finally:
        writer.close()


def drive(port: int, *, path: str, token: str | None, clients: int, seconds: float, warmup: float) -> dict[str, Any]:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Accept: */*\r\n\r\n".encode()
    out = Drive()

    async def main() -> float:
        start = time.perf_counter()
        warm_until = start + warmup
        stop_at = warm_until + seconds
        await asyncio.gather(*[_connection(port, request, warm_until, stop_at, out) for _ in range(clients)])
        return time.perf_counter() - warm_until

    window = _run(main())
    ordered = sorted(out.latencies)
    pick = lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2) if ordered else None  # noqa: E731
    return {"rps": round(out.done / window, 1), "p50_ms": pick(0.50), "p99_ms": pick(0.99), "non_200": out.bad}


# --- targets --------------------------------------------------------------------------------------------


@dataclass
class Target:
    name: str
    argv: list[str]
    path: str
    token: str | None
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """CPU time of the process and its children that are still alive (uvicorn's workers)."""
    pids = [pid]
    with suppress(OSError):
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    total = 0
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


@contextmanager
def started(target: Target, *, pin: bool, log_dir: Path) -> Iterator[Target]:
    target.port = free_port()
    argv = [arg.replace("{port}", str(target.port)) for arg in target.argv]
    if pin:
        argv = ["taskset", "-c", "0", *argv]
    log = (log_dir / f"{target.name.replace(' ', '_').replace('/', '_')}.log").open("wb")
    target.proc = subprocess.Popen(argv, env={**os.environ, **target.env}, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_ready(target)
        yield target
    finally:
        target.proc.terminate()
        try:
            target.proc.wait(20)
        except subprocess.TimeoutExpired:
            target.proc.kill()
            target.proc.wait(5)
        log.close()


def _wait_ready(target: Target) -> None:
    import httpx

    assert target.proc is not None
    deadline = time.monotonic() + 90
    headers = {"Authorization": f"Bearer {target.token}"} if target.token else {}
    while time.monotonic() < deadline:
        if target.proc.poll() is not None:
            raise RuntimeError(f"{target.name}: the server exited with status {target.proc.returncode}")
        try:
            response = httpx.get(f"http://127.0.0.1:{target.port}{target.path}", headers=headers, timeout=2)
        except httpx.TransportError:
            time.sleep(0.2)
            continue
        if response.status_code != 200:
            raise RuntimeError(f"{target.name}: {target.path} answered {response.status_code}: {response.text}")
        return
    raise RuntimeError(f"{target.name}: the server did not start")


def seed(url: str) -> tuple[str, int]:
    """One user owning one project with one task: the bearer token and the task's id."""
    from autopatch_j.cloud.db import make_engine, write_tx
    from autopatch_j.cloud.projects import create_project
    from autopatch_j.cloud.schema import migrate
    from autopatch_j.cloud.tasks import create_task
    from autopatch_j.cloud.users import create_user

    engine = make_engine(url)
    migrate(engine)
    now = datetime.now(UTC)
    with write_tx(engine) as conn:
        new = create_user(conn, name="bench", is_admin=False, now=now)
        project = create_project(conn, user=new.user, name="bench", now=now)
        task = create_task(
            conn, user=new.user, project_id=project.id, prompt="Add metrics to the API", goal=None,
            parent_task_id=None, now=now,
        )  # fmt: skip
    engine.dispose()
    return new.token, task.id


@contextmanager
def database(kind: str, pg_url: str | None, workdir: Path, label: str) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{workdir / f'{label}.sqlite3'}"
        return
    sys.path.insert(0, str(BENCH))
    from cloud_bench import database as pg_database

    assert pg_url is not None
    with pg_database("postgres", pg_url, workdir) as url:
        yield url


def _serve_target(name: str, python: str, url: str, *, workers: int = 1) -> Target:
    token, task_id = seed(url)
    argv = [python, "-m", "autopatch_j", "cloud", "serve", "--port", "{port}", "--db", url]
    if workers > 1:
        argv += ["--workers", str(workers)]
    env = {"AUTOPATCH_CLOUD_DB": url}
    return Target(name=name, argv=argv, path=f"/tasks/{task_id}", token=token, env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50, help="concurrent keep-alive connections (50)")
    parser.add_argument("--seconds", type=float, default=8.0, help="measured seconds per target and round (8)")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds before each window (1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; figures are medians (3)")
    parser.add_argument("--workers", type=int, default=0, help="also run `serve --workers N` on SQLite")
    parser.add_argument("--before-python", help="interpreter of another checkout, run as the 'before' target")
    parser.add_argument("--pg-url", default=os.environ.get("AUTOPATCH_TEST_PG_URL"), help="PostgreSQL admin URL")
    parser.add_argument("--no-pg", action="store_true", help="skip PostgreSQL even when a URL is set")
    parser.add_argument("--pin", action="store_true", help="servers on CPU 0, the load generator on CPU 1")
    parser.add_argument("--quick", action="store_true", help="1 round of 3 s")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--serve-raw", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--serve-bare", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_raw:
        serve_raw(args.serve_raw)
        return 0
    if args.serve_bare:
        serve_bare(args.serve_bare)
        return 0
    if args.quick:
        args.rounds, args.seconds = 1, 3.0
    if args.pin:
        os.sched_setaffinity(0, {1})
    me = [sys.executable, str(Path(__file__).resolve())]
    with tempfile.TemporaryDirectory(prefix="cloud-api-bench-") as tmp, ExitStack() as stack:
        workdir = Path(tmp)
        targets = [
            Target("client ceiling", [*me, "--serve-raw", "{port}"], "/tasks/1", None),
            Target("bare FastAPI", [*me, "--serve-bare", "{port}"], "/tasks/1", None),
        ]
        url = stack.enter_context(database("sqlite", None, workdir, "serve"))
        targets.append(_serve_target("serve (sqlite)", sys.executable, url))
        if args.pg_url and not args.no_pg:
            pg = stack.enter_context(database("postgres", args.pg_url, workdir, "pg"))
            targets.append(_serve_target("serve (postgres)", sys.executable, pg))
        if args.workers > 1:
            url = stack.enter_context(database("sqlite", None, workdir, "workers"))
            targets.append(
                _serve_target(f"serve --workers {args.workers} (sqlite)", sys.executable, url, workers=args.workers)
            )
        if args.before_python:
            url = stack.enter_context(database("sqlite", None, workdir, "before"))
            targets.append(_serve_target("before (sqlite)", args.before_python, url))
            if args.pg_url and not args.no_pg:
                pg = stack.enter_context(database("postgres", args.pg_url, workdir, "pg-before"))
                targets.append(_serve_target("before (postgres)", args.before_python, pg))
        for target in targets:
            stack.enter_context(started(target, pin=args.pin, log_dir=workdir))
        for _ in range(args.rounds):
            for target in targets:
                assert target.proc is not None
                cpu0 = _cpu_seconds(target.proc.pid)
                run = drive(
                    target.port, path=target.path, token=target.token, clients=args.clients,
                    seconds=args.seconds, warmup=args.warmup,
                )  # fmt: skip
                cpu = _cpu_seconds(target.proc.pid) - cpu0
                total = run["rps"] * (args.seconds + args.warmup)
                run["server_cpu_us_per_request"] = round(cpu / total * 1e6, 1) if total else None
                target.runs.append(run)
    report = summarize(targets, args)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
    return 0


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs if r[key] is not None), 2)


def summarize(targets: list[Target], args: argparse.Namespace) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {}
    for target in targets:
        cpu = _median(target.runs, "server_cpu_us_per_request")
        rows[target.name] = {
            "rps": _median(target.runs, "rps"),
            "p50_ms": _median(target.runs, "p50_ms"),
            "p99_ms": _median(target.runs, "p99_ms"),
            "non_200": sum(r["non_200"] for r in target.runs),
            "server_cpu_us_per_request": cpu,
            # what one process could serve with a whole core to itself: the figure the shared
            # machine's neighbours disturb least (CPU time, not wall time)
            "rps_per_cpu_second": round(1e6 / cpu) if cpu else None,
            "rounds_rps": [r["rps"] for r in target.runs],
        }
    bare = rows["bare FastAPI"]
    for row in rows.values():
        row["ratio_to_bare"] = round(row["rps"] / bare["rps"], 2) if bare["rps"] else None
        per_cpu = bare["rps_per_cpu_second"]
        row["cpu_ratio_to_bare"] = round(row["rps_per_cpu_second"] / per_cpu, 2) if per_cpu else None
    return {
        "command": "python bench/cloud_api_bench.py " + " ".join(sys.argv[1:]),
        "clients": args.clients,
        "seconds": args.seconds,
        "rounds": args.rounds,
        "pinned": args.pin,
        "nproc": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "targets": rows,
    }


def print_report(report: dict[str, Any]) -> None:
    print(
        f"GET /tasks/{{id}}, {report['clients']} keep-alive clients, {report['rounds']} round(s) of "
        f"{report['seconds']} s (medians); load average {report['load_average']}, {report['nproc']} cores, "
        f"{'pinned' if report['pinned'] else 'not pinned'}: the client shares the cores with the server"
    )
    print(
        f"{'target':32} {'req/s':>9} {'÷ bare':>7} {'p50 ms':>8} {'p99 ms':>8} {'non-200':>8} "
        f"{'CPU µs/req':>11} {'req/CPU-s':>10} {'÷ bare':>7}"
    )
    for name, row in report["targets"].items():
        print(
            f"{name:32} {row['rps']:>9} {row['ratio_to_bare']:>7} {row['p50_ms']:>8} {row['p99_ms']:>8} "
            f"{row['non_200']:>8} {row['server_cpu_us_per_request']:>11} {row['rps_per_cpu_second']:>10} "
            f"{row['cpu_ratio_to_bare']:>7}"
        )


if __name__ == "__main__":
    sys.exit(main())
