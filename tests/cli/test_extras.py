"""The light install: the base package is the CLI, Memory, import and MCP; the cloud is an extra.

`autopatch-j cloud …` without the `cloud` extra is tested as a subprocess whose interpreter cannot
import the extra's libraries (`sys.modules[name] = None` makes `import name` fail and
`importlib.util.find_spec(name)` return None, exactly as when the distribution is absent).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from autopatch_j.app.errors import EXIT_CONFIG
from autopatch_j.cli.cloud import CLOUD_EXTRA_MODULES

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

RUN_WITHOUT = """
import sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
from autopatch_j.cli.launch import main
main(sys.argv[2:])
"""


def run_without(blocked: tuple[str, ...], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_")}
    return subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT, ",".join(blocked), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s\[<>=!;~]", requirement, maxsplit=1)[0].lower() for requirement in requirements}


def test_the_base_dependencies_hold_none_of_the_cloud_libraries() -> None:
    base = _names(PYPROJECT["dependencies"])
    cloud = _names(PYPROJECT["optional-dependencies"]["cloud"])
    assert cloud >= {"fastapi", "uvicorn", "uvloop", "httptools", "sqlalchemy", "alembic", "psycopg", "jinja2"}
    assert not base & cloud
    assert {"typer", "rich", "prompt_toolkit", "openai", "mcp"} <= base


def test_the_test_extra_installs_the_cloud_and_tables_extras() -> None:
    own = [r for r in PYPROJECT["optional-dependencies"]["test"] if r.startswith("autopatch-j[")]
    assert len(own) == 1
    extras = {e.strip() for e in own[0].removeprefix("autopatch-j[").rstrip("]").split(",")}
    assert extras == {"cloud", "tables"}  # the suite covers every face and rebuilds the word tables


@pytest.mark.parametrize("command", [("init",), ("user", "add", "alice"), ("serve",), ("worker",)])
def test_a_cloud_command_without_the_extra_names_the_install_command(tmp_path: Path, command: tuple[str, ...]) -> None:
    result = run_without(CLOUD_EXTRA_MODULES, "cloud", *command, "--db", f"sqlite:///{tmp_path}/c.db", cwd=tmp_path)
    assert result.returncode == EXIT_CONFIG, result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: `autopatch-j cloud` needs the cloud extra")
    assert "pip install 'autopatch-j[cloud]'" in line
    assert not (tmp_path / "c.db").exists()


def test_the_sentence_names_only_what_is_missing(tmp_path: Path) -> None:
    result = run_without(("sqlalchemy",), "cloud", "init", "--db", f"sqlite:///{tmp_path}/c.db", cwd=tmp_path)
    assert result.returncode == EXIT_CONFIG
    assert "(missing: sqlalchemy)" in result.stderr


def test_the_rest_of_the_cli_runs_without_the_extra(tmp_path: Path) -> None:
    help_text = run_without(CLOUD_EXTRA_MODULES, "--help", cwd=tmp_path)
    assert help_text.returncode == 0, help_text.stderr
    assert "cloud" in help_text.stdout
    assert run_without(CLOUD_EXTRA_MODULES, "cloud", "--help", cwd=tmp_path).returncode == 0
    status = run_without(CLOUD_EXTRA_MODULES, "memory", "list", "--json", cwd=tmp_path)
    assert status.returncode == 0, status.stderr
    assert status.stdout.strip() == "[]"


def test_with_the_extra_the_gate_lets_the_command_run(tmp_path: Path) -> None:
    result = run_without((), "cloud", "init", "--db", f"sqlite:///{tmp_path}/c.db", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "cloud database ready" in result.stdout
