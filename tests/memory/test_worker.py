"""The background worker (M-40, M-50): keeps draining, survives transient errors, stops cleanly."""

from __future__ import annotations

import sqlite3
import time

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.memory.db import Database
from autopatch_j.memory.errors import StorageBusyError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.records import JobStatus
from autopatch_j.memory.worker import Worker
from tests.memory.pipeline_support import admit, extraction_json, jobs, llm_pipeline, pipeline_for


def wait_for(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.01)
    raise AssertionError("condition not reached in time")


def test_worker_thread_processes_admitted_turns(manager: MemoryManager) -> None:
    worker = Worker(pipeline=pipeline_for(manager), poll_s=0.01)
    worker.start()
    try:
        admit(manager, [("以后先给结论。", "好的。"), ("谢谢", "不客气。")])
        worker.notify()
        wait_for(lambda: manager.list_items() != [])
    finally:
        worker.stop()
    assert not worker.running and worker.errors == 0
    assert {j.status for j in jobs(manager)} == {JobStatus.SUCCEEDED}


def test_on_idle_runs_once_per_drained_queue_and_never_kills_the_worker(manager: MemoryManager) -> None:
    idle: list[int] = []

    def on_idle() -> None:
        idle.append(len(manager.list_items()))
        raise RuntimeError("a failing callback")

    worker = Worker(pipeline=pipeline_for(manager), poll_s=0.01, on_idle=on_idle)
    worker.start()
    try:
        time.sleep(0.1)
        assert idle == []  # nothing was done: no idle call
        admit(manager, [("以后先给结论。", "好的。"), ("谢谢", "不客气。")])
        worker.notify()
        wait_for(lambda: len(idle) == 1)
        time.sleep(0.1)
        assert worker.running and idle == [1]  # after the whole drain, once; the raise was contained
    finally:
        worker.stop()


def test_work_arriving_during_a_batch_is_drained_right_after_it(manager: MemoryManager) -> None:
    admit(manager, [("a", "x"), ("b", "y")])

    def answer(request: object) -> str:
        admit(manager, [("arrived mid-batch", "z")])  # alone, and fresh: the trigger would wait 30 s
        return extraction_json()

    canned = CannedProvider().enqueue(Purpose.EXTRACTION, answer, extraction_json())
    worker = Worker(pipeline=llm_pipeline(manager, canned), recover_every_s=3600)
    assert worker.run_once() is not None
    assert worker.run_once() is not None
    assert worker.run_once() is None
    assert {j.status for j in jobs(manager)} == {JobStatus.SUCCEEDED_NO_OUTPUT}


def test_transient_storage_errors_never_kill_the_worker(manager: MemoryManager) -> None:
    admit(manager, [("以后先给结论。", "好的。"), ("谢谢", "不客气。")])
    impatient = Database(path=manager.db.path, busy_timeout_ms=20)
    pipeline = Pipeline(
        db=impatient, clock=manager.clock, owner="w", extractor=RulesExtractor(), heartbeat_seconds=None
    )
    seen: list[BaseException] = []
    worker = Worker(pipeline=pipeline, on_error=seen.append, recover_every_s=3600)
    blocker = sqlite3.connect(manager.db.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        assert worker.run_once() is None
        assert worker.run_once() is None
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert worker.errors == 2 and all(isinstance(e, StorageBusyError) for e in seen)
    assert worker.run_once() is not None
    assert worker.run_once() is not None  # the consolidation child
    assert len(manager.list_items()) == 1


def test_worker_thread_keeps_polling_after_errors(manager: MemoryManager) -> None:
    admit(manager, [("以后先给结论。", "好的。"), ("谢谢", "不客气。")])
    impatient = Database(path=manager.db.path, busy_timeout_ms=5)
    pipeline = Pipeline(
        db=impatient, clock=manager.clock, owner="w", extractor=RulesExtractor(), heartbeat_seconds=None
    )
    worker = Worker(pipeline=pipeline, poll_s=0.005)
    blocker = sqlite3.connect(manager.db.path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    worker.start()
    try:
        wait_for(lambda: worker.errors >= 3)
        assert worker.running
        blocker.execute("ROLLBACK")
        wait_for(lambda: len(manager.list_items()) == 1)
    finally:
        worker.stop()
        blocker.close()


def test_heartbeat_renews_the_lease_during_a_slow_extractor(manager: MemoryManager) -> None:
    admit(manager, [("a", "x"), ("b", "y")])
    claimed_at = manager.clock.now()
    leases: list[float] = []

    def slow(request: object) -> str:
        manager.clock.advance(100)  # type: ignore[attr-defined]
        renewed = claimed_at + 100 + 120.0
        wait_for(lambda: max(j.lease_expires_at or 0 for j in jobs(manager)) == renewed)  # a beat renewed it
        leases.append(max(j.lease_expires_at or 0 for j in jobs(manager)))
        return extraction_json()

    canned = CannedProvider().enqueue(Purpose.EXTRACTION, slow)
    pipeline = llm_pipeline(manager, canned)
    pipeline.heartbeat_seconds = 0.05
    result = pipeline.step()
    assert result is not None and result.outcome.value == "succeeded_no_output"
    assert leases == [claimed_at + 100 + 120.0]
