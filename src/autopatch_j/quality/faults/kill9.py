"""The kill -9 loop: SIGKILL a Memory writer at random moments and check the store after each restart.

A child admits turns (and, when a job runner is given, runs job claims and commits) and acknowledges
each commit over a pipe only after it returned; the parent SIGKILLs it at a random moment, reopens
with a fresh `MemoryManager` and checks: acknowledged commits lost, `quick_check` /
`integrity_check` / `foreign_key_check` failures, open turns left after recovery, turns without
their extraction job, duplicates. One database serves every trial, so the store also grows through
hundreds of crashes.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.quality.faults.processes import FORK

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
        # One real job before the forks warms what a running worker holds: imports, the lexicon's
        # compiled categories and its speech model (the first use compiles for ~0.5 s on a slow machine,
        # longer than a trial may run).
        ticket = first.begin_turn(_user_text(-1, 0), Intent.GENERAL_CHAT)
        first.complete_turn(ticket, _answer_text(-1, 0))
        runner(first)
    acked_turns: dict[int, int] = {}  # turn id -> trial
    acked_jobs: set[int] = set()
    started = time.perf_counter()
    for trial in range(trials):
        read_fd, write_fd = os.pipe()
        child = FORK.Process(target=_kill_child, args=(root, trial, write_fd, runner, jobs_every), daemon=True)
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
