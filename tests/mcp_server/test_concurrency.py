"""The MCP server, a REPL-equivalent writer and `memory ingest`, on one project at the same time (real
processes): every turn each of them admitted is stored once, every call succeeded (no BUSY reached a
caller), each turn has its one extraction job and no lease is left behind — nothing lost."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio

from tests.mcp_server.conftest import REPO, cli, mcp_session, offline_env, payload

COUNT = 150


def _admitted(texts: list[str], source: str) -> list[int]:
    return sorted(int(t.split(":")[0].split()[1]) for t in texts if t.startswith(f"{source} "))


def test_mcp_server_repl_and_ingest_at_once_lose_nothing(project: Path, tmp_path: Path) -> None:
    assert cli(project, "memory", "status").code == 0  # create the store before the race starts
    conversation = tmp_path / "ingest.jsonl"
    lines = [
        json.dumps({"user": f"ingest {n}: 项目统一使用 Python 3.10+。", "assistant": "收到"}) for n in range(COUNT)
    ]
    conversation.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = offline_env()
    errors: list[str] = []
    recorded: list[int] = []
    commands = [
        # The REPL-equivalent writer starts writing once ingest has stored its first turn: all three race.
        ([sys.executable, "-m", "tests.mcp_server.repl_writer", str(project), str(COUNT), "repl", "ingest "], REPO),
        ([sys.executable, "-m", "autopatch_j", "-C", str(project), "memory", "ingest", str(conversation)], None),
    ]
    started: list[subprocess.Popen[str]] = []

    async def main() -> None:
        async with mcp_session(project) as session:
            for command, cwd in commands:
                started.append(
                    subprocess.Popen(
                        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                    )
                )
                if len(started) == 1:  # the writer is wired (and waiting for ingest) before ingest starts
                    line = await anyio.to_thread.run_sync(started[0].stdout.readline)  # type: ignore[union-attr]
                    assert line.strip() == "ready", line
            n = 0
            while n < COUNT or any(p.poll() is None for p in started):  # record until both others are done
                result = await session.call_tool(
                    "record_turn", {"user": f"mcp {n}: From now on, answer in English.", "assistant": "ok"}
                )
                if result.is_error:
                    errors.append(str(result.content))
                else:
                    recorded.append(payload(result)["turn_id"])
                if n % 10 == 0:
                    search = await session.call_tool("memory_search", {"query": "Python"})
                    if search.is_error:
                        errors.append(str(search.content))
                n += 1

    anyio.run(main)
    writer, ingest = started
    with writer, ingest:
        writer_out, writer_err = writer.communicate(timeout=300)
        _, ingest_err = ingest.communicate(timeout=300)
    assert errors == []
    assert writer.returncode == 0 and "Traceback" not in writer_err, writer_err
    assert f"admitted {COUNT}" in writer_out
    assert ingest.returncode == 0 and "Traceback" not in ingest_err, ingest_err

    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    try:
        rows = conn.execute("SELECT user_text, created_at FROM turns WHERE status = 'completed'").fetchall()
        extraction_jobs, distinct_turns = conn.execute(
            "SELECT count(*), count(DISTINCT turn_id) FROM memory_jobs WHERE kind = 'extraction'"
        ).fetchone()
        statuses = dict(conn.execute("SELECT status, count(*) FROM memory_jobs GROUP BY status").fetchall())
    finally:
        conn.close()
    texts = [text for text, _ in rows]
    assert _admitted(texts, "mcp") == list(range(len(recorded)))  # every turn once: none lost, none doubled
    assert _admitted(texts, "repl") == list(range(COUNT))
    assert _admitted(texts, "ingest") == list(range(COUNT))
    assert len(rows) == len(recorded) + 2 * COUNT
    spans = {s: [at for text, at in rows if text.startswith(f"{s} ")] for s in ("mcp", "repl", "ingest")}
    # they really raced: the MCP server wrote while the writer and while ingest wrote. `memory ingest`
    # admits its whole file in one transaction (issue 9), and the writer starts once ingest's first turn
    # is visible, i.e. after that transaction, so those two cannot overlap by design.
    for a, b in (("mcp", "repl"), ("mcp", "ingest")):
        assert max(min(spans[a]), min(spans[b])) <= min(max(spans[a]), max(spans[b])), (a, b)
    assert extraction_jobs == distinct_turns == len(rows)  # each turn has exactly one extraction job
    assert "leased" not in statuses, statuses  # every process gave its leases back
    drained = cli(project, "memory", "drain", "--json")
    assert drained.code == 0, drained.err
    kinds = {m["kind"] for m in cli(project, "memory", "list", "--json").json()}
    assert {"user_preference", "project_decision"} <= kinds
