"""The MCP resources: `autopatch-j://context` and one `autopatch-j://memory/{id}` per active memory.

`resources/list` is computed on every call (the memories change while the server runs): the
server's `list_resources` appends `memory_resources()` to the static context resource; reading a
memory goes through the `autopatch-j://memory/{id}` template. A memory reads as
the JSON of `memory_read` (bounded); the context as the routing context text. Failures of ours are
`ResourceError` with the CLI's sentence (`ResourceNotFoundError` for an id that is not active).
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import Resource

from autopatch_j.app.errors import exit_code_for, message_for
from autopatch_j.mcp_server.service import MemoryService
from autopatch_j.memory import UnknownMemoryError

CONTEXT_URI = "autopatch-j://context"
MEMORY_URI = "autopatch-j://memory/{id}"


def memory_uri(memory_id: int) -> str:
    return MEMORY_URI.format(id=memory_id)


def _resource_errors(exc: Exception) -> Exception:
    if isinstance(exc, UnknownMemoryError):
        return ResourceNotFoundError(message_for(exc))
    if exit_code_for(exc) is None:
        return exc
    return ResourceError(message_for(exc))


def memory_resources(service: MemoryService) -> list[Resource]:
    """One resource per active memory now; none on a degraded or locked store (the context explains)."""
    try:
        items = service.items()
    except Exception as exc:
        if _resource_errors(exc) is exc:
            raise
        return []
    return [
        Resource(
            uri=memory_uri(item.memory_id),
            name=f"memory-{item.memory_id}",
            title=item.title,
            description=f"{item.kind.value}: {item.content[:160]}",
            mime_type="application/json",
        )
        for item in items
    ]


def register_resources(server: MCPServer[Any], service: MemoryService) -> None:
    @server.resource(
        CONTEXT_URI,
        name="context",
        title="Memory context",
        description="The bounded Memory context (≤ 4,000 chars) autopatch-j's own agent injects.",
        mime_type="text/plain",
    )
    def context() -> str:
        try:
            return str(service.context()["context"])
        except Exception as exc:
            raise _resource_errors(exc) from exc

    @server.resource(
        MEMORY_URI,
        name="memory",
        title="One active memory",
        description="An active memory with ≤ 3 source excerpts of ≤ 800 chars (as the memory_read tool).",
        mime_type="application/json",
    )
    def memory(id: str) -> str:
        if not id.isdigit():
            raise ResourceNotFoundError(f"{id!r} is not a memory id; memory ids are positive integers.")
        try:
            return json.dumps(service.read(int(id)), ensure_ascii=False)
        except Exception as exc:
            raise _resource_errors(exc) from exc
