"""tests/support/cli_batch.py: CLI calls forked from one kept interpreter answer as their own processes do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_server.conftest import offline_env, store_decisions
from tests.support.cli_batch import CliServer, Invocation


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
    server = CliServer()
    try:
        batch = [server.run(args, env=offline_env()) for args in runs]
    finally:
        server.close()
    assert batch == [_own_process(args) for args in runs]
    assert [run.code for run in batch] == [0, 0, 0, 2, batch[4].code] and batch[4].code != 0
    assert "行宽 100" in batch[0].out and batch[1].out.strip() == "[]"


def test_a_kept_server_gives_each_call_its_own_environment_and_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    talk = tmp_path / "talk.jsonl"
    talk.write_text('{"user": "项目统一使用 Python 3.10+。", "assistant": "收到。"}\n', encoding="utf-8")
    calls: list[tuple[list[str], dict[str, str]]] = [
        (["-C", str(project), "memory", "ingest", str(talk)], offline_env()),
        (["memory", "drain", "--json"], offline_env()),  # the project is the directory
        (["memory", "drain"], offline_env({"AUTOPATCH_MEMORY_EXTRACTOR": "no-such"})),  # a bad setting
        (["memory", "list", "--json"], offline_env()),
    ]
    server = CliServer()
    try:
        served = [server.run(args, env=env, cwd=project) for args, env in calls]
    finally:
        server.close()
    # the same calls again, each in a process of its own, on a copy of the project before the calls
    alone = tmp_path / "alone"
    alone.mkdir()
    own = []
    for args, env in calls:
        args = [str(alone) if arg == str(project) else arg for arg in args]
        done = subprocess.run(
            [sys.executable, "-m", "autopatch_j", *args], capture_output=True, text=True, env=env, cwd=alone,
            timeout=120,
        )  # fmt: skip
        own.append(Invocation(done.returncode, done.stdout, done.stderr.replace(str(alone), str(project))))
    assert [(run.code, run.err) for run in served] == [(run.code, run.err) for run in own]

    def memories(out: str) -> list[tuple[str, str, str]]:  # without the times they were made at
        return [(item["kind"], item["title"], item["content"]) for item in json.loads(out)]

    assert memories(served[3].out) == memories(own[3].out) and "Python 3.10+" in served[3].out
    assert served[2].code != 0


def test_a_call_past_its_timeout_is_killed_and_raises(tmp_path: Path) -> None:
    server = CliServer()
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            server.run(["memory", "status"], env=offline_env(), cwd=tmp_path, timeout=0.001)
        assert server.run(["--help"], env=offline_env()).code == 0  # the server serves the next call
    finally:
        server.close()
