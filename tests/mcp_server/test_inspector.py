"""The MCP Inspector's CLI mode (`@modelcontextprotocol/inspector --cli`) against `autopatch-j mcp`.

A client nobody here wrote: it must list our tools and resources and call them. It is installed once
into a cache folder by scripts/mcp_inspector.sh (npm registry). Without node/npm the tests are skipped
with that reason — never silently — and AUTOPATCH_REQUIRE_INSPECTOR=1 (CI) turns the skip into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_server.conftest import REPO, offline_env, server_command

# one Inspector install and its processes (module fixture) (docs/testing.md)
pytestmark = pytest.mark.xdist_group("mcp-inspector")


def _why_unavailable() -> str | None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    return f"{' and '.join(missing)} not found on PATH" if missing else None


@pytest.fixture(scope="module")
def inspector() -> str:
    reason = _why_unavailable()
    if reason is None:
        done = subprocess.run(
            ["bash", str(REPO / "scripts" / "mcp_inspector.sh")],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            reason = f"installing @modelcontextprotocol/inspector failed: {done.stderr.strip()[-300:]}"
        else:
            return done.stdout.strip().splitlines()[-1]
    message = f"MCP Inspector unavailable: {reason}"
    if os.environ.get("AUTOPATCH_REQUIRE_INSPECTOR") == "1":
        pytest.fail(message)
    pytest.skip(message)


def _inspect(inspector: str, project: Path, *args: str) -> Any:
    command = [inspector, "--cli", *server_command(project), *args]
    done = subprocess.run(command, capture_output=True, text=True, env=offline_env(), timeout=120, check=False)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_every_read_tool(inspector: str, seeded: Path) -> None:
    tools = {tool["name"]: tool for tool in _inspect(inspector, seeded, "--method", "tools/list")["tools"]}
    assert set(tools) == {
        "memory_search", "memory_read", "memory_list", "memory_status", "memory_context", "memory_forget",
        "record_turn", "memory_publish",
    }  # fmt: skip
    assert tools["memory_forget"]["annotations"]["destructiveHint"] is True
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True
    call = ("--method", "tools/call", "--tool-name")
    hits = _inspect(inspector, seeded, *call, "memory_search", "--tool-arg", "query=Python")["structuredContent"][
        "hits"
    ]
    assert hits and hits[0]["kind"] == "project_decision"
    read = _inspect(inspector, seeded, *call, "memory_read", "--tool-arg", f"id={hits[0]['id']}")
    assert not read["isError"] and read["structuredContent"]["excerpts"]
    status = _inspect(inspector, seeded, *call, "memory_status")["structuredContent"]
    assert status["health"] == "healthy"
    context = _inspect(inspector, seeded, *call, "memory_context")["structuredContent"]
    assert "Python" in context["context"]
    unknown = _inspect(inspector, seeded, *call, "memory_read", "--tool-arg", "id=9999")
    assert unknown["isError"] and unknown["content"][0]["text"].startswith("No active memory with id 9999")


def test_inspector_records_a_turn_and_reads_resources(inspector: str, seeded: Path) -> None:
    recorded = _inspect(
        inspector, seeded, "--method", "tools/call", "--tool-name", "record_turn",
        "--tool-arg", "user=From now on, answer first.", "--tool-arg", "assistant=OK.",
    )["structuredContent"]  # fmt: skip
    assert recorded["recorded"] is True
    resources = [r["uri"] for r in _inspect(inspector, seeded, "--method", "resources/list")["resources"]]
    assert "autopatch-j://context" in resources and any(u.startswith("autopatch-j://memory/") for u in resources)
    memory = next(u for u in resources if u.startswith("autopatch-j://memory/"))
    contents = _inspect(inspector, seeded, "--method", "resources/read", "--uri", memory)["contents"]
    assert json.loads(contents[0]["text"])["id"] == int(memory.rsplit("/", 1)[1])
