"""SIGINT / SIGTERM during `memory drain` and `ask` (issue 9.10): the process releases the job leases it
holds (back to pending, attempt count unchanged), says how many jobs wait, and exits 130 / 143 —
so the next `memory drain` runs them at once instead of finding them leased for 120 s.

Run as real subprocesses against an LLM endpoint that accepts the connection and never answers.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conversation.jsonl"


class SilentLLM(str):
    """A base URL whose server accepts connections (kernel backlog) and never replies."""

    server: socket.socket
    held: list[socket.socket]

    def wait_for_a_request(self, timeout: float = 30) -> None:
        """Return once a client has connected: its LLM request is in flight (and stays unanswered)."""
        self.server.settimeout(timeout)
        connection, _ = self.server.accept()
        self.held.append(connection)


@pytest.fixture
def silent_llm() -> Iterator[SilentLLM]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    url = SilentLLM(f"http://127.0.0.1:{server.getsockname()[1]}/v1")
    url.server, url.held = server, []
    try:
        yield url
    finally:
        for connection in url.held:
            connection.close()
        server.close()


def _env(base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_")}
    env |= {
        "AUTOPATCH_LLM_API_KEY": "test-key",
        "AUTOPATCH_LLM_BASE_URL": base_url,
        "AUTOPATCH_LLM_MODEL": "silent",
        "AUTOPATCH_MEMORY_EXTRACTOR": "llm",
    }
    return env


def _cli(project: Path, *args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str], timeout: float = 30) -> tuple[str, str]:
    """The process's output once it ends; one that outlives `timeout` is killed, not left running."""
    try:
        return process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _jobs(project: Path) -> list[tuple[str, int, str | None]]:
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    try:
        return conn.execute("SELECT status, attempts, owner FROM memory_jobs ORDER BY id").fetchall()
    finally:
        conn.close()


def _wait_for_a_lease(project: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the CLI ended early: {process.communicate()}")
        if any(status == "leased" for status, _, _ in _jobs(project)):
            return
        time.sleep(0.05)
    pytest.fail("the drain never leased a job")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_drain_releases_the_leases_and_says_what_waits(
    tmp_path: Path, silent_llm: SilentLLM, signum: int, code: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = _env(silent_llm)
    ingest = subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), "memory", "ingest", str(EXAMPLE)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert ingest.returncode == 0, ingest.stderr
    drain = _cli(project, "memory", "drain", env=env)
    _wait_for_a_lease(project, drain)
    drain.send_signal(signum)
    out, err = _finish(drain)
    assert drain.returncode == code, (out, err)
    assert "Traceback" not in err
    assert "released 4 job lease(s); 12 job(s) waiting" in err
    assert all(status == "pending" and attempts == 0 and owner is None for status, attempts, owner in _jobs(project))

    rules = env | {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"}
    again = subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), "memory", "drain", "--json"],
        env=rules,
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["jobs_run"] == 15  # nothing waited for an expired lease
    assert all(status.startswith("succeeded") for status, _, _ in _jobs(project))


def _wait_for_an_open_turn(project: Path, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    db = project / ".autopatch-j" / "memory.db"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the CLI ended early: {process.communicate()}")
        if db.exists():
            conn = sqlite3.connect(db)
            try:
                if conn.execute("SELECT count(*) FROM turns").fetchone()[0]:
                    return
            except sqlite3.Error:
                pass
            finally:
                conn.close()
        time.sleep(0.05)
    pytest.fail("ask never admitted its turn")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_during_ask_exits_with_the_signal_code_and_no_traceback(
    tmp_path: Path, silent_llm: SilentLLM, signum: int, code: int
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    ask = _cli(project, "ask", "--intent", "general_chat", "hello", env=_env(silent_llm))
    _wait_for_an_open_turn(project, ask)
    silent_llm.wait_for_a_request()  # the answer is being awaited
    ask.send_signal(signum)
    out, err = _finish(ask)
    assert ask.returncode == code, (out, err)
    assert "Traceback" not in err
    assert "job(s) waiting" in err


def _signal_another_thread(pid: int, signum: int) -> None:
    """Deliver `signum` to one thread of `pid` other than its main thread (glibc's `tgkill`, any
    architecture): the kernel may hand a process-directed signal to any thread that does not block it."""
    import ctypes

    tids = sorted(int(tid) for tid in os.listdir(f"/proc/{pid}/task") if int(tid) != pid)
    assert tids, "the CLI runs no other thread while it awaits the answer"
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.tgkill(pid, tids[-1], signum) == 0, os.strerror(ctypes.get_errno())


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_landing_on_another_thread_still_stops_ask(
    tmp_path: Path, silent_llm: SilentLLM, signum: int, code: int
) -> None:
    """The main thread waits for the answer's events; a signal the kernel gives to the request's own
    thread must still reach it within a poll, not after the whole request deadline."""
    project = tmp_path / "project"
    project.mkdir()
    ask = _cli(project, "ask", "--intent", "general_chat", "hello", env=_env(silent_llm))
    _wait_for_an_open_turn(project, ask)
    silent_llm.wait_for_a_request()
    _signal_another_thread(ask.pid, signum)
    out, err = _finish(ask, timeout=20)
    assert ask.returncode == code, (out, err)
    assert "Traceback" not in err


def test_sigterm_stops_the_repl_at_once_without_the_exit_drain(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_")} | {
        "AUTOPATCH_MEMORY_EXTRACTOR": "rules"
    }
    repl = subprocess.Popen(
        [sys.executable, "-m", "autopatch_j", "-C", str(project)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert repl.stdout is not None and repl.stderr is not None
    shown = bytearray()  # bytes: a chunk may end inside a multi-byte character such as "›"
    at_prompt = threading.Event()

    def read_stdout() -> None:
        for chunk in iter(lambda: os.read(repl.stdout.fileno(), 4096), b""):  # type: ignore[union-attr]
            shown.extend(chunk)
            if "autopatch-j ›".encode() in shown:  # prompt_toolkit has drawn the prompt
                at_prompt.set()

    reader = threading.Thread(target=read_stdout, daemon=True)
    reader.start()
    assert at_prompt.wait(30), shown.decode("utf-8", errors="replace")
    started = time.monotonic()
    repl.send_signal(signal.SIGTERM)
    repl.wait(timeout=30)
    reader.join(10)
    out, err = shown.decode("utf-8", errors="replace"), repl.stderr.read()
    for pipe in (repl.stdin, repl.stdout, repl.stderr):
        if pipe is not None:
            pipe.close()
    assert repl.returncode == 143, (out, err)
    assert "Terminated; pending Memory jobs wait for the next session." in out
    assert "Traceback" not in err
    assert time.monotonic() - started < 20  # no 60 s exit drain, no worker join


SIGTERM_IN_A_CALLBACK = """
import asyncio, os, signal
from autopatch_j.app.signals import exit_signals

async def main():
    loop = asyncio.get_running_loop()
    loop.call_soon(os.kill, os.getpid(), signal.SIGTERM)  # the handler runs inside a loop callback
    await asyncio.sleep(2)

with exit_signals():
    asyncio.run(main())
print("still running")
"""


def test_a_sigterm_landing_inside_an_event_loop_callback_still_ends_the_process() -> None:
    """The REPL runs prompt_toolkit's asyncio loop: a SIGTERM whose handler runs inside one of the
    loop's callbacks must unwind the process like anywhere else, not reach the loop's exception
    handler (prompt_toolkit's waits for ENTER on a terminal that is going away)."""
    done = subprocess.run(
        [sys.executable, "-c", SIGTERM_IN_A_CALLBACK], capture_output=True, text=True, timeout=60, check=False
    )
    assert "still running" not in done.stdout
    assert done.returncode == 143, (done.returncode, done.stderr)
    assert "Exception in callback" not in done.stderr


def test_a_prompt_toolkit_task_sigterm_interrupts_logs_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """SIGTERM raises `Terminated` wherever the REPL's thread is, also inside prompt_toolkit's
    history-loading task, which logs what ends it ("Loading history failed" and a traceback) on the
    buffer module's own logger: the filter the REPL installs drops that record and keeps every other."""
    import logging

    from prompt_toolkit import buffer

    from autopatch_j.app.signals import Terminated, drop_terminated_records

    drop_terminated_records("prompt_toolkit")
    drop_terminated_records("prompt_toolkit")  # once per logger, however many REPLs start
    with caplog.at_level(logging.ERROR):
        for error in (Terminated(), ValueError("disk full")):
            try:
                raise error
            except BaseException:
                buffer.logger.exception("Loading history failed")
    assert [r.exc_info[0] for r in caplog.records if r.exc_info] == [ValueError]
    assert len(buffer.logger.filters) == 1
