"""`memory_search` and `memory_read` as tools of the ordinary agent only (H-21, M-61).

The executors call the manager with the thread id bound at admission (`TurnTicket.thread_id`),
never with "the active thread now", so a concurrent `/new` does not move a running request to the
new thread (M-22). Repair agents never get these tools, not even their schemas (M-1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from autopatch_j.agent.tools import Tool
from autopatch_j.llm.provider import ToolSpec
from autopatch_j.memory import MemoryManager

if TYPE_CHECKING:
    from autopatch_j.memory import ReadResult, SearchHit

MEMORY_TOOL_NAMES = frozenset({"memory_search", "memory_read"})

MEMORY_SEARCH_SPEC = ToolSpec(
    name="memory_search",
    description=(
        "Search the project's Memory (the user's preferences, confirmed project decisions and the current "
        "discussion) by a few words in any order, Chinese or English. "
        "Returns at most 5 hits: id, kind, title, synopsis, match. "
        "Memory is not evidence about the code: read the code itself for facts."
    ),
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string", "description": "A few words naming the topic."}},
        "required": ["query"],
        "additionalProperties": False,
    },
)
MEMORY_READ_SPEC = ToolSpec(
    name="memory_read",
    description="Read one memory found by memory_search: its content, whether it is non-factual, and source excerpts.",
    parameters={
        "type": "object",
        "properties": {"memory_id": {"type": "integer", "description": "The id from memory_search."}},
        "required": ["memory_id"],
        "additionalProperties": False,
    },
)


class MemoryTools:
    """The two Memory tools of one request, bound to that request's thread id."""

    def __init__(self, *, manager: MemoryManager, thread_id: int) -> None:
        self._manager = manager
        self.thread_id = thread_id

    def tools(self) -> list[Tool]:
        return [Tool(MEMORY_SEARCH_SPEC, self._search), Tool(MEMORY_READ_SPEC, self._read)]

    def _search(self, arguments: Mapping[str, Any]) -> str:
        query = arguments.get("query")
        if not isinstance(query, str):
            raise ValueError("`query` must be a string")
        hits = self._manager.search(thread_id=self.thread_id, query=query)
        return json.dumps(search_payload(hits), ensure_ascii=False)

    def _read(self, arguments: Mapping[str, Any]) -> str:
        memory_id = arguments.get("memory_id")
        if isinstance(memory_id, str) and memory_id.strip().isdigit():
            memory_id = int(memory_id.strip())
        if isinstance(memory_id, bool) or not isinstance(memory_id, int):
            raise ValueError("`memory_id` must be an integer")
        result = self._manager.read_memory(thread_id=self.thread_id, memory_id=memory_id)
        if result is None:
            return json.dumps({"error": f"no readable memory with id {memory_id}"})
        return json.dumps(read_payload(result), ensure_ascii=False)


def search_payload(hits: Sequence[SearchHit]) -> list[dict[str, Any]]:
    """`memory_search`'s answer: at most 5 `{id, kind, title, synopsis, match}` (also served over MCP)."""
    return [
        {"id": h.memory_id, "kind": str(h.kind), "title": h.title, "synopsis": h.synopsis, "match": h.match}
        for h in hits
    ]


def read_payload(result: ReadResult) -> dict[str, Any]:
    """`memory_read`'s bounded answer: content and ≤ 3 source excerpts of ≤ 800 chars (also served over MCP)."""
    return {
        "id": result.memory_id,
        "kind": str(result.kind),
        "title": result.title,
        "content": result.content,
        "non_factual": result.non_factual,
        "excerpts": [{"turn_id": s.turn_id, "role": str(s.role), "quote": s.quote} for s in result.excerpts],
    }
