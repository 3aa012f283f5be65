"""The whole-part eval runs, computed once per session and read by every test that asserts on them
(the fixtures are registered in conftest.py).

Each run sends every case of the part through the real pipeline (offline rules, or the canned
model): the most expensive fixtures of the suite. Their scratch repositories are throwaway SQLite
files under `tempfile`'s directory, which tests/conftest.py puts on a RAM disk when there is one.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from autopatch_j.cli.eval_cmds import register

SEED = 6


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


def whole_part_eval(tmp_path_factory: pytest.TempPathFactory, *args: str) -> dict[str, Any]:
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
