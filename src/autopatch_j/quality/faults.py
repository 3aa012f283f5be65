"""Crash and fault harnesses for the Memory store: kill -9, many writers on one file, WAL growth.

Each harness is a function that takes a scratch directory, a seed and sizes, runs real processes
(forked, so they start in milliseconds) against one Memory database, and returns a report value
with the figures. Tests assert on the figures; `bench/fault_report.py` prints them. Nothing here
reads the environment or prints.

- `kill_loop`: a child admits turns (and, when a job runner is given, runs job claims and commits)
  and acknowledges each commit over a pipe only after it returned; the parent SIGKILLs it at a
  random moment, reopens with a fresh `MemoryManager` and checks: acknowledged commits lost,
  `quick_check` / `integrity_check` / `foreign_key_check` failures, open turns left after recovery,
  turns without their extraction job, duplicates. One database serves every trial, so the store
  also grows through hundreds of crashes.
- `concurrent_writers`: N processes admit turns on one file through `MemoryManager` (BEGIN
  IMMEDIATE + busy_timeout): busy errors reaching a caller and p50/p99 commit latency. The negative
  control runs the same admission SQL in a deferred `BEGIN` (read, then write) with a small busy
  timeout: it must show busy errors, proving the harness can see them.
- `wal_growth`: writers commit while readers keep overlapping short read transactions; the WAL's
  high-water mark is sampled. The control holds one read transaction open for the whole run.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.memory.errors import StorageBusyError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent

_FORK = multiprocessing.get_context("fork")
#: Each trial runs this much later than the one before (an offset on the wall clock), so a killed
#: child's turn and job leases (120 s) and any backoff (≤ 1 h) have expired when the next process
#: starts — exactly what a restart after a crash sees, without waiting in real time.
TRIAL_STRIDE_S = 4_000.0


class OffsetClock:
    """The wall clock shifted by a fixed offset."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def now(self) -> float:
        return time.time() + self.offset


#: Runs due Memory jobs in a fresh process (a claim, the model call, a fenced commit per job) and
#: returns the ids of the jobs whose commit returned. `None`: admissions only.
JobRunner = Callable[[MemoryManager], list[int]]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


# -- kill -9 loop -----------------------------------------------------------------------------------


@dataclass
class KillLoopReport:
    seed: int
    trials: int
    acknowledged_turns: int = 0
    acknowledged_jobs: int = 0
    acknowledged_lost: int = 0
    quick_check_failures: int = 0
    integrity_check_failures: int = 0
    foreign_key_failures: int = 0
    open_turns_after_recovery: int = 0
    turns_without_job: int = 0
    jobs_unfinished_after_drain: int = 0
    duplicate_items: int = 0
    reopen_failures: int = 0
    killed_mid_run: int = 0
    turns_total: int = 0
    jobs_total: int = 0
    drained_jobs: int = 0
    elapsed_s: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (
            self.acknowledged_lost
            or self.quick_check_failures
            or self.integrity_check_failures
            or self.foreign_key_failures
            or self.open_turns_after_recovery
            or self.turns_without_job
            or self.jobs_unfinished_after_drain
            or self.duplicate_items
            or self.reopen_failures
        )

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        data["errors"] = self.errors[:20]
        return data


def _kill_child(root: Path, trial: int, ack_fd: int, runner: JobRunner | None, jobs_every: int) -> None:
    """The crashing process: admit turns forever, acknowledging each commit after it returned."""
    manager = MemoryManager(root=root, clock=OffsetClock(trial * TRIAL_STRIDE_S), owner=f"crash-{trial}")
    if not manager.open().ok:
        os._exit(3)
    k = 0
    while True:
        ticket = manager.begin_turn(_user_text(trial, k), Intent.GENERAL_CHAT)
        os.write(ack_fd, f"open {ticket.turn_id}\n".encode())
        manager.complete_turn(ticket, _answer_text(trial, k))
        os.write(ack_fd, f"turn {ticket.turn_id}\n".encode())
        k += 1
        if runner is not None and k % jobs_every == 0:
            for job_id in runner(manager):
                os.write(ack_fd, f"job {job_id}\n".encode())


def offline_job_runner(manager: MemoryManager) -> list[int]:
    """Run every due job once with the offline extractor; the ids of the jobs whose commit returned."""
    from autopatch_j.memory.drain import drain
    from autopatch_j.memory.offline import RulesExtractor
    from autopatch_j.memory.pipeline import Outcome, Pipeline

    pipeline = Pipeline.for_manager(manager, extractor=RulesExtractor(), heartbeat_seconds=None)
    pipeline.recover()  # M-51: reclaim the expired leases of a crashed worker
    report = drain(pipeline, budget_s=None)
    done = (Outcome.SUCCEEDED, Outcome.SUCCEEDED_NO_OUTPUT)
    return [job_id for step in report.steps if step.outcome in done for job_id in step.job_ids]


def drain_everything(manager: MemoryManager, *, rounds: int = 50) -> list[int]:
    """After the crashes: reclaim expired leases (M-51) and drain until no job is due."""
    from autopatch_j.memory.offline import RulesExtractor
    from autopatch_j.memory.pipeline import Pipeline

    pipeline = Pipeline.for_manager(manager, extractor=RulesExtractor(), heartbeat_seconds=None)
    pipeline.recover()
    finished: list[int] = []
    for _ in range(rounds):
        ran = offline_job_runner(manager)
        if not ran:
            break
        finished.extend(ran)
    return finished


def _user_text(trial: int, k: int) -> str:
    return f"From now on, always run the linter before every commit (crash rule {trial}-{k})."


def _answer_text(trial: int, k: int) -> str:
    return f"Understood: linter before commit, rule {trial}-{k}."


def _read_all(fd: int) -> str:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks).decode(errors="replace")
        chunks.append(chunk)


def _pragma_ok(conn: sqlite3.Connection, pragma: str) -> bool:
    rows = conn.execute(pragma).fetchall()
    if pragma.endswith("foreign_key_check"):
        return not rows
    return [tuple(row) for row in rows] == [("ok",)]


def kill_loop(
    root: Path,
    *,
    trials: int,
    seed: int,
    max_run_ms: float = 60.0,
    runner: JobRunner | None = None,
    jobs_every: int = 2,
    integrity_every: int = 10,
    final_drain: JobRunner | None = None,
) -> KillLoopReport:
    """SIGKILL a writer `trials` times at random moments and check the store after each restart."""
    rng = random.Random(seed)
    report = KillLoopReport(seed=seed, trials=trials)
    root.mkdir(parents=True, exist_ok=True)
    first = MemoryManager(root=root, owner="crash-setup")
    if not first.open().ok:
        raise RuntimeError(f"the scratch Memory did not open: {first.health.reason}")
    if runner is not None:
        runner(first)  # nothing is due yet: warms imports and the lexicon before the forks
    acked_turns: dict[int, int] = {}  # turn id -> trial
    acked_jobs: set[int] = set()
    started = time.perf_counter()
    for trial in range(trials):
        read_fd, write_fd = os.pipe()
        child = _FORK.Process(target=_kill_child, args=(root, trial, write_fd, runner, jobs_every), daemon=True)
        child.start()
        os.close(write_fd)
        time.sleep(rng.uniform(0, max_run_ms) / 1000)
        if child.is_alive():
            report.killed_mid_run += 1
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid or 0, signal.SIGKILL)
        child.join()
        for line in _read_all(read_fd).splitlines():
            what, _, value = line.partition(" ")
            if what == "turn":
                acked_turns[int(value)] = trial
            elif what == "job":
                acked_jobs.add(int(value))
        os.close(read_fd)
        _check_after_crash(
            root, report, acked_turns, acked_jobs, deep=(trial + 1) % integrity_every == 0, at=(trial + 0.5)
        )
    if final_drain is not None:
        checker = _reopen(root, report, at=trials + 1.0)
        if checker is not None:
            report.drained_jobs = len(final_drain(checker))
    _check_after_crash(root, report, acked_turns, acked_jobs, deep=True, final=final_drain is not None, at=trials + 1.5)
    report.acknowledged_turns = len(acked_turns)
    report.acknowledged_jobs = len(acked_jobs)
    report.elapsed_s = time.perf_counter() - started
    return report


def _reopen(root: Path, report: KillLoopReport, *, at: float) -> MemoryManager | None:
    """A fresh manager, `at` trials into the run (half a stride after a trial: its leases expired)."""
    clock = OffsetClock(at * TRIAL_STRIDE_S)
    manager = MemoryManager(root=root, clock=clock, owner="crash-checker")
    health = manager.open()  # bootstrap verify + the startup recoveries (M-51)
    if not health.ok:
        report.reopen_failures += 1
        report.errors.append(f"reopen degraded: {health.reason}")
        return None
    return manager


def _check_after_crash(
    root: Path,
    report: KillLoopReport,
    acked_turns: dict[int, int],
    acked_jobs: set[int],
    *,
    deep: bool,
    at: float,
    final: bool = False,
) -> None:
    manager = _reopen(root, report, at=at)
    if manager is None:
        return
    conn = manager.db.connect()
    try:
        if not _pragma_ok(conn, "PRAGMA quick_check"):
            report.quick_check_failures += 1
        if deep and not _pragma_ok(conn, "PRAGMA integrity_check"):
            report.integrity_check_failures += 1
        if not _pragma_ok(conn, "PRAGMA foreign_key_check"):
            report.foreign_key_failures += 1
        rows = {row["id"]: row for row in conn.execute("SELECT id, status, assistant_text FROM turns")}
        lost = 0
        for turn_id in acked_turns:
            row = rows.get(turn_id)
            if row is None or row["status"] != "completed" or not row["assistant_text"]:
                lost += 1
        jobs = {row["id"]: row["status"] for row in conn.execute("SELECT id, status FROM memory_jobs")}
        lost += sum(1 for job_id in acked_jobs if jobs.get(job_id) not in ("succeeded", "succeeded_no_output"))
        report.acknowledged_lost = max(report.acknowledged_lost, lost)
        report.open_turns_after_recovery = max(
            report.open_turns_after_recovery,
            conn.execute("SELECT count(*) FROM turns WHERE status = 'open'").fetchone()[0],
        )
        report.turns_without_job = max(
            report.turns_without_job,
            conn.execute(
                "SELECT count(*) FROM turns t WHERE t.status <> 'open' "
                "AND NOT EXISTS (SELECT 1 FROM memory_jobs j WHERE j.turn_id = t.id)"
            ).fetchone()[0],
        )
        report.duplicate_items = max(report.duplicate_items, duplicate_items(conn))
        report.turns_total = len(rows)
        report.jobs_total = len(jobs)
        if final:
            report.jobs_unfinished_after_drain = conn.execute(
                "SELECT count(*) FROM memory_jobs WHERE status NOT IN ('succeeded', 'succeeded_no_output')"
            ).fetchone()[0]
    finally:
        conn.close()


def duplicate_items(conn: sqlite3.Connection) -> int:
    """Duplicates a replayed commit would leave behind.

    Counts (1) candidates linked to more than one memory, (2) candidates repeated with the same
    kind, content and sources, and (3) active memories of the same kind with the same content.
    """
    linked = conn.execute(
        "SELECT count(*) FROM (SELECT ic.candidate_id FROM memory_item_candidates ic "
        "JOIN memory_items i ON i.id = ic.item_id GROUP BY ic.candidate_id HAVING count(DISTINCT i.memory_id) > 1)"
    ).fetchone()[0]
    repeated = conn.execute(
        "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM ("
        "SELECT c.kind, c.content, group_concat(s.turn_id || ':' || s.role || ':' || s.quote, '|') AS src "
        "FROM memory_candidates c JOIN candidate_sources s ON s.candidate_id = c.id "
        "WHERE c.status <> 'rejected' GROUP BY c.id) GROUP BY kind, content, src HAVING count(*) > 1)"
    ).fetchone()[0]
    active = conn.execute(
        "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM memory_items WHERE status = 'active' "
        "GROUP BY kind, content HAVING count(*) > 1)"
    ).fetchone()[0]
    return int(linked) + int(repeated) + int(active)


# -- many writers on one file --------------------------------------------------------------------


@dataclass
class WritersReport:
    mode: str  # "immediate" (MemoryManager) or "deferred-control"
    seed: int
    processes: int
    commits_per_process: int
    commits: int = 0
    busy_errors: int = 0
    other_errors: int = 0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    wall_s: float = 0.0
    turns_in_db: int = 0
    duplicate_seqs: int = 0
    active_threads: int = 0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["errors"] = self.errors[:10]
        return data


_DEFERRED_NEXT_SEQ = "SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE thread_id = ?"
_DEFERRED_INSERT = (
    "INSERT INTO turns (thread_id, seq, intent, status, user_text, assistant_text, created_at, updated_at) "
    "VALUES (?, ?, 'general_chat', 'completed', ?, 'ok', ?, ?)"
)


def _writer_child(
    root: Path, index: int, commits: int, seed: int, barrier: Any, out: Path, mode: str, busy_ms: int, think_ms: float
) -> None:
    rng = random.Random(seed * 1000 + index)
    latencies: list[float] = []
    busy = other = 0
    errors: list[str] = []
    manager = MemoryManager(root=root, owner=f"writer-{index}", busy_timeout_ms=busy_ms)
    if not manager.open().ok:
        os._exit(3)
    thread_id = manager.active_thread().id
    barrier.wait()
    for k in range(commits):
        text = f"writer {index} message {k}: from now on keep it short"
        started = time.perf_counter()
        try:
            if mode == "immediate":
                ticket = manager.begin_turn(text, Intent.GENERAL_CHAT)
                latencies.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                manager.complete_turn(ticket, "ok")
            else:
                _deferred_read_then_write(manager, thread_id, text, think_ms)
            latencies.append((time.perf_counter() - started) * 1000)
        except StorageBusyError as exc:
            busy += 1
            errors.append(str(exc))
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                busy += 1
            else:
                other += 1
            errors.append(str(exc))
        except Exception as exc:
            other += 1
            errors.append(f"{type(exc).__name__}: {exc}")
        if think_ms and mode == "immediate":
            time.sleep(rng.uniform(0, think_ms) / 1000)
    out.write_text(json.dumps({"latencies": latencies, "busy": busy, "other": other, "errors": errors[:5]}))


def _deferred_read_then_write(manager: MemoryManager, thread_id: int, text: str, think_ms: float) -> None:
    """The anti-pattern: a deferred transaction that reads, then upgrades to write."""
    conn = manager.db.connect()
    try:
        conn.execute("BEGIN")
        seq = conn.execute(_DEFERRED_NEXT_SEQ, (thread_id,)).fetchone()[0]
        if think_ms:
            time.sleep(think_ms / 1000)
        now = time.time()
        conn.execute(_DEFERRED_INSERT, (thread_id, seq, text, now, now))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        conn.close()


def concurrent_writers(
    root: Path,
    *,
    processes: int,
    commits_per_process: int,
    seed: int,
    mode: str = "immediate",
    busy_timeout_ms: int | None = None,
    think_ms: float = 1.0,
) -> WritersReport:
    """Run `processes` writers on one Memory file at once; count busy errors, measure commit latency."""
    if mode not in ("immediate", "deferred-control"):
        raise ValueError(mode)
    busy_ms = busy_timeout_ms if busy_timeout_ms is not None else (10_000 if mode == "immediate" else 20)
    root.mkdir(parents=True, exist_ok=True)
    setup = MemoryManager(root=root, owner="writers-setup")
    if not setup.open().ok:
        raise RuntimeError(f"the scratch Memory did not open: {setup.health.reason}")
    report = WritersReport(mode=mode, seed=seed, processes=processes, commits_per_process=commits_per_process)
    barrier = _FORK.Barrier(processes + 1)
    outs = [root / f"writer-{i}.json" for i in range(processes)]
    children = [
        _FORK.Process(
            target=_writer_child,
            args=(root, i, commits_per_process, seed, barrier, outs[i], mode, busy_ms, think_ms),
            daemon=True,
        )
        for i in range(processes)
    ]
    for child in children:
        child.start()
    barrier.wait()
    started = time.perf_counter()
    for child in children:
        child.join()
    report.wall_s = time.perf_counter() - started
    latencies: list[float] = []
    for i, out in enumerate(outs):
        if not out.exists():
            report.other_errors += 1
            report.errors.append(f"writer {i} exited with {children[i].exitcode} and no result")
            continue
        data = json.loads(out.read_text())
        latencies.extend(data["latencies"])
        report.busy_errors += data["busy"]
        report.other_errors += data["other"]
        report.errors.extend(data["errors"])
        out.unlink()
    report.commits = len(latencies)
    report.p50_ms = percentile(latencies, 50)
    report.p99_ms = percentile(latencies, 99)
    report.max_ms = max(latencies, default=0.0)
    with setup.db.read("count turns") as conn:
        report.turns_in_db = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        report.duplicate_seqs = conn.execute(
            "SELECT count(*) FROM (SELECT thread_id, seq FROM turns GROUP BY thread_id, seq HAVING count(*) > 1)"
        ).fetchone()[0]
        report.active_threads = conn.execute("SELECT count(*) FROM threads WHERE status = 'active'").fetchone()[0]
    return report


# -- WAL growth under overlapping readers ----------------------------------------------------------


@dataclass
class WalReport:
    mode: str  # readers back to back or with gaps, optionally a TRUNCATE checkpoint; or the pinned control
    seed: int
    writers: int
    readers: int
    commits: int
    reads: int = 0
    wal_max_bytes: int = 0
    wal_final_bytes: int = 0
    db_bytes: int = 0
    page_size: int = 0
    wal_autocheckpoint_pages: int = 0
    wall_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _wal_writer(root: Path, index: int, commits: int, barrier: Any, checkpoint_every: int) -> None:
    manager = MemoryManager(root=root, owner=f"wal-writer-{index}")
    if not manager.open().ok:
        os._exit(3)
    barrier.wait()
    payload = "x" * 2000  # about half a page of RAW text per turn
    for k in range(commits):
        ticket = manager.begin_turn(f"writer {index} turn {k} {payload}", Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, payload)
        if checkpoint_every and (k + 1) % checkpoint_every == 0:
            conn = manager.db.connect()
            try:
                # Waits (busy handler) for the readers of older snapshots, then resets the WAL.
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            finally:
                conn.close()


def _wal_reader(
    root: Path, index: int, seed: int, barrier: Any, stop: Any, out: Path, hold_s: float, gap_ms: float
) -> None:
    rng = random.Random(seed * 7919 + index)
    manager = MemoryManager(root=root, owner=f"wal-reader-{index}")
    if not manager.open().ok:
        os._exit(3)
    thread_id = manager.active_thread().id
    barrier.wait()
    reads = 0
    if hold_s:
        # The control: one snapshot held for the whole run, so no checkpoint can ever finish.
        with manager.db.read("hold a snapshot") as conn:
            conn.execute("SELECT count(*) FROM turns").fetchone()
            stop.wait(hold_s)
            reads += 1
    else:
        while not stop.is_set():
            with manager.db.read("read the history") as conn:
                conn.execute(
                    "SELECT id, user_text FROM turns WHERE thread_id = ? ORDER BY seq DESC LIMIT 8", (thread_id,)
                ).fetchall()
                time.sleep(rng.uniform(0, 0.004))  # overlap with the other readers
            reads += 1
            if gap_ms:
                time.sleep(rng.uniform(0, gap_ms) / 1000)
    out.write_text(str(reads))


def wal_growth(
    root: Path,
    *,
    writers: int,
    readers: int,
    commits_per_writer: int,
    seed: int,
    pinned_reader: bool = False,
    reader_gap_ms: float = 0.0,
    checkpoint_every: int = 0,
    sample_every_s: float = 0.005,
) -> WalReport:
    """Commit while readers overlap; report the WAL file's high-water mark."""
    root.mkdir(parents=True, exist_ok=True)
    setup = MemoryManager(root=root, owner="wal-setup")
    if not setup.open().ok:
        raise RuntimeError(f"the scratch Memory did not open: {setup.health.reason}")
    report = WalReport(
        mode=_wal_mode(pinned_reader, reader_gap_ms, checkpoint_every),
        seed=seed,
        writers=writers,
        readers=readers,
        commits=writers * commits_per_writer,
    )
    with setup.db.read("read the pragmas") as conn:
        report.page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        report.wal_autocheckpoint_pages = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    wal = setup.paths.db.with_name(setup.paths.db.name + "-wal")
    barrier = _FORK.Barrier(writers + readers + 1)
    stop = _FORK.Event()
    outs = [root / f"reader-{i}.txt" for i in range(readers)]
    writer_procs = [
        _FORK.Process(target=_wal_writer, args=(root, i, commits_per_writer, barrier, checkpoint_every), daemon=True)
        for i in range(writers)
    ]
    reader_procs = [
        _FORK.Process(
            target=_wal_reader,
            args=(root, i, seed, barrier, stop, outs[i], 3600.0 if pinned_reader and i == 0 else 0.0, reader_gap_ms),
            daemon=True,
        )
        for i in range(readers)
    ]
    for proc in (*writer_procs, *reader_procs):
        proc.start()
    barrier.wait()
    started = time.perf_counter()
    while any(proc.is_alive() for proc in writer_procs):
        with contextlib.suppress(FileNotFoundError):
            report.wal_max_bytes = max(report.wal_max_bytes, wal.stat().st_size)
        time.sleep(sample_every_s)
    stop.set()
    for proc in (*writer_procs, *reader_procs):
        proc.join()
    report.wall_s = time.perf_counter() - started
    with contextlib.suppress(FileNotFoundError):
        report.wal_final_bytes = wal.stat().st_size
        report.wal_max_bytes = max(report.wal_max_bytes, report.wal_final_bytes)
    report.db_bytes = setup.paths.db.stat().st_size
    for out in outs:
        if out.exists():
            report.reads += int(out.read_text() or 0)
            out.unlink()
    return report


def _wal_mode(pinned_reader: bool, reader_gap_ms: float, checkpoint_every: int) -> str:
    if pinned_reader:
        return "pinned-reader-control"
    mode = "readers-with-gaps" if reader_gap_ms else "back-to-back-readers"
    return mode + (f"+truncate-every-{checkpoint_every}" if checkpoint_every else "")
