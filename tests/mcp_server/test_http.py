"""`autopatch-j mcp --transport streamable-http`: the same tools over HTTP on loopback, and SIGTERM ends it
cleanly (exit 0, leases released) — uvicorn's own signal handling must not skip the release."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.mcp_server.conftest import offline_env, payload, server_command


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_streamable_http_serves_the_tools_and_stops_on_sigterm(seeded: Path) -> None:
    port = _free_port()
    command = server_command(seeded, "--transport", "streamable-http", "--port", str(port))
    with subprocess.Popen(command, env=offline_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read().decode()
            time.sleep(0.1)

        async def main() -> None:
            url = f"http://127.0.0.1:{port}/mcp"
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                names = {tool.name for tool in (await session.list_tools()).tools}
                assert "record_turn" in names and "memory_search" in names
                hits = payload(await session.call_tool("memory_search", {"query": "Python"}))["hits"]
                assert hits and hits[0]["kind"] == "project_decision"
                recorded = payload(await session.call_tool("record_turn", {"user": "hello", "assistant": "hi"}))
                assert recorded["recorded"] is True

        anyio.run(main)
        process.send_signal(signal.SIGTERM)
        code = process.wait(timeout=60)
        out, err = process.stdout.read(), process.stderr.read().decode()
    assert code == 0, err
    assert "Traceback" not in err and f"http://127.0.0.1:{port}/mcp" in err
    assert "autopatch-j mcp: stopped; released 0 job lease(s), interrupted 0 open turn(s)" in err
    assert out == b""  # HTTP: nothing at all on stdout
