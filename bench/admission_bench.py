"""Admission benchmark: `begin_turn` + `complete_turn` latency, single process and 8 processes.

Baseline, measured in the same run: a bare `open connection + pragmas + BEGIN IMMEDIATE; INSERT;
COMMIT + close` on the same kind of WAL file, with one idle connection held open as MemoryManager
does (the cost floor of one short write transaction).
Admission does two such transactions (begin, complete), so ~2x the baseline is the floor.

    python bench/admission_bench.py [--quick] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _baseline(n: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "baseline.db"
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        keeper = conn  # held open like MemoryManager's idle connection, so closing c never drops the WAL
        samples = []
        for i in range(n):
            start = time.perf_counter()
            c = sqlite3.connect(db, isolation_level=None)
            c.execute("PRAGMA foreign_keys = ON")
            c.execute("PRAGMA busy_timeout = 10000")
            c.execute("PRAGMA synchronous = NORMAL")
            c.execute("BEGIN IMMEDIATE")
            c.execute("INSERT INTO t (body) VALUES (?)", (f"turn {i}",))
            c.execute("COMMIT")
            c.close()
            samples.append((time.perf_counter() - start) * 1000)
        keeper.close()
        return samples


def _admit(root: Path, n: int, label: str) -> list[float]:
    m = MemoryManager(root=root, owner=label)
    m.open()
    samples = []
    for i in range(n):
        start = time.perf_counter()
        ticket = m.begin_turn(f"{label}: 以后先给结论 / from now on answer first #{i}", Intent.GENERAL_CHAT)
        m.complete_turn(ticket, f"answer {i}")
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _worker(root: str, n: int, label: str, out: mp.Queue) -> None:  # type: ignore[type-arg]
    out.put(_admit(Path(root), n, label))


def _multi(n: int, processes: int) -> tuple[list[float], float]:
    with tempfile.TemporaryDirectory() as tmp:
        MemoryManager(root=Path(tmp)).open()
        ctx = mp.get_context("fork")
        out: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
        procs = [ctx.Process(target=_worker, args=(tmp, n, f"p{i}", out)) for i in range(processes)]
        start = time.perf_counter()
        for p in procs:
            p.start()
        samples = [s for _ in procs for s in out.get(timeout=600)]
        for p in procs:
            p.join()
        return samples, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    n = 300 if args.quick else 2000
    base = _baseline(n)
    with tempfile.TemporaryDirectory() as tmp:
        single = _admit(Path(tmp), n, "single")
    multi, wall = _multi(n // 4 if args.quick else n // 2, 8)
    result = {
        "benchmark": "admission",
        "iterations_single": n,
        "baseline_write_tx_ms": {"p50": statistics.median(base), "p99": _percentile(base, 0.99)},
        "single_process_ms": {"p50": statistics.median(single), "p99": _percentile(single, 0.99)},
        "eight_processes_ms": {"p50": statistics.median(multi), "p99": _percentile(multi, 0.99)},
        "eight_processes_turns_per_s": len(multi) / wall,
        "ratio_single_p50_to_baseline": statistics.median(single) / statistics.median(base),
        "target_single_p50_ms": 2.0,
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"baseline write tx   p50 {result['baseline_write_tx_ms']['p50']:.3f} ms  "
            f"p99 {result['baseline_write_tx_ms']['p99']:.3f} ms"
        )
        print(
            f"admission (1 proc)  p50 {result['single_process_ms']['p50']:.3f} ms  "
            f"p99 {result['single_process_ms']['p99']:.3f} ms  "
            f"({result['ratio_single_p50_to_baseline']:.2f}x baseline; target p50 <= 2 ms)"
        )
        print(
            f"admission (8 procs) p50 {result['eight_processes_ms']['p50']:.3f} ms  "
            f"p99 {result['eight_processes_ms']['p99']:.3f} ms  "
            f"{result['eight_processes_turns_per_s']:.0f} turns/s overall"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
