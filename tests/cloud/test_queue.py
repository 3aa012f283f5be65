"""Claims with leases: order, exclusivity under concurrent workers, expiry and guarded finishes."""

from __future__ import annotations

import threading

from sqlalchemy.engine import Engine

from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.queue import FinishOutcome, claim_next, extend_lease, finish
from autopatch_j.cloud.records import TaskStatus
from autopatch_j.runtime import FakeClock
from tests.cloud.world import World


def test_claims_oldest_first_and_empty_queue_gives_none(world: World) -> None:
    alice = world.user()
    project = world.project(alice)
    first, second = world.task(project, alice, "one"), world.task(project, alice, "two")
    a = claim_next(world.engine, worker_id="w1", now=world.clock(), lease_seconds=60)
    b = claim_next(world.engine, worker_id="w2", now=world.clock(), lease_seconds=60)
    assert a is not None and b is not None
    assert (a.task.id, b.task.id) == (first.id, second.id)
    assert a.task.status == TaskStatus.RUNNING and a.task.lease_owner == "w1" and a.attempt == 1
    assert not a.resumed and a.round_prompt == "one"
    assert claim_next(world.engine, worker_id="w3", now=world.clock(), lease_seconds=60) is None


def test_expired_lease_is_reclaimed_as_a_resumed_run_and_the_old_lease_is_lost(world: World) -> None:
    alice = world.user()
    task = world.task(world.project(alice), alice)
    old = claim_next(world.engine, worker_id="w1", now=world.clock(), lease_seconds=60)
    assert old is not None
    world.clock.advance(30)
    assert claim_next(world.engine, worker_id="w2", now=world.clock(), lease_seconds=60) is None
    world.clock.advance(31)
    new = claim_next(world.engine, worker_id="w2", now=world.clock(), lease_seconds=60)
    assert new is not None and new.task.id == task.id and new.resumed and new.attempt == 2
    with write_tx(world.engine) as conn:
        lost = finish(conn, claim=old, status=TaskStatus.COMPLETED, result_text="late", cost_usd=1, now=world.clock())
        won = finish(conn, claim=new, status=TaskStatus.COMPLETED, result_text="ok", cost_usd=0.5, now=world.clock())
    assert (lost, won) == (FinishOutcome.LEASE_LOST, FinishOutcome.RECORDED)
    done = world.load(task.id)
    assert done.result_text == "ok" and done.cost_usd == 0.5 and done.lease_owner is None


def test_extend_lease_keeps_the_task_and_fails_once_lost(world: World) -> None:
    alice = world.user()
    world.task(world.project(alice), alice)
    claim = claim_next(world.engine, worker_id="w1", now=world.clock(), lease_seconds=60)
    assert claim is not None
    world.clock.advance(50)
    assert extend_lease(world.engine, claim=claim, now=world.clock(), lease_seconds=60) == FinishOutcome.RECORDED
    world.clock.advance(50)
    assert claim_next(world.engine, worker_id="w2", now=world.clock(), lease_seconds=60) is None
    world.clock.advance(11)
    assert claim_next(world.engine, worker_id="w2", now=world.clock(), lease_seconds=60) is not None
    assert extend_lease(world.engine, claim=claim, now=world.clock(), lease_seconds=60) == FinishOutcome.LEASE_LOST


def test_four_concurrent_workers_never_claim_the_same_task(engine: Engine, clock: FakeClock) -> None:
    world = World(engine=engine, clock=clock)
    alice = world.user()
    project = world.project(alice)
    ids = {world.task(project, alice, f"t{i}").id for i in range(40)}
    claimed: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(4)

    def run(n: int) -> None:
        barrier.wait()
        while (claim := claim_next(engine, worker_id=f"w{n}", now=clock(), lease_seconds=60)) is not None:
            with lock:
                claimed.append(claim.task.id)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(claimed) == sorted(ids)
