"""tests/support/cli_batch.py: CLI invocations forked from one interpreter answer as their own processes do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.mcp_server.conftest import offline_env, store_decisions
from tests.support.cli_batch import Invocation, cli_each


def _own_process(args: list[str]) -> Invocation:
    done = subprocess.run(
        [sys.executable, "-m", "autopatch_j", *args], capture_output=True, text=True, env=offline_env(), timeout=120
    )
    return Invocation(done.returncode, done.stdout, done.stderr)


def test_each_invocation_gives_the_code_and_output_of_its_own_process(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store_decisions(
        project, ("行宽 100", "代码每行最多 100 个字符。"), ("Python 版本：3.12", "后端服务统一用 Python 3.12。")
    )
    runs = [
        ["-C", str(project), "memory", "search", "行宽点样设", "--json"],
        ["-C", str(project), "memory", "search", "密码系几多", "--json"],  # nothing: an empty list
        ["-C", str(project), "memory", "search", "python version", "--json"],
        ["-C", str(project), "memory", "no-such-command"],  # a usage error: exit 2, on stderr
        ["-C", str(project / "missing"), "memory", "list"],  # a known failure: one sentence
    ]
    batch = cli_each(runs, env=offline_env())
    assert batch == [_own_process(args) for args in runs]
    assert [run.code for run in batch] == [0, 0, 0, 2, batch[4].code] and batch[4].code != 0
    assert "行宽 100" in batch[0].out and batch[1].out.strip() == "[]"
