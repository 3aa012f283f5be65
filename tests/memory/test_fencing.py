"""Fencing with real processes (M-31, M-47): a worker paused with SIGSTOP across `clear --confirm`, then
resumed, must have its write rejected. Short version by default; 120 repetitions in the full
fault mode (AUTOPATCH_FAULT_FULL=1, `-m slow`). The seed is printed (shown on failure) and can be pinned with
AUTOPATCH_FENCING_SEED.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from tests.memory.pipeline_support import full_only, rows

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="needs POSIX job-control signals")


def _seed() -> int:
    seed = int(os.environ.get("AUTOPATCH_FENCING_SEED") or random.SystemRandom().randrange(1, 2**31))
    print(f"fencing seed: {seed} (rerun with AUTOPATCH_FENCING_SEED={seed})")
    return seed


def _stopped(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return True  # not Linux: trust the signal
    return stat.read_text().rsplit(")", 1)[1].split()[0] == "T"


def _admit_two(root: Path) -> None:
    manager = MemoryManager(root=root, owner="admission")
    assert manager.open().ok
    for text in ("以后先给结论。", "项目统一使用 Python 3.10+。"):
        ticket = manager.begin_turn(text, Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, "好的。")


def _clear(root: Path, *, via_cli: bool) -> None:
    if via_cli:
        done = subprocess.run(
            [sys.executable, "-m", "autopatch_j", "-C", str(root), "memory", "clear", "--confirm", "--json"],
            capture_output=True, text=True, timeout=60, cwd=REPO,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    else:
        manager = MemoryManager(root=root, owner="clearer")
        manager.open()
        manager.clear(confirm=True)


def run_fencing(tmp_path: Path, repetitions: int, *, cli_every: int) -> None:
    seed = _seed()
    rng = random.Random(seed)
    root = tmp_path / "project"
    root.mkdir()
    _admit_two(root)
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.memory.fencing_worker", str(root), str(seed)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, bufsize=1,
    )  # fmt: skip
    assert worker.stdin is not None and worker.stdout is not None
    try:
        for rep in range(repetitions):
            where = f"seed {seed}, repetition {rep}"
            generation = rows(MemoryManager(root=root), "SELECT generation FROM memory_meta")[0][0]
            worker.stdin.write("go\n")
            assert worker.stdout.readline().strip() == "ready", where
            time.sleep(rng.uniform(0.0, 0.02))  # stop at a varying point of the "model call"
            os.kill(worker.pid, signal.SIGSTOP)
            deadline = time.monotonic() + 5
            while not _stopped(worker.pid) and time.monotonic() < deadline:
                time.sleep(0.001)
            _clear(root, via_cli=rep % cli_every == 0)
            _admit_two(root)  # the new generation already has work when the stale worker wakes up
            os.kill(worker.pid, signal.SIGCONT)
            outcome = json.loads(worker.stdout.readline())["outcome"]
            assert outcome == "lease_lost", where
            counts = rows(
                MemoryManager(root=root),
                "SELECT (SELECT count(*) FROM memory_candidates), (SELECT count(*) FROM memory_items), "
                "(SELECT group_concat(status) FROM memory_jobs), (SELECT compaction FROM threads), "
                "(SELECT generation FROM memory_meta)",
            )[0]
            assert tuple(counts) == (0, 0, "pending,pending", "", generation + 1), where
            # The worker's next `go` processes the new generation's jobs normally.
        worker.stdin.write("quit\n")
        worker.stdin.flush()
        assert worker.wait(timeout=30) == 0
    finally:
        if worker.poll() is None:
            os.kill(worker.pid, signal.SIGCONT)
            worker.kill()
            worker.wait()
        worker.stdin.close()
        worker.stdout.close()


def test_paused_worker_cannot_write_after_clear(tmp_path: Path) -> None:
    run_fencing(tmp_path, repetitions=6, cli_every=3)


@pytest.mark.slow
@full_only
def test_paused_worker_cannot_write_after_clear_many_times(tmp_path: Path) -> None:
    run_fencing(tmp_path, repetitions=120, cli_every=10)
