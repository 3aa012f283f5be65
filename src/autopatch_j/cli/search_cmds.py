"""`autopatch-j memory search QUERY [--json]`: the agent's `memory_search`, for people and scripts;
`autopatch-j memory reindex [--json]` rebuilds the search terms (derived data) from the active memories.

JSON output is a list of `{id, kind, title, synopsis, match}` (`[]` when nothing matches — never
padded, M-65). The search runs in the current active thread, exactly as an ordinary request
admitted now would see it (repo preferences and decisions, and this thread's discussions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, say
from autopatch_j.cli.invocation import app_context
from autopatch_j.memory.search import SearchHit


def hit_payload(hit: SearchHit) -> dict[str, Any]:
    return {
        "id": hit.memory_id,
        "kind": hit.kind.value,
        "title": hit.title,
        "synopsis": hit.synopsis,
        "match": hit.match,
    }


def run_search(app: AppContext, query: str, *, as_json: bool) -> None:
    manager = app.manager()
    hits = manager.search(thread_id=manager.active_thread().id, query=query)
    if as_json:
        emit_json(app.console, [hit_payload(hit) for hit in hits])
        return
    if not hits:
        say(app.console, "No memories match.")
        return
    table = Table("id", "kind", "title", "synopsis", "match", highlight=False)
    for hit in hits:
        # Text cells: `[bold]` or `[/]` inside a title or synopsis is shown literally, never parsed (M-72).
        table.add_row(*(Text(v) for v in (str(hit.memory_id), hit.kind.value, hit.title, hit.synopsis, hit.match)))
    app.console.print(table)


def run_reindex(app: AppContext, *, as_json: bool) -> None:
    indexed = app.manager().reindex()
    if as_json:
        emit_json(app.console, {"indexed": indexed, "raw_turns_kept": True})
        return
    say(app.console, f"Rebuilt the search terms of {indexed} active memories. RAW turns and memories are unchanged.")


def register(memory_app: typer.Typer, get_context: Callable[[typer.Context], AppContext] = app_context) -> None:
    """Add `search` to the `memory` command group."""

    @memory_app.command("search")
    def search_command(
        ctx: typer.Context,
        query: Annotated[str, typer.Argument(metavar="QUERY", help="Words to look up in titles, aliases, keywords.")],
        as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON instead of a table.")] = False,
    ) -> None:
        """Search the current memories (what `memory_search` gives the agent); [] when nothing matches."""
        run_search(get_context(ctx), query, as_json=as_json)

    @memory_app.command("reindex")
    def reindex_command(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON instead of a sentence.")] = False,
    ) -> None:
        """Rebuild the search terms of every active memory (once, for stores made before word search)."""
        run_reindex(get_context(ctx), as_json=as_json)
