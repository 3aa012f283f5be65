"""Run the real CLI in-process: `cli("memory", "status", "--json")` → exit code, stdout, stderr."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cli.app import main


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


CliRunner = Callable[..., CliResult]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A scratch HOME for subprocesses that read user-level files."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def cli(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    for name in ("AUTOPATCH_DEBUG", "AUTOPATCH_LLM_API_KEY", "AUTOPATCH_LLM_BASE_URL", "AUTOPATCH_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)

    def run(*args: str, root: Path | None = None, env: dict[str, str] | None = None) -> CliResult:
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        capsys.readouterr()
        try:
            main(["-C", str(root or project), *args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            for key in env or {}:
                monkeypatch.delenv(key, raising=False)
        captured = capsys.readouterr()
        return CliResult(code=code, out=captured.out, err=captured.err)

    return run
