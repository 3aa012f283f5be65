"""`autopatch-j mcp` over stdio, driven by the SDK's own client: every tool, errors, resources, --read-only."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
from mcp import ClientSession

from autopatch_j.memory.manager import MemoryManager
from tests.mcp_server.conftest import cli, cli_sentence, mcp_session, payload, text_of

READ_TOOLS = {"memory_search", "memory_read", "memory_list", "memory_status", "memory_context"}
WRITE_TOOLS = {"memory_forget", "record_turn", "memory_publish"}


def test_lists_every_tool_with_typed_schemas_and_honest_annotations(project: Path) -> None:
    async def main() -> None:
        async with mcp_session(project) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == READ_TOOLS | WRITE_TOOLS
        for name in READ_TOOLS:
            annotations = tools[name].annotations
            assert annotations is not None and annotations.read_only_hint is True, name
        forget, record = tools["memory_forget"].annotations, tools["record_turn"].annotations
        assert forget is not None and forget.read_only_hint is False and forget.destructive_hint is True
        assert record is not None and record.read_only_hint is False and record.destructive_hint is False
        assert tools["memory_read"].input_schema["properties"]["id"]["type"] == "integer"
        assert tools["memory_search"].input_schema["required"] == ["query"]
        assert set(tools["record_turn"].input_schema["required"]) == {"user", "assistant"}
        assert "user_preference" in str(tools["memory_list"].input_schema["properties"]["kind"])

    anyio.run(main)


def test_read_only_serves_no_write_tool(seeded: Path) -> None:
    async def main() -> None:
        async with mcp_session(seeded, "--read-only") as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            refused = await session.call_tool("memory_forget", {"id": 1})
        assert names == READ_TOOLS
        assert refused.is_error and "memory_forget" in text_of(refused)

    anyio.run(main)
    assert len(cli(seeded, "memory", "list", "--json").json()) > 0  # nothing was forgotten


def test_read_tools_answer_what_the_cli_and_the_host_answer(seeded: Path) -> None:
    listed = cli(seeded, "memory", "list", "--json").json()
    searched = cli(seeded, "memory", "search", "Python", "--json").json()
    status = cli(seeded, "memory", "status", "--json").json()
    assert searched, "the bundled conversation has a Python decision"
    manager = MemoryManager(root=seeded)
    manager.open()
    thread_id = manager.active_thread().id
    host_context = manager.routing_context(thread_id=thread_id)
    host_read = manager.read_memory(thread_id=thread_id, memory_id=searched[0]["id"])
    manager.close()
    assert host_read is not None

    async def main() -> None:
        async with mcp_session(seeded) as session:
            hits = payload(await session.call_tool("memory_search", {"query": "Python"}))["hits"]
            assert [(h["id"], h["kind"], h["title"], h["synopsis"], h["match"]) for h in hits] == [
                (h["id"], h["kind"], h["title"], h["synopsis"], h["match"]) for h in searched
            ]
            assert payload(await session.call_tool("memory_search", {"query": "zzz-nothing"}))["hits"] == []
            memories = payload(await session.call_tool("memory_list", {}))["memories"]
            assert memories == listed
            decisions = payload(await session.call_tool("memory_list", {"kind": "project_decision"}))["memories"]
            assert decisions == [m for m in listed if m["kind"] == "project_decision"] and decisions
            read = payload(await session.call_tool("memory_read", {"id": searched[0]["id"]}))
            assert read["content"] == host_read.content and read["title"] == host_read.title
            assert [e["quote"] for e in read["excerpts"]] == [s.quote for s in host_read.excerpts]
            assert 1 <= len(read["excerpts"]) <= 3 and all(len(e["quote"]) <= 800 for e in read["excerpts"])
            got_status = payload(await session.call_tool("memory_status", {}))
            assert got_status.keys() == status.keys() and got_status["health"] == "healthy"
            assert got_status["counts"] == status["counts"]
            context = payload(await session.call_tool("memory_context", {}))
            assert context == {"thread_id": thread_id, "context": host_context, "chars": len(host_context)}
            assert 0 < context["chars"] <= 4000 and "Python" in context["context"]

    anyio.run(main)


def test_forget_is_the_cli_forget(seeded: Path) -> None:
    target = cli(seeded, "memory", "list", "--json").json()[0]

    async def main() -> None:
        async with mcp_session(seeded) as session:
            forgot = payload(await session.call_tool("memory_forget", {"id": target["id"]}))
            assert forgot == {"id": target["id"], "status": "forgotten", "raw_turns_kept": True}
            again = await session.call_tool("memory_forget", {"id": target["id"]})
            assert again.is_error
            ids = [m["id"] for m in payload(await session.call_tool("memory_list", {}))["memories"]]
            assert target["id"] not in ids

    anyio.run(main)
    assert cli(seeded, "memory", "show", str(target["id"]), "--json").json()["status"] == "forgotten"


def test_unknown_id_and_bad_arguments_are_one_sentence_and_the_server_stays_up(seeded: Path) -> None:
    unknown_forget = cli_sentence(cli(seeded, "memory", "forget", "9999"))

    async def main() -> None:
        async with mcp_session(seeded) as session:
            for tool in ("memory_read", "memory_forget"):
                result = await session.call_tool(tool, {"id": 9999})
                assert result.is_error and text_of(result) == unknown_forget, tool
            cases = {
                ("memory_read", '{"id": "x"}'): "Invalid value for 'id' of memory_read",
                ("memory_search", "{}"): "memory_search needs the argument 'query'.",
                ("memory_list", '{"kind": "gossip"}'): "Invalid value for 'kind' of memory_list",
                ("record_turn", '{"user": "hi"}'): "record_turn needs the argument 'assistant'.",
            }
            for (tool, arguments), expected in cases.items():
                result = await session.call_tool(tool, __import__("json").loads(arguments))
                text = text_of(result)
                assert result.is_error and text.startswith(expected), (tool, text)
                assert "\n" not in text and "Traceback" not in text
            empty = await session.call_tool("record_turn", {"user": "   ", "assistant": "ok"})
            assert empty.is_error and text_of(empty) == "The message is empty."
            unknown = await session.call_tool("memory_explode", {})
            assert unknown.is_error and "memory_explode" in text_of(unknown)
            assert payload(await session.call_tool("memory_status", {}))["health"] == "healthy"  # still up

    anyio.run(main)


def test_degraded_store_answers_every_guarded_tool_with_the_cli_sentence(seeded: Path) -> None:
    turns_before = cli(seeded, "memory", "status", "--json").json()["counts"]["turns"]
    conn = sqlite3.connect(seeded / ".autopatch-j" / "memory.db")
    conn.execute("CREATE TABLE intruder (x TEXT)")
    conn.close()
    refusal = cli_sentence(cli(seeded, "memory", "search", "Python"))
    assert "degraded" in refusal

    async def main() -> None:
        async with mcp_session(seeded) as session:
            calls = {
                "memory_search": {"query": "Python"},
                "memory_read": {"id": 1},
                "memory_list": {},
                "memory_context": {},
                "memory_forget": {"id": 1},
                "record_turn": {"user": "from now on, answer first", "assistant": "ok"},
            }
            for tool, arguments in calls.items():
                result = await session.call_tool(tool, arguments)
                assert result.is_error and text_of(result) == refusal, tool
            status = payload(await session.call_tool("memory_status", {}))
            assert status["health"] == "degraded" and "intruder" in status["reason"]
            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            assert resources == ["autopatch-j://context"]

    anyio.run(main)
    assert cli(seeded, "memory", "status", "--json").json()["counts"]["turns"] == turns_before


def test_resources_are_the_active_memories_and_the_context(seeded: Path) -> None:
    listed = cli(seeded, "memory", "list", "--json").json()

    async def _text(session: ClientSession, uri: str) -> str:
        contents = (await session.read_resource(uri)).contents
        assert len(contents) == 1
        return str(contents[0].text)

    async def main() -> None:
        async with mcp_session(seeded) as session:
            resources = {str(r.uri): r for r in (await session.list_resources()).resources}
            assert set(resources) == {"autopatch-j://context"} | {f"autopatch-j://memory/{m['id']}" for m in listed}
            templates = [t.uri_template for t in (await session.list_resource_templates()).resource_templates]
            assert templates == ["autopatch-j://memory/{id}"]
            first = listed[0]["id"]
            read = payload(await session.call_tool("memory_read", {"id": first}))
            assert __import__("json").loads(await _text(session, f"autopatch-j://memory/{first}")) == read
            context = payload(await session.call_tool("memory_context", {}))["context"]
            assert await _text(session, "autopatch-j://context") == context
            for bad in ("autopatch-j://memory/9999", "autopatch-j://memory/abc"):
                try:
                    await session.read_resource(bad)
                except Exception as exc:  # the SDK raises MCPError for a protocol error
                    assert "9999" in str(exc) or "abc" in str(exc)
                else:
                    raise AssertionError(f"{bad} was readable")

    anyio.run(main)


def test_debug_mode_is_the_cli_debug_mode(seeded: Path) -> None:
    """AUTOPATCH_DEBUG=true: memory_status reports debug (RAW last errors), as `memory status --json` does."""
    expected = cli(seeded, "memory", "status", "--json", env={"AUTOPATCH_DEBUG": "true"}).json()

    async def main() -> None:
        async with mcp_session(seeded, env={"AUTOPATCH_DEBUG": "true"}) as session:
            status = payload(await session.call_tool("memory_status", {}))
        assert status["debug"] is True and expected["debug"] is True and status["hint"] is None

    anyio.run(main)
