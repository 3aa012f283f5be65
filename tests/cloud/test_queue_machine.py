"""A Hypothesis state machine over claims, leases, expiry and guarded finishes (SQLite, fixed seed).

The model tracks which lease may finish each task; the database must agree after every step.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from functools import cache
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.queue import Claim, FinishOutcome, claim_next, finish
from autopatch_j.cloud.records import TaskStatus
from autopatch_j.cloud.schema import migrate
from autopatch_j.runtime import FakeClock
from tests.cloud.world import CLOUD_START, World

LEASE = 10.0
WORKERS = ("w1", "w2", "w3")


@cache
def template() -> Path:
    folder = tempfile.mkdtemp(prefix="queue-machine-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / "template.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


class QueueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="queue-machine-run-"))
        shutil.copyfile(template(), self.dir / "db.sqlite3")
        self.engine = make_engine(f"sqlite:///{self.dir / 'db.sqlite3'}", pool_size=2)
        self.world = World(engine=self.engine, clock=FakeClock(CLOUD_START))
        self.owner = self.world.user("owner")
        self.project = self.world.project(self.owner)
        self.claims: dict[str, Claim] = {}  # the newest claim each worker holds
        self.expected: dict[int, str] = {}  # task id → queued | running | completed
        self.holder: dict[int, tuple[str, int]] = {}  # running task → (worker, attempt) that may finish it
        self.expires: dict[int, float] = {}

    def teardown(self) -> None:
        self.engine.dispose()
        shutil.rmtree(self.dir, ignore_errors=True)

    def now_s(self) -> float:
        return self.world.clock().timestamp()

    @rule()
    def add_task(self) -> None:
        task = self.world.task(self.project, self.owner, "t")
        self.expected[task.id] = "queued"

    @rule(seconds=st.sampled_from([1.0, 5.0, 11.0]))
    def advance(self, seconds: float) -> None:
        self.world.clock.advance(seconds)

    @rule(worker=st.sampled_from(WORKERS))
    def claim(self, worker: str) -> None:
        now = self.now_s()
        claimable = sorted(
            t for t, s in self.expected.items() if s == "queued" or (s == "running" and self.expires[t] < now)
        )
        got = claim_next(self.engine, worker_id=worker, now=self.world.clock(), lease_seconds=LEASE)
        if not claimable:
            assert got is None
            return
        assert got is not None and got.task.id == claimable[0]
        assert got.resumed == (self.expected[got.task.id] == "running")
        self.expected[got.task.id] = "running"
        self.holder[got.task.id] = (worker, got.attempt)
        self.expires[got.task.id] = now + LEASE
        self.claims[worker] = got

    @precondition(lambda self: bool(self.claims))
    @rule(data=st.data())
    def finish_claim(self, data: st.DataObject) -> None:
        worker = data.draw(st.sampled_from(sorted(self.claims)))
        claim = self.claims.pop(worker)
        with write_tx(self.engine) as conn:
            outcome = finish(
                conn,
                claim=claim,
                status=TaskStatus.COMPLETED,
                result_text=worker,
                cost_usd=0.0,
                now=self.world.clock(),
            )
        task_id = claim.task.id
        may = self.expected[task_id] == "running" and self.holder[task_id] == (worker, claim.attempt)
        assert outcome == (FinishOutcome.RECORDED if may else FinishOutcome.LEASE_LOST)
        if may:
            self.expected[task_id] = "completed"

    @invariant()
    def database_agrees(self) -> None:
        for task_id, status in self.expected.items():
            task = self.world.load(task_id)
            assert task.status.value == status
            if status == "running":
                assert (task.lease_owner, task.attempt) == self.holder[task_id]
            if status == "completed":
                assert task.lease_owner is None and task.result_text == self.holder[task_id][0]


QueueMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=25, deadline=None, derandomize=True, database=None
)
test_queue_state_machine = QueueMachine.TestCase
