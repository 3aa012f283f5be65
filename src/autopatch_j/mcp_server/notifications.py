"""Resource list-changed notifications: clients learn when the memories change, whoever changed them.

A watcher polls `MemoryManager.items_fingerprint()` (one cheap statement) every second while the
server runs — so a memory distilled by our own worker, by a REPL or a `memory drain` in another
process, a forget, a `/new` or a `clear` are all seen — and on a change tells every connected client:

- clients of the 2026-07-28 protocol, through the SDK's public subscription bus (`subscriptions/listen`,
  which advertises `listChanged` by itself);
- clients of the handshake era (2025-xx: today's Claude Code, Cursor, VS Code, the Inspector),
  through `ServerSession.send_resource_list_changed()` on each session seen at `initialize`. Their
  `initialize` answer is amended by a middleware to advertise `resources.listChanged: true`: the
  SDK's `MCPServer` offers no public setting for it (it passes no `NotificationOptions` on stdio).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged

from autopatch_j.memory import MemoryEngineError

WATCH_SECONDS = 1.0
log = logging.getLogger("autopatch_j.mcp")


class ListChangedNotifier:
    def __init__(self, fingerprint: Callable[[], object], *, poll_s: float = WATCH_SECONDS) -> None:
        self._fingerprint = fingerprint
        self.poll_s = poll_s
        self.bus = InMemorySubscriptionBus()
        # The SDK builds a session object per request; the one of `initialize` stays usable for
        # notifications on the connection's own channel. Dropped when sending on it fails (gone).
        self._sessions: list[ServerSession] = []

    async def middleware(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """On `initialize`: remember the session and advertise `resources.listChanged`."""
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            resources = result.get("capabilities", {}).get("resources")
            if isinstance(resources, dict):
                resources["listChanged"] = True
                self._sessions.append(ctx.session)
        return result

    def _current(self) -> object:
        try:
            return self._fingerprint()
        except MemoryEngineError:
            return None  # degraded or locked right now: compare again at the next poll

    async def notify(self) -> None:
        await self.bus.publish(ResourcesListChanged())
        for session in list(self._sessions):
            try:
                await session.send_resource_list_changed()
            except Exception:  # a client that went away must not stop the others
                self._sessions.remove(session)

    async def watch(self) -> None:
        last = await anyio.to_thread.run_sync(self._current)
        while True:
            await anyio.sleep(self.poll_s)
            now = await anyio.to_thread.run_sync(self._current)
            if now is not None and now != last:
                log.info("memories changed: notifying clients")
                await self.notify()
            if now is not None:
                last = now

    @asynccontextmanager
    async def running(self, _server: object) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: the watcher runs exactly as long as the server does."""
        async with anyio.create_task_group() as group:
            group.start_soon(self.watch)
            yield {}
            group.cancel_scope.cancel()
