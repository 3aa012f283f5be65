"""`memory_publish` through a real MCP client: the CLI's function, the same JSON, absent under --read-only;
and the issue's end-to-end scenario — a decision confirmed in a session reaches AGENTS.md and CLAUDE.md
after the next drain with automatic publish on, leaves after `forget`, and no byte outside the block changes."""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from tests.mcp_server.conftest import cli, mcp_session, payload, text_of

BEGIN = b"<!-- autopatch-j:begin decisions -->"
MINE = b"# Team notes\r\n\r\n## Decisions (by hand)\r\n- keep CRLF\r\n"  # no final blank line, CRLF


def test_memory_publish_writes_the_block_and_matches_the_cli(seeded: Path) -> None:
    (seeded / "AGENTS.md").write_bytes(MINE)

    async def main() -> None:
        async with mcp_session(seeded) as session:
            dry = payload(await session.call_tool("memory_publish", {"dry_run": True}))
            assert dry["stale"] and not (seeded / "CLAUDE.md").exists()
            assert dry["files"][0]["diff"].startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")
            done = payload(await session.call_tool("memory_publish", {}))
            assert [(f["target"], f["action"]) for f in done["files"]] == [("agents", "updated"), ("claude", "created")]
            again = payload(await session.call_tool("memory_publish", {"to": "agents"}))
            assert again["files"][0]["action"] == "unchanged"
            bad = await session.call_tool("memory_publish", {"to": "cursor"})
            assert bad.is_error and "to" in text_of(bad)

    anyio.run(main)
    data = (seeded / "AGENTS.md").read_bytes()
    assert data.startswith(MINE + b"\r\n" + BEGIN)
    check = cli(seeded, "memory", "publish", "--check", "--json")
    assert check.code == 0 and not check.json()["stale"]


def test_read_only_has_no_memory_publish(seeded: Path) -> None:
    async def main() -> None:
        async with mcp_session(seeded, "--read-only") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert "memory_publish" not in names

    anyio.run(main)
    assert not (seeded / "AGENTS.md").exists()


def test_done_when_a_confirmed_decision_is_published_after_the_drain_and_leaves_after_forget(project: Path) -> None:
    (project / "AGENTS.md").write_bytes(MINE)
    (project / "CLAUDE.md").write_bytes("# Claude\n\nPlain UTF-8 — 中文".encode())  # no final newline
    before = {name: (project / name).read_bytes() for name in ("AGENTS.md", "CLAUDE.md")}
    assert cli(project, "memory", "status").code == 0
    (project / ".autopatch-j" / "config.toml").write_text('publish = ["agents", "claude"]\n', encoding="utf-8")
    session = project.parent / "session.jsonl"
    session.write_text(
        json.dumps(
            {"user": "How should we manage dependencies?", "assistant": "I suggest we use uv and commit uv.lock. OK?"}
        )
        + "\n"
        + json.dumps({"user": "OK, let's do that.", "assistant": "Great, uv it is."})
        + "\n",
        encoding="utf-8",
    )
    assert cli(project, "memory", "ingest", str(session)).code == 0
    drained = cli(project, "memory", "drain", "--json")
    assert drained.code == 0, drained.err
    assert {f["target"] for f in drained.json()["published"]} == {"agents", "claude"}
    uv = next(i["id"] for i in cli(project, "memory", "list", "--json").json() if "uv" in i["content"])
    for name, original in before.items():
        data = (project / name).read_bytes()
        assert data.startswith(original) and f"[#{uv}]".encode() in data, name

    async def forget() -> None:
        async with mcp_session(project) as mcp:
            payload(await mcp.call_tool("memory_forget", {"id": uv}))
            published = payload(await mcp.call_tool("memory_publish", {}))
            assert [f["action"] for f in published["files"]] == ["updated", "updated"]

    anyio.run(forget)
    for name, original in before.items():
        data = (project / name).read_bytes()
        assert data.startswith(original) and f"[#{uv}]".encode() not in data and b"uv.lock" not in data, name
    assert cli(project, "memory", "drain", "--json").json()["published"][0]["action"] == "unchanged"
    assert cli(project, "memory", "publish", "--remove").code == 0
    assert {name: (project / name).read_bytes() for name in before} == before
