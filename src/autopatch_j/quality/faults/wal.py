"""WAL growth under overlapping readers: writers commit while readers keep overlapping short read
transactions, and the WAL file's high-water mark is sampled. The control holds one read transaction
open for the whole run, so no checkpoint can finish.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.quality.faults.processes import FORK


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
    barrier = FORK.Barrier(writers + readers + 1)
    stop = FORK.Event()
    outs = [root / f"reader-{i}.txt" for i in range(readers)]
    writer_procs = [
        FORK.Process(target=_wal_writer, args=(root, i, commits_per_writer, barrier, checkpoint_every), daemon=True)
        for i in range(writers)
    ]
    reader_procs = [
        FORK.Process(
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
