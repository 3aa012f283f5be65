"""`notifications/resources/list_changed`: sent when the memories change — by our worker, a forget, or
another process — and advertised in the `initialize` answer."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio

from tests.mcp_server.conftest import cli, mcp_session, payload

PREFERENCE = "From now on, answer in English when I write in English."
DECISION = "项目统一使用 Python 3.10+。"


class Inbox:
    def __init__(self) -> None:
        self.list_changed = 0

    async def __call__(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/resources/list_changed":
            self.list_changed += 1

    async def wait(self, more_than: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while self.list_changed <= more_than and time.monotonic() < deadline:
            await anyio.sleep(0.05)
        assert self.list_changed > more_than, "no notifications/resources/list_changed arrived"


def test_list_changed_is_advertised_and_sent_on_every_kind_of_change(project: Path) -> None:
    inbox = Inbox()

    async def main() -> None:
        async with mcp_session(project, on_message=inbox) as session:
            initialized = session.initialize_result
            assert initialized is not None and initialized.capabilities.resources is not None
            assert initialized.capabilities.resources.list_changed is True
            await anyio.sleep(1.5)
            assert inbox.list_changed == 0  # nothing changed, nothing sent
            # 1. our own background worker distils two recorded turns
            await session.call_tool("record_turn", {"user": PREFERENCE, "assistant": "OK."})
            await session.call_tool("record_turn", {"user": DECISION, "assistant": "收到。"})
            await inbox.wait(0)
            resources = [str(r.uri) for r in (await session.list_resources()).resources]
            assert sum(uri.startswith("autopatch-j://memory/") for uri in resources) == 2
            # 2. a forget through the server
            seen = inbox.list_changed
            memory_id = payload(await session.call_tool("memory_list", {}))["memories"][0]["id"]
            await session.call_tool("memory_forget", {"id": memory_id})
            await inbox.wait(seen)
            # 3. another process: `autopatch-j new` starts a new thread
            seen = inbox.list_changed
            assert (await anyio.to_thread.run_sync(lambda: cli(project, "new"))).code == 0
            await inbox.wait(seen)

    anyio.run(main)
