"""Drive `autopatch-j mcp` as a real subprocess with the SDK's own client (`stdio_client` + `ClientSession`).

    async with mcp_session(project) as session:
        result = await session.call_tool("memory_search", {"query": "Python"})

`cli(project, *args)` runs the real CLI in a process of its own, forked from one interpreter kept for
the session (tests/support/cli_batch.py; for "the same sentence the CLI prints").
Everything runs offline: the LLM variables are removed and the rules extractor is chosen.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item
from tests.support.cli_batch import CliServer
from tests.support.fixtures import openai_server  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
CONVERSATION = REPO / "examples" / "conversation.jsonl"
LLM_VARS = ("AUTOPATCH_LLM_API_KEY", "AUTOPATCH_LLM_BASE_URL", "AUTOPATCH_LLM_MODEL", "AUTOPATCH_DEBUG")


def offline_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LLM_VARS}
    env["AUTOPATCH_MEMORY_EXTRACTOR"] = "rules"
    env.update(extra or {})
    return env


def server_command(project: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "autopatch_j", "-C", str(project), "mcp", *args]


@dataclass(frozen=True)
class Cli:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


#: One interpreter for this folder's CLI calls; each call is a process of its own, forked from it
#: (tests/support/cli_batch.py).
CLI_SERVER = CliServer()


@pytest.fixture(scope="session", autouse=True)
def _cli_server() -> Iterator[None]:
    yield
    CLI_SERVER.close()


def cli(project: Path, *args: str, env: Mapping[str, str] | None = None) -> Cli:
    done = CLI_SERVER.run(["-C", str(project), *args], env=offline_env(env), timeout=120)
    return Cli(done.code, done.out, done.err)


def cli_sentence(result: Cli) -> str:
    """What the CLI printed after `error: ` (one sentence)."""
    assert result.code != 0 and result.err.startswith("error: "), result
    return result.err.removeprefix("error: ").strip()


@asynccontextmanager
async def mcp_session(
    project: Path, *args: str, env: Mapping[str, str] | None = None, errlog: Any = None, on_message: Any = None
) -> AsyncIterator[ClientSession]:
    command = server_command(project, *args)
    params = StdioServerParameters(command=command[0], args=command[1:], env=offline_env(env))
    with open(os.devnull, "w") if errlog is None else errlog as log:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            yield session


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    return result.content[0].text


def payload(result: CallToolResult) -> Any:
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled zh/en conversation, ingested and distilled through the CLI once per worker; no test
    uses this directory itself, each gets a copy (`seeded`)."""
    root = tmp_path_factory.mktemp("seeded") / "project"
    root.mkdir()
    assert cli(root, "memory", "ingest", str(CONVERSATION)).code == 0
    drained = cli(root, "memory", "drain", "--json")
    assert drained.code == 0, drained.err
    assert cli(root, "memory", "list", "--json").json(), "the bundled conversation yields memories"
    return root


@pytest.fixture
def seeded(project: Path, seeded_template: Path) -> Path:
    """A project with real memories: a copy of `seeded_template`, the test's own (it may write,
    forget or damage it). The copy is a new file to the store's verification stamp, so its first
    start runs the whole-file checks (memory/stamp.py) and finds it sound."""
    shutil.copytree(seeded_template, project, dirs_exist_ok=True)
    return project


def store_decisions(project: Path, *decisions: tuple[str, str]) -> None:
    """Write (title, content) project decisions straight into the project's store."""
    manager = MemoryManager(root=project)
    assert manager.open().ok
    for title, content in decisions:
        add_item(manager, kind=MemoryKind.PROJECT_DECISION, title=title, content=content)
    manager.close()


def cli_searches(project: Path, questions: Iterable[str]) -> dict[str, Any]:
    """The hits `memory search QUESTION --json` gives for each question (each run exits 0)."""
    by_cli = {}
    for question in questions:
        result = cli(project, "memory", "search", question, "--json")
        assert result.code == 0, result.err
        by_cli[question] = result.json()
    return by_cli


def assert_mcp_search_agrees(project: Path, by_cli: Mapping[str, Any]) -> None:
    """MCP `memory_search` gives, for every question, exactly the hits `memory search --json` gave."""

    async def main() -> None:
        async with mcp_session(project) as session:
            for question, hits in by_cli.items():
                got = payload(await session.call_tool("memory_search", {"query": question}))["hits"]
                assert got == hits, question

    anyio.run(main)


def assert_search_titles(project: Path, questions: Mapping[str, list[str]]) -> None:
    """`memory search QUESTION --json` gives exactly these titles, in order, for every question, and MCP
    `memory_search` gives the same hits."""
    by_cli = cli_searches(project, questions)
    for question, titles in questions.items():
        assert [hit["title"] for hit in by_cli[question]] == titles, (question, by_cli[question])
    assert_mcp_search_agrees(project, by_cli)
