"""CLI processes for the price of one interpreter start (docs/testing.md, "Round 38").

`CliServer().run(args, env=…, cwd=…, timeout=…)` takes what `subprocess.run` would for
`python -m autopatch_j ARGS`. The server — this file run as a script, started on first use — has
imported the CLI and forks one child per call. The child takes the call's environment and directory,
calls the CLI's entry point with the call's arguments (`autopatch_j.cli.app.main`, what
`python -m autopatch_j` calls) with stdin empty and stdout and stderr on files of its own, and exits
with the CLI's exit code. Every call is still its own process: nothing one child computes, caches or
opens reaches the next. A call that outlives its timeout is killed and raises
`subprocess.TimeoutExpired`, as `subprocess.run` does.

What the children share is the import of modules: after each child, the server imports the modules
that child imported, so the next child starts with them loaded, as a fresh process has them after
its own imports. The package reads no environment, directory or arguments at import (conventions:
"I/O at the edges"), so a module imported in the server is the module a fresh process would import.
Interpreter start and imports are most of a short command's CPU time (`memory search`: about
0.45 CPU s in its own process, 0.07 s in a child). A child may therefore find modules loaded that
its own command never imports: a test about what a command imports (the cold-start tests) starts
a process of its own, as do tests that signal, kill or keep a CLI process running.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()


@dataclass(frozen=True)
class Invocation:
    """One CLI run's exit code and output."""

    code: int
    out: str
    err: str


def _child(args: list[str], out: int, err: int, modules: int, stdin: int, call: dict[str, Any]) -> None:
    """In the forked child: the CLI on `args`, its output on `out`/`err`, stdin empty, with the call's
    environment and directory when it names them; never returns."""
    from autopatch_j.cli.app import main

    before = set(sys.modules)
    if call.get("env") is not None:
        os.environ.clear()
        os.environ.update(call["env"])
    if call.get("cwd") is not None:
        os.chdir(call["cwd"])
    os.dup2(stdin, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    code = 0
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # printed as an interpreter prints an uncaught exception
        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(modules, json.dumps([name for name in sys.modules if name not in before]).encode())
    os._exit(code)


def _run(args: list[str], call: dict[str, Any] | None = None, timeout: float | None = None) -> dict[str, Any]:
    call = call or {}
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryFile() as modules,
        tempfile.TemporaryFile() as stdin,
    ):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child exits in _child
            try:
                _child(args, out.fileno(), err.fileno(), modules.fileno(), stdin.fileno(), call)
            finally:
                os._exit(70)
        status = _wait(pid, timeout)
        if status is None:
            return {"code": None, "out": "", "err": ""}
        out.seek(0)
        err.seek(0)
        modules.seek(0)
        for name in json.loads(modules.read() or b"[]"):
            with contextlib.suppress(Exception):  # a module only its importer loads: each child imports it
                importlib.import_module(name)
        return {"code": os.waitstatus_to_exitcode(status), "out": out.read().decode(), "err": err.read().decode()}


def _wait(pid: int, timeout: float | None) -> int | None:
    """The child's wait status, or None after killing it when it outlived `timeout` seconds."""
    if timeout is None:
        return os.waitpid(pid, 0)[1]
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)  # a poll bounded by the child's exit


class CliServer:
    """One interpreter kept for a test process that forks a CLI process per `run` call; `run` takes
    what `subprocess.run` would (arguments, environment, directory, timeout; stdin is empty). Started
    on first use, stopped when its stdin closes. Calls from several threads run one after another: a
    test that needs CLI processes running at once starts them itself."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()  # calls from several threads are served one after another

    def run(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path | str | None = None,
        timeout: float = 120,
    ) -> Invocation:
        call = {"args": list(args), "env": dict(env), "cwd": None if cwd is None else str(cwd)}
        with self._lock:
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps({**call, "timeout": timeout}) + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        assert line, "the CLI server stopped"
        result = json.loads(line)
        if result["code"] is None:
            raise subprocess.TimeoutExpired(["autopatch-j", *args], timeout)
        return Invocation(**result)

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=60)
            self._proc.stdout.close()
            self._proc = None

    def _started(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, str(SCRIPT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
            )
        return self._proc


def _serve() -> None:
    """One JSON call a line on stdin, one result a line on stdout, until stdin closes."""
    for line in sys.stdin:
        call = json.loads(line)
        result = _run(call.pop("args"), call, call.pop("timeout"))
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()


def main() -> None:
    sys.path[0] = os.getcwd()  # as under `python -m autopatch_j`, not this file's folder
    import autopatch_j.cli.app  # noqa: F401 - what `python -m autopatch_j` imports before it runs

    _serve()


if __name__ == "__main__":
    main()
