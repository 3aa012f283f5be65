"""The server's life: the REPL's background worker runs while it is up; EOF, SIGTERM and SIGINT give
its leases back at once (jobs due again, no open turn left), with exit code 0 and nothing on stdout
but protocol frames."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import anyio
import pytest

from tests.mcp_server.conftest import mcp_session, offline_env, payload, server_command
from tests.support.openai_server import FAKE_API_KEY, FAKE_MODEL, FakeOpenAIServer, Reply

PREFERENCE = "From now on, answer in English when I write in English."
DECISION = "项目统一使用 Python 3.10+。"


def test_recorded_turns_are_distilled_by_the_background_worker(project: Path) -> None:
    """record_turn admits ordinary turns; the worker extracts them without any `memory drain`."""

    async def main() -> None:
        async with mcp_session(project) as session:
            first = payload(await session.call_tool("record_turn", {"user": PREFERENCE, "assistant": "Understood."}))
            second = payload(await session.call_tool("record_turn", {"user": DECISION, "assistant": "收到。"}))
            assert first["recorded"] and second["recorded"] and second["turn_id"] == first["turn_id"] + 1
            deadline = time.monotonic() + 60
            memories: list[dict[str, Any]] = []
            while time.monotonic() < deadline:
                memories = payload(await session.call_tool("memory_list", {}))["memories"]
                if len(memories) >= 2:
                    break
                await anyio.sleep(0.2)
            kinds = {m["kind"] for m in memories}
            assert kinds == {"user_preference", "project_decision"}, memories
            hits = payload(await session.call_tool("memory_search", {"query": "Python"}))["hits"]
            assert [h["kind"] for h in hits] == ["project_decision"]
            status = payload(await session.call_tool("memory_status", {}))
            assert status["counts"]["turns"] == 2 and "leased" not in status["jobs"]

    anyio.run(main)


# -- shutdown with a lease held: a slow LLM keeps the worker inside its step ---------------------------


def _frame(method: str, params: dict[str, Any] | None = None, id: int | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    if id is not None:
        message["id"] = id
    return (json.dumps(message) + "\n").encode()


def _initialize(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    client = {"name": "raw-test", "version": "1"}
    stdin.write(_frame("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}, 1))
    stdin.flush()
    assert json.loads(stdout.readline())["id"] == 1
    stdin.write(_frame("notifications/initialized"))


def _record(stdin: IO[bytes], stdout: IO[bytes], id: int, user: str) -> None:
    stdin.write(_frame("tools/call", {"name": "record_turn", "arguments": {"user": user, "assistant": "ok"}}, id))
    stdin.flush()
    answer = json.loads(stdout.readline())
    assert answer["id"] == id and not answer["result"].get("isError"), answer


def _rows(project: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db", timeout=30)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture
def slow_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        for _ in range(20):
            server.enqueue(Reply(body=b"{}", delay_s=120))  # cut short by stop()
        yield server


@pytest.mark.parametrize("how", ["eof", "sigterm", "sigint"])
def test_shutdown_gives_back_the_leases_it_holds(project: Path, slow_llm: FakeOpenAIServer, how: str) -> None:
    env = offline_env(
        {
            "AUTOPATCH_MEMORY_EXTRACTOR": "llm",
            "AUTOPATCH_LLM_API_KEY": FAKE_API_KEY,
            "AUTOPATCH_LLM_BASE_URL": slow_llm.base_url,
            "AUTOPATCH_LLM_MODEL": FAKE_MODEL,
        }
    )
    with subprocess.Popen(
        server_command(project), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        _initialize(process.stdin, process.stdout)
        _record(process.stdin, process.stdout, 2, PREFERENCE)
        _record(process.stdin, process.stdout, 3, DECISION)
        deadline = time.monotonic() + 30
        leased: list[tuple[Any, ...]] = []
        while time.monotonic() < deadline and not leased:
            leased = _rows(project, "SELECT id, owner FROM memory_jobs WHERE status = 'leased'")
            time.sleep(0.1)
        assert leased and all(f":{process.pid}:" in owner for _, owner in leased), leased
        if how == "eof":
            process.stdin.close()
        else:
            process.send_signal(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
        code = process.wait(timeout=30)
        rest = process.stdout.read()
        err = process.stderr.read().decode()
    assert code == 0, err
    assert "Traceback" not in err, err
    assert f"stopped; released {len(leased)} job lease(s), interrupted 0 open turn(s)" in err, err
    assert all(line.startswith(b"{") for line in rest.splitlines())  # stdout carried protocol only
    statuses = _rows(project, "SELECT status, owner FROM memory_jobs ORDER BY id")
    assert statuses and all(status == "pending" and owner is None for status, owner in statuses), statuses
    assert _rows(project, "SELECT count(*) FROM turns WHERE status = 'open'") == [(0,)]
