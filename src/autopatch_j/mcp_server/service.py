"""What the MCP tools and resources do, as plain synchronous calls on the project's Memory.

Every method reuses the function the CLI or the agent host already uses — the same payloads, the
same bounds, the same exceptions — so an MCP client sees exactly what `autopatch-j memory … --json`
prints and what our own agent reads. Nothing here knows about the protocol: `tools.py` and
`resources.py` wrap these calls and turn our exceptions into MCP errors with the CLI's sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autopatch_j.agent.memory_tools import read_payload, search_payload
from autopatch_j.app.context import AppContext
from autopatch_j.app.payloads import item_payload, status_payload
from autopatch_j.memory import Intent, Item, MemoryKind, TurnOutcome, UnknownMemoryError


def unknown_active(memory_id: int) -> UnknownMemoryError:
    """The sentence `autopatch-j memory forget` prints for an id that is not an active memory."""
    return UnknownMemoryError(f"No active memory with id {memory_id}; `autopatch-j memory list` shows the active ids.")


@dataclass
class MemoryService:
    """One project's Memory as the MCP server serves it; `notify` wakes the background worker."""

    app: AppContext
    notify: Callable[[], None]

    def _thread_id(self) -> int:
        return self.app.manager().active_thread().id

    def search(self, query: str) -> list[dict[str, Any]]:
        """The same ≤ 5 hits as `memory search` (active thread, as a request admitted now would see)."""
        return search_payload(self.app.manager().search(thread_id=self._thread_id(), query=query))

    def read(self, memory_id: int) -> dict[str, Any]:
        """The host's bounded `memory_read`: content plus ≤ 3 source excerpts of ≤ 800 characters."""
        result = self.app.manager().read_memory(thread_id=self._thread_id(), memory_id=memory_id)
        if result is None:
            raise unknown_active(memory_id)
        return read_payload(result)

    def items(self, kind: MemoryKind | None = None) -> list[Item]:
        return [item for item in self.app.manager().list_items() if kind is None or item.kind is kind]

    def list(self, kind: MemoryKind | None = None) -> list[dict[str, Any]]:
        """`memory list --json`, optionally only one kind."""
        return [item_payload(item) for item in self.items(kind)]

    def status(self) -> dict[str, Any]:
        """`memory status --json` (works on a degraded store; RAW errors only with AUTOPATCH_DEBUG)."""
        return status_payload(self.app.manager().status(), debug=self.app.debug)

    def context(self) -> dict[str, Any]:
        """The routing context the host injects into its system prompt (≤ 4,000 characters)."""
        thread_id = self._thread_id()
        text = self.app.manager().routing_context(thread_id=thread_id)
        return {"thread_id": thread_id, "context": text, "chars": len(text)}

    def forget(self, memory_id: int) -> dict[str, Any]:
        """`memory forget ID --json`."""
        item = self.app.manager().forget(memory_id)
        return {"id": item.memory_id, "status": item.status.value, "raw_turns_kept": True}

    def publish(self, *, to: str, dry_run: bool, remove: bool) -> dict[str, Any]:
        """`memory publish [--to …] [--dry-run] [--remove] --json`: the project's decisions in AGENTS.md /
        CLAUDE.md (never the user-level files: preferences stay with the CLI's `--user`)."""
        from autopatch_j.app.publish.service import publish, publish_payload, targets_for

        report = publish(self.app, targets=targets_for(to), remove=remove, write=not dry_run)
        return publish_payload(report, dry_run=dry_run, check=False, remove=remove)

    def record_turn(self, user: str, assistant: str) -> dict[str, Any]:
        """Admit one finished exchange as an ordinary turn (begin → complete), then wake the worker."""
        manager = self.app.manager()
        ticket = manager.begin_turn(user, Intent.GENERAL_CHAT)
        outcome = manager.complete_turn(ticket, assistant)
        self.notify()
        return {
            "turn_id": ticket.turn_id,
            "thread_id": ticket.thread_id,
            "recorded": outcome is TurnOutcome.RECORDED,
        }
