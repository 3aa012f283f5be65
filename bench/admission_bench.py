"""Admission benchmark: `begin_turn` + `complete_turn` against two bare write transactions (issue 16).

Baseline, measured in the same run and interleaved with admission round by round (so machine noise
hits both alike): two bare write transactions with the connection settings Memory uses — each opens a
short connection with the Memory pragmas (`busy_timeout`, `foreign_keys`, `synchronous = NORMAL`,
`journal_size_limit`), runs `BEGIN IMMEDIATE; INSERT; COMMIT` on a WAL file and closes it, while one
idle connection stays open (as every Memory process holds one). Admission is two such transactions
(store the message, store the answer), so the ratio admission / baseline is what Memory adds on top of
the floor; the target is ≤ 3x. For reference it also prints the same two transactions on a connection
that stays open (no connect, no pragmas): the cost of the SQL alone.

    python bench/admission_bench.py [--quick] [--json] [--rounds N] [--per-round N] [--no-multi]
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
from collections.abc import Callable
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent

TARGET_RATIO = 3.0
_PRAGMAS = (
    "PRAGMA busy_timeout = 10000",
    "PRAGMA foreign_keys = ON",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA journal_size_limit = 4194304",
)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 4),
        "p90": round(_percentile(values, 0.90), 4),
        "p99": round(_percentile(values, 0.99), 4),
    }


class BareStore:
    """A one-table WAL file written with Memory's connection settings."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "baseline.db"
        self.keeper = sqlite3.connect(self.path, isolation_level=None)
        self.keeper.execute("PRAGMA journal_mode = WAL")
        self.keeper.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        self.open_conn = self._connect()
        self.i = 0

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(f"file:{self.path}?mode=rw", uri=True, isolation_level=None, timeout=10)
        conn.row_factory = sqlite3.Row
        for pragma in _PRAGMAS:
            conn.execute(pragma)
        return conn

    def _write(self, conn: sqlite3.Connection) -> None:
        self.i += 1
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (body) VALUES (?)", (f"turn {self.i}",))
        conn.execute("COMMIT")

    def two_short_transactions(self) -> None:
        for _ in range(2):
            conn = self._connect()
            self._write(conn)
            conn.close()

    def two_transactions_on_an_open_connection(self) -> None:
        self._write(self.open_conn)
        self._write(self.open_conn)

    def close(self) -> None:
        self.open_conn.close()
        self.keeper.close()


def _admission(manager: MemoryManager, label: str) -> Callable[[], None]:
    counter = iter(range(10**9))

    def admit() -> None:
        i = next(counter)
        ticket = manager.begin_turn(f"{label}: 以后先给结论 / from now on answer first #{i}", Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, f"answer {i}")

    return admit


def _timed(action: Callable[[], None], n: int, into: list[float]) -> None:
    for _ in range(n):
        start = time.perf_counter_ns()
        action()
        into.append((time.perf_counter_ns() - start) / 1e6)


def single_process(rounds: int, per_round: int) -> dict[str, list[float]]:
    """Interleaved rounds: baseline, admission, open-connection reference, each `per_round` times."""
    samples: dict[str, list[float]] = {"baseline": [], "admission": [], "open_connection": []}
    with tempfile.TemporaryDirectory() as tmp:
        bare = BareStore(Path(tmp))
        manager = MemoryManager(root=Path(tmp) / "project", owner="single")
        (Path(tmp) / "project").mkdir()
        assert manager.open().ok
        admit = _admission(manager, "single")
        for _ in range(5):  # warm both paths (statement caches, first WAL frames)
            bare.two_short_transactions()
            admit()
        for _ in range(rounds):
            _timed(bare.two_short_transactions, per_round, samples["baseline"])
            _timed(admit, per_round, samples["admission"])
            _timed(bare.two_transactions_on_an_open_connection, per_round, samples["open_connection"])
        manager.close()
        bare.close()
    return samples


def _worker(root: str, n: int, label: str, out: mp.Queue) -> None:  # type: ignore[type-arg]
    manager = MemoryManager(root=Path(root), owner=label)
    manager.open()
    samples: list[float] = []
    _timed(_admission(manager, label), n, samples)
    manager.close()
    out.put(samples)


def eight_processes(n: int) -> tuple[list[float], float]:
    with tempfile.TemporaryDirectory() as tmp:
        MemoryManager(root=Path(tmp)).open()
        ctx = mp.get_context("spawn")
        out: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
        procs = [ctx.Process(target=_worker, args=(tmp, n, f"p{i}", out)) for i in range(8)]
        start = time.perf_counter()
        for p in procs:
            p.start()
        samples = [s for _ in procs for s in out.get(timeout=600)]
        for p in procs:
            p.join()
        return samples, time.perf_counter() - start


def run(*, rounds: int, per_round: int, multi: int) -> dict[str, object]:
    single = single_process(rounds, per_round)
    base = statistics.median(single["baseline"])
    admission = statistics.median(single["admission"])
    result: dict[str, object] = {
        "benchmark": "admission",
        "rounds": rounds,
        "per_round": per_round,
        "baseline_two_short_write_tx_ms": _summary(single["baseline"]),
        "single_process_ms": _summary(single["admission"]),
        "reference_two_tx_open_connection_ms": _summary(single["open_connection"]),
        "ratio_single_p50_to_baseline": round(admission / base, 2),
        "ratio_single_p90_to_baseline_p90": round(
            _percentile(single["admission"], 0.9) / _percentile(single["baseline"], 0.9), 2
        ),
        "target_ratio": TARGET_RATIO,
        "meets_target": admission / base <= TARGET_RATIO,
    }
    if multi:
        samples, wall = eight_processes(multi)
        result["eight_processes_ms"] = _summary(samples)
        result["eight_processes_turns_per_s"] = round(len(samples) / wall, 1)
    return result


def _line(label: str, figures: dict[str, float]) -> str:
    return f"{label:44} p50 {figures['p50']:7.3f} ms  p90 {figures['p90']:7.3f} ms  p99 {figures['p99']:7.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (10 x 30) and 50 turns per process")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 20)")
    parser.add_argument("--per-round", type=int, default=None, help="samples of each kind per round (default 50)")
    parser.add_argument("--no-multi", action="store_true", help="skip the 8-process run")
    args = parser.parse_args()
    rounds = args.rounds or (10 if args.quick else 20)
    per_round = args.per_round or (30 if args.quick else 50)
    result = run(rounds=rounds, per_round=per_round, multi=0 if args.no_multi else (50 if args.quick else 250))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{rounds} interleaved rounds x {per_round} samples each:")
    print(_line("baseline: 2 bare write tx, short connections", result["baseline_two_short_write_tx_ms"]))  # type: ignore[arg-type]
    print(_line("admission: begin_turn + complete_turn", result["single_process_ms"]))  # type: ignore[arg-type]
    print(_line("reference: 2 bare write tx, open connection", result["reference_two_tx_open_connection_ms"]))  # type: ignore[arg-type]
    verdict = "meets" if result["meets_target"] else "MISSES"
    print(
        f"admission / baseline: p50 {result['ratio_single_p50_to_baseline']}x, "
        f"p90 {result['ratio_single_p90_to_baseline_p90']}x ({verdict} the <= {TARGET_RATIO:g}x target)"
    )
    if "eight_processes_ms" in result:
        print(_line("admission, 8 processes at once", result["eight_processes_ms"]))  # type: ignore[arg-type]
        print(f"8 processes: {result['eight_processes_turns_per_s']} turns/s overall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
