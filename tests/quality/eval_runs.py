"""The whole-part eval runs, computed once per session and read by every test that asserts on them
(the fixtures are registered in conftest.py).

Each run sends every case of the part through the real pipeline (offline rules, or the canned
model): the most expensive fixtures of the suite. Their scratch repositories are throwaway SQLite
files, so when this machine has a RAM disk (`/dev/shm`, tmpfs) with room to spare they live there:
the figures are the same, only the fsyncs are gone.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from autopatch_j.cli.eval_cmds import register

SEED = 6
RAM_DISK = Path("/dev/shm")
RAM_DISK_MIN_FREE = 1 << 30  # a pair of scratch repos lives at a time; 1 GiB leaves a wide margin


def eval_app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Test root."""

    register(app)
    return app


def run_eval(tmp_path_factory: pytest.TempPathFactory, *args: str) -> tuple[int, str]:
    """`autopatch-j eval ARGS` in a fresh project directory; (exit code, output)."""
    cwd = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("project"))
    try:
        result = CliRunner().invoke(eval_app(), ["eval", *args], catch_exceptions=False)
    finally:
        os.chdir(cwd)
    return result.exit_code, result.output


def ram_disk() -> Path | None:
    """A writable tmpfs with room for the scratch repos, or None (then the usual temporary directory)."""
    try:
        if not RAM_DISK.is_dir() or not os.access(RAM_DISK, os.W_OK):
            return None
        stat = os.statvfs(RAM_DISK)
    except OSError:
        return None
    return RAM_DISK if stat.f_bavail * stat.f_frsize >= RAM_DISK_MIN_FREE else None


@contextmanager
def scratch_on_ram_disk() -> Iterator[None]:
    """Point `tempfile` (where `evaluate` makes its scratch directory) at the RAM disk for a while."""
    disk = ram_disk()
    if disk is None:
        yield
        return
    scratch = tempfile.mkdtemp(prefix="autopatch-test-eval-", dir=disk)
    saved = tempfile.tempdir
    tempfile.tempdir = scratch
    try:
        yield
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(scratch, ignore_errors=True)


def whole_part_eval(tmp_path_factory: pytest.TempPathFactory, *args: str) -> dict[str, Any]:
    with scratch_on_ram_disk():
        code, out = run_eval(tmp_path_factory, "--json", "--seed", str(SEED), *args)
    assert code == 0, out[-2000:]
    data: dict[str, Any] = json.loads(out)
    return data


@pytest.fixture(scope="session")
def offline_parts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`eval --mode offline` over every bundled part (dev, and test when bundled), once per session."""
    data = whole_part_eval(tmp_path_factory, "--mode", "offline")
    assert data["mode"] == "offline" and data["invariants_ok"]
    return data


@pytest.fixture(scope="session")
def offline(offline_parts: dict[str, Any]) -> dict[str, Any]:
    dev: dict[str, Any] = offline_parts["parts"]["dev"]
    return dev


@pytest.fixture(scope="session")
def canned(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`eval --mode canned --part dev` (the scripted model, adversarial outputs included), once per session."""
    data = whole_part_eval(tmp_path_factory, "--mode", "canned", "--part", "dev")
    assert list(data["parts"]) == ["dev"]
    dev: dict[str, Any] = data["parts"]["dev"]
    return dev
