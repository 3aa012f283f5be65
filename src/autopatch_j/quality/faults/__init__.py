"""Crash and fault harnesses for the Memory store, one module per harness.

Each harness is a function that takes a scratch directory, a seed and sizes, runs real processes
(forked, so they start in milliseconds) against one Memory database, and returns a report value
with the figures. Tests assert on the figures; `bench/fault_report.py` prints them. Nothing here
reads the environment or prints.

- `kill9.kill_loop`: SIGKILL a writer at random moments; nothing acknowledged is lost, the store
  stays intact and recovers.
- `writers.concurrent_writers`: many writers on one file; busy errors and commit latency, with a
  deferred-transaction negative control.
- `wal.wal_growth`: the WAL's high-water mark under overlapping readers, with a pinned-reader control.
"""

from autopatch_j.quality.faults.kill9 import (
    TRIAL_STRIDE_S,
    JobRunner,
    KillLoopReport,
    OffsetClock,
    drain_everything,
    duplicate_items,
    kill_loop,
    offline_job_runner,
)
from autopatch_j.quality.faults.processes import percentile
from autopatch_j.quality.faults.wal import WalReport, wal_growth
from autopatch_j.quality.faults.writers import WritersReport, concurrent_writers

__all__ = [
    "TRIAL_STRIDE_S",
    "JobRunner",
    "KillLoopReport",
    "OffsetClock",
    "WalReport",
    "WritersReport",
    "concurrent_writers",
    "drain_everything",
    "duplicate_items",
    "kill_loop",
    "offline_job_runner",
    "percentile",
    "wal_growth",
]
