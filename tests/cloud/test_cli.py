"""`autopatch-j cloud …`: help for every command, a light `--help`, errors, and the whole flow.

The end-to-end flow runs the real commands in subprocesses: init, user add, serve (a real uvicorn on
a free loopback port), HTTP calls, `worker --once` with the scripted executor, and checks that the
memory extracted from the first task is injected into the next one.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import typer

from autopatch_j.cli.app import main
from autopatch_j.cli.cloud import cloud_app
from autopatch_j.cloud.injection import PREFIX

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cloud.md"
HEAVY = ("fastapi", "sqlalchemy", "uvicorn", "alembic", "starlette", "psycopg")


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def commands() -> list[tuple[str, object]]:
    """Every leaf command under `cloud`, with its full name."""
    found: list[tuple[str, object]] = []

    def walk(group: object, prefix: str) -> None:
        for name, command in group.commands.items():  # type: ignore[attr-defined]
            if hasattr(command, "commands"):
                walk(command, f"{prefix} {name}")
            else:
                found.append((f"{prefix} {name}", command))

    walk(typer.main.get_command(cloud_app), "cloud")
    return found


def test_every_command_has_help_and_is_documented() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    names = [name for name, _cmd in commands()]
    assert {"cloud init", "cloud user add", "cloud serve", "cloud worker", "cloud quota set"} <= set(names)
    for name, command in commands():
        assert (command.help or "").strip(), f"{name} has no help"  # type: ignore[attr-defined]
        assert f"autopatch-j {name}" in docs, f"{name} is not documented in docs/cloud.md"


def test_help_does_not_import_the_server_stack() -> None:
    code = (
        "import sys\n"
        "from autopatch_j.cli.app import main\n"
        "for argv in (['--help'], ['cloud', '--help'], ['cloud', 'worker', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r}])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_bad_input_is_one_sentence_and_exit_1_or_5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A refused operation exits 1; a bad setting (an option, a variable) exits 5, like every
    configuration error."""
    db = f"sqlite:///{tmp_path}/c.sqlite3"
    with pytest.raises(SystemExit) as exit_info:
        main(["cloud", "user", "add", "ann", "--db", db, "--json"])
    assert exit_info.value.code in (0, None)
    created = json.loads(capsys.readouterr().out)
    assert set(created) == {"id", "token"} and created["token"].startswith("apj_")
    for argv, code, message in (
        (["cloud", "user", "add", "ann", "--db", db], 1, "error: a user named 'ann' already exists."),
        (["cloud", "init", "--db", "mysql://x/y"], 5, "error: the database backend 'mysql' is not supported"),
        (["cloud", "init", "--db", "not a url"], 5, "error: --db is 'not a url', but the database must be a URL"),
        (["cloud", "quota", "set", "1", "lots", "--db", db], 1, "error: the limit must be a number of USD"),
        (
            ["cloud", "worker", "--db", db, "--executor", "magic", "--once"],
            5,
            "error: --executor is 'magic', but input should be 'scripted'",
        ),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == code, argv
        assert capsys.readouterr().err.startswith(message), argv


def test_db_defaults_to_the_environment_variable(tmp_path: Path) -> None:
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": f"sqlite:///{tmp_path}/env.sqlite3"}
    done = run_cli("cloud", "init", env=env)
    assert done.returncode == 0, done.stderr
    assert "env.sqlite3" in done.stdout and (tmp_path / "env.sqlite3").exists()


def test_db_falls_back_to_the_user_data_dir(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AUTOPATCH_CLOUD_DB"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["HOME"] = str(tmp_path)
    done = run_cli("cloud", "init", env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "autopatch-j" / "cloud.sqlite3").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(env: dict[str, str], *options: str, startup_s: float = 30) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """A real `cloud serve` subprocess on a free loopback port, up (`/health`) before it is yielded."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "autopatch_j", "cloud", "serve", "--host", "127.0.0.1", "--port", str(port), *options],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_s
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {proc.stderr.read() if proc.stderr else ''}")
            time.sleep(0.1)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait(5)
        if proc.stderr:
            proc.stderr.close()


@pytest.fixture
def server(db_url: str) -> Iterator[tuple[str, str]]:
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": db_url}
    assert run_cli("cloud", "init", env=env).returncode == 0
    with serving(env) as (base, _proc):
        yield base, db_url


def test_whole_flow_init_user_serve_task_worker_memory(server: tuple[str, str]) -> None:
    base, db_url = server
    env = {**os.environ, "AUTOPATCH_CLOUD_DB": db_url}
    added = run_cli("cloud", "user", "add", "alice", "--admin", "--json", env=env)
    assert added.returncode == 0, added.stderr
    token = json.loads(added.stdout)["token"]
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as http:
        assert http.get("/users/me").json()["name"] == "alice"
        settings = {"generate_memories": 1, "use_memories": 1, "idle_seconds": 0, "min_duration_seconds": 0}
        assert http.put("/users/me/auto-memory-settings", json=settings).status_code == 200
        project = http.post("/projects", json={"name": "demo"}).json()
        first = http.post(f"/projects/{project['id']}/tasks", json={"prompt": "Add a health check"}).json()
        worked = run_cli("cloud", "worker", "--once", "--executor", "scripted", env=env)
        assert worked.returncode == 0, worked.stderr
        assert "1 task(s) run" in worked.stdout
        done = http.get(f"/tasks/{first['id']}").json()
        assert done["status"] == "completed" and done["result_text"].startswith("Add a health check")
        [memory] = http.get(f"/projects/{project['id']}/memories").json()
        assert memory["source_thread_id"] == str(first["id"]) and memory["content"].startswith("Add a health check")
        second = http.post(f"/projects/{project['id']}/tasks", json={"prompt": "Add metrics"}).json()
        assert run_cli("cloud", "worker", "--once", env=env).returncode == 0
        after = http.get(f"/tasks/{second['id']}").json()
        assert after["prompt"] == "Add metrics"
        # the executor received the project memory; the stored result never holds the injected block
        assert after["result_text"].startswith("Add metrics\n\n--- scripted executor report ---")
        assert after["result_text"].endswith("It received 1 injected project memory line(s).")
        assert PREFIX not in after["result_text"] and "Add a health check" not in after["result_text"]
        log = http.get("/users/me/auto-memory-log").json()
        assert {e["task_id"]: e["outcome"] for e in log}[first["id"]] == "extracted"


def test_quota_set_writes_a_limit_or_unlimited(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from autopatch_j.cloud.db import make_engine, read_tx
    from autopatch_j.cloud.quotas import DbQuotas
    from autopatch_j.runtime import utc_now

    db = f"sqlite:///{tmp_path}/q.sqlite3"
    for argv in (["cloud", "user", "add", "ann", "--db", db], ["cloud", "quota", "set", "1", "25", "--db", db]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code in (0, None)
    assert capsys.readouterr().out.endswith("user 1: monthly limit $25.00\n")
    engine = make_engine(db)
    with read_tx(engine) as conn:
        assert DbQuotas().status(conn, user_id=1, now=utc_now()).limit_usd == 25.0
    with pytest.raises(SystemExit):
        main(["cloud", "quota", "set", "1", "unlimited", "--db", db])
    assert capsys.readouterr().out == "user 1: monthly limit unlimited\n"
    with read_tx(engine) as conn:
        status = DbQuotas().status(conn, user_id=1, now=utc_now())
    assert status.limit_usd is None and status.has_row
    engine.dispose()


def test_ci_postgres_script_is_valid_bash() -> None:
    script = Path(__file__).resolve().parents[2] / ".ci" / "postgres.sh"
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)
    text = script.read_text(encoding="utf-8")
    assert "AUTOPATCH_TEST_PG_URL" in text and "127.0.0.1" in text and "pg_stop" in text


def test_worker_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    import signal

    env = {**os.environ, "AUTOPATCH_CLOUD_DB": f"sqlite:///{tmp_path}/w.sqlite3", "AUTOPATCH_CLOUD_POLL_SECONDS": "0.1"}
    assert run_cli("cloud", "init", env=env).returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "autopatch_j", "cloud", "worker"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert "started (executor scripted)" in proc.stdout.readline()
    time.sleep(0.3)  # inside the loop (polling the empty queue)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "worker done: 0 task(s) run" in out
