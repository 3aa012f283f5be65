"""kill -9 a real importer process mid-run, again and again, while the session grows: after every
kill the admitted turns are exactly the session's first k turns (no duplicate, no gap), and a final
run completes the set."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from autopatch_j.memory.manager import MemoryManager
from tests.transcripts.builders import claude_lines

SESSION = "crashcrash-0000"
CHILD = """
import sys
from pathlib import Path
from autopatch_j.memory.imports import Source
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.transcripts.discovery import SessionFile
from autopatch_j.transcripts.importer import Importer

manager = MemoryManager(root=Path(sys.argv[1]))
manager.open()
path = Path(sys.argv[2])
session = SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=path.stem)
Importer(manager=manager, batch_turns=5).import_session(session)
"""


def _admitted(db: Path) -> tuple[list[str], int, int]:
    conn = sqlite3.connect(db)
    try:
        users = [r[0] for r in conn.execute("SELECT user_text FROM turns ORDER BY thread_id, seq")]
        keys = conn.execute("SELECT count(*), count(DISTINCT external_id) FROM imported_turns").fetchone()
        jobs = conn.execute("SELECT count(*) FROM memory_jobs WHERE kind = 'extraction'").fetchone()[0]
    finally:
        conn.close()
    assert keys[0] == keys[1] == len(users) == jobs, (keys, len(users), jobs)
    return users, keys[0], jobs


def _count(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM turns").fetchone()[0])
    finally:
        conn.close()


def _wait_for_progress(db: Path, child: subprocess.Popen[bytes], *, beyond: int) -> None:
    """Until the child has committed at least one batch (so the kill lands mid-import) or exited."""
    deadline = time.monotonic() + 30
    while child.poll() is None and _count(db) <= beyond and time.monotonic() < deadline:
        time.sleep(0.005)


def _expected(count: int) -> list[str]:
    return [f"Decision {i}: from now on use option {i}." for i in range(count)]


def test_kill9_mid_import_then_rerun_gives_no_duplicate_and_no_gap(tmp_path: Path) -> None:
    seed = int(os.environ.get("AUTOPATCH_FAULT_SEED", random.randrange(1 << 30)))
    print(f"[crash] seed={seed}")
    rng = random.Random(seed)
    project = tmp_path / "proj"
    project.mkdir()
    assert MemoryManager(root=project).open().ok
    db = project / ".autopatch-j" / "memory.db"
    path = tmp_path / f"{SESSION}.jsonl"
    total = 1500
    path.write_text("".join(claude_lines(0, total, session=SESSION, cwd=str(project))))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    killed = mid_run = 0
    users: list[str] = []
    for trial in range(12):
        # The session grows between crashes: halfway, and whenever a child got to import all of it
        # before the kill (an importer is fast, so a trial must always start with work left).
        if trial == 6 or len(users) == total:
            with path.open("a") as handle:
                handle.write("".join(claude_lines(total, 1000, session=SESSION, cwd=str(project))))
            total += 1000
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(project), str(path)], env=env)
        _wait_for_progress(db, child, beyond=len(users))
        time.sleep(rng.uniform(0, 0.05))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            killed += 1
        child.wait()
        before = len(users) if trial else 0
        users, _, _ = _admitted(db)
        assert users == _expected(len(users)), f"trial {trial}: not a prefix of the session"
        mid_run += child.returncode == -signal.SIGKILL and before < len(users) < total
        print(f"[crash] trial {trial}: {len(users)}/{total} turns, exit {child.returncode}")
    assert killed >= 3 and mid_run >= 2, "no child was killed mid-import; the harness proves nothing"
    final = subprocess.run([sys.executable, "-c", CHILD, str(project), str(path)], env=env, check=True)
    assert final.returncode == 0
    users, _, _ = _admitted(db)
    assert users == _expected(total)
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT byte_offset FROM import_sessions").fetchone()[0] == path.stat().st_size
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
