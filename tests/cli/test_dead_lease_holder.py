"""Nothing waits on a dead process: after `kill -9` of a `memory drain`, the next drain on the same machine
takes over the leases of the killed holder at once and finishes every job; a lease whose holder may be
alive (still running, or on another machine) is waited for, and the drain says so.

Real subprocesses against an LLM endpoint that accepts the connection and never answers.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from autopatch_j.memory.owners import new_owner_id, process_start, provably_gone
from tests.cli.test_signals import EXAMPLE, _cli, _env, _jobs, _wait_for_a_lease
from tests.cli.test_signals import silent_llm as silent_llm  # the fixture


def _run(project: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_a_drain_right_after_kill_9_of_another_drain_finishes_every_job(tmp_path: Path, silent_llm: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = _env(silent_llm)
    assert _run(project, "memory", "ingest", str(EXAMPLE), env=env).returncode == 0
    first = _cli(project, "memory", "drain", env=env)
    _wait_for_a_lease(project, first)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=30)
    assert first.returncode == -signal.SIGKILL
    leased = [owner for status, _, owner in _jobs(project) if status == "leased"]
    assert len(leased) == 4 and len(set(leased)) == 1  # the killed drain's leases, still live for 120 s

    started = time.monotonic()
    again = _run(project, "memory", "drain", "--json", env=env | {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"})
    assert again.returncode == 0, again.stderr
    payload = json.loads(again.stdout)
    assert payload["jobs_run"] == 15 and payload["left"] == []
    assert len(payload["recovered"]["taken_over"]) == 4 and payload["recovered"]["gone_owners"] == leased[:1]
    assert all(status.startswith("succeeded") for status, _, _ in _jobs(project))
    assert time.monotonic() - started < 60  # it never waited for the lease to expire

    text = _run(project, "memory", "drain", env=env | {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"})
    assert text.returncode == 0 and "Took over" not in text.stdout  # nothing left to take over


def test_a_lease_of_a_live_holder_is_waited_for_and_the_drain_says_so(tmp_path: Path, silent_llm: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = _env(silent_llm)
    assert _run(project, "memory", "ingest", str(EXAMPLE), env=env).returncode == 0
    first = _cli(project, "memory", "drain", env=env)
    try:
        _wait_for_a_lease(project, first)
        second = _run(project, "memory", "drain", env=env | {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"})
        assert second.returncode == 0, second.stderr
        assert "Took over" not in second.stdout
        assert "4 leased by another process" in second.stdout and "they wait for that lease" in second.stdout
        assert sum(1 for status, _, _ in _jobs(project) if status == "leased") == 4  # untouched
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)


def test_a_dead_foreground_request_is_interrupted_at_once(tmp_path: Path) -> None:
    """The open turn of a killed process (owner lease still live) becomes `interrupted` at the next start."""
    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.memory.records import Intent

    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from autopatch_j.memory.manager import MemoryManager\n"
        "from autopatch_j.memory.records import Intent\n"
        "m = MemoryManager(root=Path(sys.argv[1]))\n"
        "assert m.open().ok\n"
        "m.begin_turn('a question the process dies on', Intent.GENERAL_CHAT)\n"
        "print('open', flush=True)\n"
        "time.sleep(600)\n"
    )
    with subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "open"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    m = MemoryManager(root=tmp_path)
    assert m.open().ok
    conn = sqlite3.connect(m.paths.db)
    try:
        assert conn.execute("SELECT status FROM turns").fetchall() == [("interrupted",)]
        assert conn.execute("SELECT status FROM memory_jobs").fetchall() == [("pending",)]
    finally:
        conn.close()
    m.begin_turn("the next question", Intent.GENERAL_CHAT)
    m.close()


def test_an_owner_is_gone_only_when_provably_so() -> None:
    assert not provably_gone(new_owner_id())  # this process
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        start = process_start(child.pid)
        assert start is not None
        host = os.uname().nodename
        assert not provably_gone(f"{host}:{child.pid}:{start}:abc")  # running
        assert provably_gone(f"{host}:{child.pid}:{start + 1}:abc")  # the pid now belongs to another process
        assert not provably_gone(f"another-{host}:{child.pid}:{start + 1}:abc")  # not this machine: unknowable
        assert not provably_gone(f"{host}:{child.pid}:0:abc")  # no start time recorded
        assert not provably_gone(f"{host}:{child.pid}:abc")  # the older id form
        assert not provably_gone("test-owner")
    finally:
        child.kill()
        child.wait()
    assert provably_gone(f"{host}:{child.pid}:{start}:abc")
    assert os.getpid() != child.pid
