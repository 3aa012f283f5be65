"""Helpers for tests that run real `cloud worker` processes and a real agent command."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from autopatch_j.cloud.db import make_engine, read_tx, write_tx
from autopatch_j.cloud.tables import tasks

# The agent: `agent.py <instruction>`; the instruction is `<name>:<seconds>`. It appends `name` to
# runs.log, writes its pid and the pid of a grandchild `sleep` to pids/<name>, then sleeps.
AGENT = """\
import os, subprocess, sys, time
name, seconds = sys.argv[-1].rsplit(":", 1)
out = os.environ["AGENT_OUT"]
with open(os.path.join(out, "runs.log"), "a") as log:
    log.write(name + "\\n")
grandchild = subprocess.Popen(["sleep", "300"])
tmp = os.path.join(out, "pids", name + ".tmp")
with open(tmp, "w") as f:
    f.write(f"{os.getpid()} {grandchild.pid}")
os.replace(tmp, os.path.join(out, "pids", name))
time.sleep(float(seconds))
print("agent finished", name)
"""


def write_agent(tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "agent-out"
    (out / "pids").mkdir(parents=True)
    script = tmp_path / "agent.py"
    script.write_text(AGENT, encoding="utf-8")
    return script, out


def worker_env(db_url: str, tmp_path: Path, script: Path, out: Path, **settings: str) -> dict[str, str]:
    env = {
        **os.environ,
        "AUTOPATCH_CLOUD_DB": db_url,
        "AUTOPATCH_CLOUD_EXECUTOR": "command",
        "AUTOPATCH_CLOUD_COMMAND": f"{sys.executable} {script}",
        "AUTOPATCH_CLOUD_WORK_DIR": str(tmp_path / "work"),
        "AUTOPATCH_CLOUD_POLL_SECONDS": "0.1",
        "AGENT_OUT": str(out),
    }
    env.update({f"AUTOPATCH_CLOUD_{key.upper()}": value for key, value in settings.items()})
    return env


def start_worker(env: dict[str, str], *args: str, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "autopatch_j", "cloud", "worker", *args],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def wait_until(predicate: Callable[[], Any], *, timeout: float, what: str) -> Any:
    """Poll `predicate` every 0.1 s until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.1)


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def pids(out: Path, name: str) -> list[int] | None:
    path = out / "pids" / name
    return [int(p) for p in path.read_text().split()] if path.exists() else None


def runs(out: Path) -> list[str]:
    path = out / "runs.log"
    return path.read_text().split() if path.exists() else []


def task_row(db_url: str, task_id: int) -> dict[str, Any]:
    engine = make_engine(db_url)
    try:
        with read_tx(engine) as conn:
            return dict(conn.execute(sa.select(tasks).where(tasks.c.id == task_id)).mappings().one())
    finally:
        engine.dispose()


def steal_lease(db_url: str, task_id: int) -> None:
    """What another worker's reclaim does to the row: a new owner and attempt."""
    engine = make_engine(db_url)
    try:
        with write_tx(engine) as conn:
            conn.execute(
                sa.update(tasks).where(tasks.c.id == task_id).values(lease_owner="thief", attempt=tasks.c.attempt + 1)
            )
    finally:
        engine.dispose()


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)


class ThrowawayPostgres:
    """A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free loopback port), so the test
    can stop and start the server under running workers without touching the shared one."""

    def __init__(self) -> None:
        import shutil
        import tempfile

        bindir = os.environ.get("PG_BINDIR") or next(
            (str(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), ""
        )
        if not bindir or not (Path(bindir) / "initdb").exists():
            raise FileNotFoundError("initdb not found")
        self.bindir = Path(bindir)
        self.os_user = "postgres" if os.getuid() == 0 else None
        self.root = Path(tempfile.mkdtemp(prefix="autopatch-pg-"))
        self.root.chmod(0o755)
        if self.os_user:
            shutil.chown(self.root, self.os_user)
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_owner(
            f"'{self.bindir}/initdb' -D '{self.data}' -U autopatch --auth=trust -N --encoding=UTF8 --no-locale"
        )
        self.start()
        subprocess.run(
            [str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "autopatch", "cloud"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        self.url = f"postgresql+psycopg://autopatch@127.0.0.1:{self.port}/cloud"

    def _as_owner(self, command: str) -> None:
        argv = ["su", "-s", "/bin/sh", self.os_user, "-c", command] if self.os_user else ["sh", "-c", command]
        subprocess.run(argv, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = f"-h 127.0.0.1 -p {self.port} -k '{self.root}' -c fsync=off"
        self._as_owner(
            f"'{self.bindir}/pg_ctl' -D '{self.data}' -l '{self.root}/server.log' -w -t 60 start -o \"{options}\""
        )

    def stop(self) -> None:
        self._as_owner(f"'{self.bindir}/pg_ctl' -D '{self.data}' -m fast -w -t 60 stop")

    def remove(self) -> None:
        import shutil

        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
