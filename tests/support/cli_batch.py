"""Many CLI invocations for the price of one interpreter start (docs/testing.md, "Round 38").

`cli_each(runs, env=…)` starts one subprocess — this file run as a script — that imports the CLI,
then forks one child per invocation. Each child calls the CLI's entry point with the invocation's
arguments (`autopatch_j.cli.app.main`, what `python -m autopatch_j` calls), its stdout and stderr on
files of its own, and exits with the CLI's exit code. Every invocation is still its own process:
nothing one child computes or caches reaches the next.

What the children share is the import of modules: after each child, the parent imports the modules
that child imported, so the next child starts with them loaded, as a fresh process would have them
after its own imports. The package reads no environment, directory or arguments at import
(conventions: "I/O at the edges"), so a module imported in the parent is the module a fresh process
would import. Interpreter start and imports are most of a short command's CPU time (`memory search`:
about 0.45 CPU s in its own process, 0.07 s in a child).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import subprocess
import sys
import tempfile
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


def cli_each(runs: Sequence[Sequence[str]], *, env: Mapping[str, str], timeout: float = 300) -> list[Invocation]:
    """Run `autopatch-j ARGS` for every ARGS of `runs`, in order, each in its own forked process."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT)],
        input=json.dumps([list(args) for args in runs]),
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [Invocation(**result) for result in json.loads(done.stdout)]


def _child(args: list[str], out: int, err: int, modules: int) -> None:
    """In the forked child: the CLI on `args`, its output on `out`/`err`; never returns."""
    from autopatch_j.cli.app import main

    before = set(sys.modules)
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


def _run(args: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as modules:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child exits in _child
            try:
                _child(args, out.fileno(), err.fileno(), modules.fileno())
            finally:
                os._exit(70)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        modules.seek(0)
        for name in json.loads(modules.read() or b"[]"):
            with contextlib.suppress(Exception):  # a module only its importer loads: each child imports it
                importlib.import_module(name)
        return {"code": os.waitstatus_to_exitcode(status), "out": out.read().decode(), "err": err.read().decode()}


def main() -> None:
    sys.path[0] = os.getcwd()  # as under `python -m autopatch_j`, not this file's folder
    import autopatch_j.cli.app  # noqa: F401 - what `python -m autopatch_j` imports before it runs

    runs = json.loads(sys.stdin.read())
    results = [_run(list(args)) for args in runs]
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
