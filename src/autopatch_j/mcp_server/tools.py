"""The MCP tools: typed input schemas, honest annotations, errors as the CLI's one sentence.

| tool | annotations | returns (structured content; the text block is the same JSON) |
|---|---|---|
| `memory_search(query)` | read-only | `{"hits": [{id, kind, title, synopsis, match}]}`, ≤ 5, never padded |
| `memory_read(id)` | read-only | `{id, kind, title, content, non_factual, excerpts: [{turn_id, role, quote}]}` |
| `memory_list(kind?)` | read-only | `{"memories": [{id, kind, title, content, status, updated_at}]}` |
| `memory_status()` | read-only | the keys of `memory status --json` |
| `memory_context()` | read-only | `{"thread_id", "context", "chars"}` — the routing context (≤ 4,000 chars) |
| `memory_forget(id)` | destructive, idempotent | `{id, status, raw_turns_kept}` |
| `record_turn(user, assistant)` | additive (not destructive) | `{turn_id, thread_id, recorded}` |
| `memory_publish(to?, dry_run?, remove?)` | writes files, idempotent | the keys of `memory publish --json` |

`--read-only` leaves out the last three. A failure of ours (degraded store, unknown id, empty text, a
locked database) becomes `ToolError(message)`: the SDK answers `isError: true` with exactly the
sentence `autopatch-j` prints after `error: `, and the server stays up.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from autopatch_j.app.errors import exit_code_for, message_for
from autopatch_j.mcp_server.service import MemoryService
from autopatch_j.memory import MemoryKind

P = ParamSpec("P")
R = TypeVar("R")

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
FORGET = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
RECORD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
PUBLISH = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
WRITE_TOOLS = frozenset({"memory_forget", "record_turn", "memory_publish"})

MemoryId = Annotated[int, Field(description="A memory id, as shown by memory_search or memory_list.")]
KindName = Literal["user_preference", "project_decision", "discussion_context"]


def tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Our packages' exceptions become a tool error with the CLI's sentence; anything else is a bug."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if exit_code_for(exc) is None:
                raise
            raise ToolError(message_for(exc)) from exc

    return wrapper


def argument_sentence(tool: str, error: ValidationError) -> str:
    """Pydantic's report on bad arguments as one sentence, like the CLI's usage errors."""
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "arguments"
    if first["type"] == "missing":
        return f"{tool} needs the argument '{field}'."
    return f"Invalid value for '{field}' of {tool}: {first['msg'].rstrip('.')} (got {first.get('input')!r})."


def register_tools(server: MCPServer[Any], service: MemoryService, *, read_only: bool) -> None:
    def _add(fn: Callable[..., dict[str, Any]], annotations: ToolAnnotations) -> None:
        description = inspect.cleandoc(fn.__doc__ or "")
        server.add_tool(fn, description=description, annotations=annotations, structured_output=True)

    @tool_errors
    def memory_search(
        query: Annotated[str, Field(description="A few words naming the topic (titles, aliases, keywords).")],
    ) -> dict[str, Any]:
        """Search the project's Memory: the user's stated preferences, confirmed project decisions and the
        current discussion. At most 5 hits (id, kind, title, synopsis, match); none when nothing matches.
        Memory is not evidence about the code: read the code itself for facts."""
        return {"hits": service.search(query)}

    @tool_errors
    def memory_read(id: MemoryId) -> dict[str, Any]:
        """Read one memory found by memory_search: its content, whether it is non-factual (discussion
        context), and at most 3 source excerpts of at most 800 characters, each an exact quote of a turn."""
        return service.read(id)

    @tool_errors
    def memory_list(
        kind: Annotated[KindName | None, Field(description="Only memories of this kind (default: all).")] = None,
    ) -> dict[str, Any]:
        """List the current memories (repo preferences and decisions, and this thread's discussion context)."""
        return {"memories": service.list(MemoryKind(kind) if kind else None)}

    @tool_errors
    def memory_status() -> dict[str, Any]:
        """Memory health (healthy/degraded + reason), schema version, generation, counts, background jobs
        by status and the last error — the same keys as `autopatch-j memory status --json`."""
        return service.status()

    @tool_errors
    def memory_context() -> dict[str, Any]:
        """The bounded Memory context (≤ 4,000 characters) that autopatch-j's own agent puts in its system
        prompt: confirmed decisions, preferences and the current discussion. Use it to ground a conversation."""
        return service.context()

    _add(memory_search, READ_ONLY)
    _add(memory_read, READ_ONLY)
    _add(memory_list, READ_ONLY)
    _add(memory_status, READ_ONLY)
    _add(memory_context, READ_ONLY)
    if read_only:
        return

    @tool_errors
    def memory_forget(id: MemoryId) -> dict[str, Any]:
        """Forget one memory: it leaves the context and search, its old candidates are suppressed; the RAW
        turns it came from are kept. Irreversible (a new explicit statement can form a new memory)."""
        return service.forget(id)

    @tool_errors
    def record_turn(
        user: Annotated[str, Field(description="Exactly what the user typed in this exchange.")],
        assistant: Annotated[str, Field(description="The final answer the user saw.")],
    ) -> dict[str, Any]:
        """Record one finished exchange into Memory as an ordinary turn. Call it once per exchange, after the
        answer was shown, with the user's own words and the final answer. Background extraction keeps only
        what the user explicitly stated (preferences, confirmed decisions), each verified against a quote."""
        return service.record_turn(user, assistant)

    @tool_errors
    def memory_publish(
        to: Annotated[
            Literal["agents", "claude", "all"], Field(description="AGENTS.md, CLAUDE.md or both (default).")
        ] = "all",
        dry_run: Annotated[bool, Field(description="Only return the unified diff; write nothing.")] = False,
        remove: Annotated[bool, Field(description="Take the managed block out instead.")] = False,
    ) -> dict[str, Any]:
        """Write the project's confirmed decisions into the autopatch-j block of AGENTS.md and/or CLAUDE.md at
        the project root (created if missing); nothing outside the block changes. Idempotent: an unchanged
        block is not rewritten. Personal preferences are never written to these files."""
        return service.publish(to=to, dry_run=dry_run, remove=remove)

    _add(memory_forget, FORGET)
    _add(record_turn, RECORD)
    _add(memory_publish, PUBLISH)
