"""MCP server benchmark: `memory_search` round trip over stdio at 10k items, beside the same search in-process.

The store is the one of bench/search_bench.py (a real Memory database, 10k generated zh/en items
bulk-loaded with their terms; its FTS5 baseline table is dropped so Memory verifies healthy). The
same queries (search_bench's mix: exact, prefix, substring, content, misses, long sentences) run

- in-process: `MemoryManager.search(thread_id=…, query=…)`, what `memory search` and the server call;
- over stdio: `tools/call memory_search` from the SDK's own `ClientSession` to `autopatch-j mcp`
  in a subprocess (JSON-RPC framing, pydantic validation, the SDK's worker thread, the pipe).

The ratio p50(stdio) / p50(in-process) is the protocol's overhead. Also measured, N times: server
start to first response — spawning `autopatch-j mcp` until `initialize` is answered and until the
first `memory_search` is answered — beside a cold `autopatch-j memory status` process in the same run,
on the 10k store and on an empty project (opening Memory costs more on a large store).

    python bench/mcp_bench.py [--quick] [--json] [--queries N] [--starts N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_bench  # the shared generated store

from autopatch_j.memory.manager import MemoryManager

ITEMS = 10_000


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_LLM_")}
    env["AUTOPATCH_MEMORY_EXTRACTOR"] = "rules"
    return env


def _server(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "autopatch_j", "-C", str(root), "mcp", "--read-only"], env=_env()
    )


def build_store(root: Path, seed: int) -> list[str]:
    """10k items in a healthy store; returns the queries."""
    rng = random.Random(seed)
    store = search_bench.open_store(root)
    threads = list(range(1, store.thread_id + 1))
    items = search_bench.generate(ITEMS, rng, threads=threads, active_thread=store.thread_id)
    search_bench.load(store, items)
    store.conn.execute("DROP TABLE bench_fts")  # the FTS5 baseline is not part of a real store
    store.conn.close()
    return [query for _, query in search_bench.make_queries(items, rng, 10_000)]


def in_process(root: Path, queries: list[str]) -> list[float]:
    manager = MemoryManager(root=root)
    assert manager.open().ok, manager.health.reason
    thread_id = manager.active_thread().id
    samples = []
    for query in queries:
        started = time.perf_counter()
        manager.search(thread_id=thread_id, query=query)
        samples.append((time.perf_counter() - started) * 1000)
    manager.close()
    return samples


async def over_stdio(root: Path, queries: list[str]) -> tuple[list[float], int]:
    samples = []
    hits = 0
    with open(os.devnull, "w") as errlog:
        async with stdio_client(_server(root), errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for query in queries[:20]:  # warm-up: imports, the SDK's thread pool
                await session.call_tool("memory_search", {"query": query})
            for query in queries:
                started = time.perf_counter()
                result = await session.call_tool("memory_search", {"query": query})
                samples.append((time.perf_counter() - started) * 1000)
                if result.is_error:
                    raise SystemExit(f"memory_search failed: {result.content}")
                hits += bool(result.structured_content and result.structured_content["hits"])
    return samples, hits


async def one_start(root: Path) -> tuple[float, float]:
    """ms from spawn to the `initialize` answer, and to the first `memory_search` answer."""
    with open(os.devnull, "w") as errlog:
        started = time.perf_counter()
        async with stdio_client(_server(root), errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            initialized = (time.perf_counter() - started) * 1000
            await session.call_tool("memory_search", {"query": "python"})
            first = (time.perf_counter() - started) * 1000
    return initialized, first


def cold_status(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(root), "memory", "status"],
        env=_env(),
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return (time.perf_counter() - started) * 1000


def _pct(values: list[float], q: float) -> float:
    return round(search_bench.percentile(values, q), 3)


def run(*, n_queries: int, starts: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="autopatch-mcp-") as tmp:
        root = Path(tmp)
        queries = build_store(root, seed)[:n_queries]
        local = in_process(root, queries)
        remote, hits = anyio.run(over_stdio, root, queries)
        empty = root / "empty-project"
        empty.mkdir()
        cold_status(empty)  # create its Memory once (not timed)
        start_samples: list[tuple[float, float]] = []
        status_samples: list[float] = []
        empty_starts: list[tuple[float, float]] = []
        empty_status: list[float] = []
        for _ in range(starts):  # interleaved: machine noise hits all of them alike
            start_samples.append(anyio.run(one_start, root))
            status_samples.append(cold_status(root))
            empty_starts.append(anyio.run(one_start, empty))
            empty_status.append(cold_status(empty))
    local_p50, remote_p50 = _pct(local, 0.5), _pct(remote, 0.5)
    init_ms = statistics.median(s[0] for s in start_samples)
    first_ms = statistics.median(s[1] for s in start_samples)
    status_ms = statistics.median(status_samples)
    return {
        "benchmark": "mcp",
        "items": ITEMS,
        "queries": len(queries),
        "queries_with_hits": hits,
        "search_in_process": {"p50_ms": local_p50, "p99_ms": _pct(local, 0.99)},
        "search_over_stdio": {"p50_ms": remote_p50, "p99_ms": _pct(remote, 0.99)},
        "ratio_p50": round(remote_p50 / local_p50, 1) if local_p50 else None,
        "ratio_p99": round(_pct(remote, 0.99) / _pct(local, 0.99), 1) if _pct(local, 0.99) else None,
        "overhead_p50_ms": round(remote_p50 - local_p50, 3),
        "start": {
            "runs": starts,
            "to_initialize_ms": round(init_ms, 1),
            "to_first_search_ms": round(first_ms, 1),
            "cold_memory_status_ms": round(status_ms, 1),
            "ratio_first_search_to_memory_status": round(first_ms / status_ms, 2) if status_ms else None,
            "empty_project_to_first_search_ms": round(statistics.median(s[1] for s in empty_starts), 1),
            "empty_project_cold_memory_status_ms": round(statistics.median(empty_status), 1),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer queries and starts")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--queries", type=int, default=None, help="searches each way (default 2000, quick 400)")
    parser.add_argument("--starts", type=int, default=None, help="server starts (default 10, quick 3)")
    parser.add_argument("--seed", type=int, default=4, help="random seed of the generated store and queries")
    args = parser.parse_args(argv)
    report = run(
        n_queries=args.queries or (400 if args.quick else 2_000),
        starts=args.starts or (3 if args.quick else 10),
        seed=args.seed,
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    local, remote, start = report["search_in_process"], report["search_over_stdio"], report["start"]
    print(f"memory_search at {report['items']} items, {report['queries']} queries ({report['queries_with_hits']} hit):")
    print(f"  in-process      p50 {local['p50_ms']:8.3f} ms  p99 {local['p99_ms']:8.3f} ms")
    print(f"  MCP over stdio  p50 {remote['p50_ms']:8.3f} ms  p99 {remote['p99_ms']:8.3f} ms")
    print(f"  ratio stdio/in-process: p50 x{report['ratio_p50']}, p99 x{report['ratio_p99']}")
    print(f"server start, median of {start['runs']}:")
    print(f"  spawn → initialize answered     {start['to_initialize_ms']:8.1f} ms")
    print(f"  spawn → first memory_search     {start['to_first_search_ms']:8.1f} ms")
    print(f"  cold `memory status` (baseline) {start['cold_memory_status_ms']:8.1f} ms")
    print(f"  ratio first search / memory status: x{start['ratio_first_search_to_memory_status']}")
    print(f"  empty project: spawn → first memory_search {start['empty_project_to_first_search_ms']:8.1f} ms")
    print(f"  empty project: cold `memory status`        {start['empty_project_cold_memory_status_ms']:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
