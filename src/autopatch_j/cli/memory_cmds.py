"""Memory commands: one handler each, shared by the REPL's slash commands and the subcommands (H-12).

Handlers take the AppContext and plain arguments, do the work through `MemoryManager`, and render
either JSON (stable, documented in the README) or text. Errors propagate as typed exceptions; the
single error boundary in `app.py` turns them into one sentence and an exit code.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar

import typer

from autopatch_j.app.context import AppContext
from autopatch_j.app.errors import message_for
from autopatch_j.app.payloads import item_payload
from autopatch_j.app.render import emit_json, say, timestamp
from autopatch_j.cli.invocation import app_context
from autopatch_j.cli.lazy import LazyGroup
from autopatch_j.cli.status_cmd import run_status
from autopatch_j.memory.records import ItemDetail


class MemoryGroup(LazyGroup):
    """`memory …`: the commands below, and those of other modules, imported only when they run."""

    lazy_commands: ClassVar[dict[str, str]] = {
        "search": "autopatch_j.cli.search_cmds:register",
        "reindex": "autopatch_j.cli.search_cmds:register",
        "ingest": "autopatch_j.cli.pipeline_cmds:register",
        "drain": "autopatch_j.cli.pipeline_cmds:register",
        "import": "autopatch_j.cli.import_cmds:register",
        "publish": "autopatch_j.cli.publish_cmds:register",
    }


memory_app = typer.Typer(help="Inspect and manage the project's Memory.", cls=MemoryGroup, no_args_is_help=True)

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")]


# -- status: cli/status_cmd.py (`memory status` also starts there without typer, cli/launch.py) ------


# -- list / show / forget --------------------------------------------------------------------------


def detail_payload(detail: ItemDetail) -> dict[str, Any]:
    item = detail.item
    return {
        **item_payload(item),
        "revision": item.revision,
        "thread_id": item.thread_id,
        "non_factual": item.non_factual,
        "aliases": list(item.aliases),
        "keywords": list(item.keywords),
        "superseded_by": item.superseded_by,
        "sources": [{"turn_id": s.turn_id, "role": s.role.value, "quote": s.quote} for s in detail.sources],
        "revisions": [
            {
                "revision": r.revision,
                "status": r.status.value,
                "operation": r.operation,
                "title": r.title,
                "content": r.content,
                "created_at": timestamp(r.created_at),
            }
            for r in detail.revisions
        ],
    }


def run_list(app: AppContext, *, as_json: bool) -> None:
    items = app.manager().list_items()
    if as_json:
        emit_json(app.console, [item_payload(item) for item in items])
        return
    if not items:
        say(app.console, "No memories yet.")
        return
    from rich.table import Table  # only when there is a table to draw (cold start)

    table = Table("id", "kind", "title", "content", "updated", show_lines=False)
    for item in items:
        table.add_row(str(item.memory_id), item.kind.value, item.title, item.content, timestamp(item.updated_at))
    app.console.print(table, markup=False)


def run_show(app: AppContext, memory_id: int, *, as_json: bool) -> None:
    detail = app.manager().show_item(memory_id)
    payload = detail_payload(detail)
    if as_json:
        emit_json(app.console, payload)
        return
    c = app.console
    say(
        c,
        f"#{payload['id']} {payload['title']}  [{payload['kind']}, {payload['status']}, revision "
        f"{payload['revision']}]",
        "bold",
    )
    say(c, payload["content"])
    if payload["non_factual"]:
        say(c, "(discussion context: not a fact about the code)", "dim")
    say(c, "sources:")
    for source in payload["sources"]:
        say(c, f"  turn {source['turn_id']} ({source['role']}): “{source['quote']}”")
    if len(payload["revisions"]) > 1:
        say(c, "revisions:")
        for rev in payload["revisions"]:
            say(c, f"  r{rev['revision']} {rev['operation']} {rev['status']}: {rev['content']}")


def run_forget(app: AppContext, memory_id: int, *, as_json: bool) -> None:
    item = app.manager().forget(memory_id)
    if as_json:
        emit_json(app.console, {"id": item.memory_id, "status": item.status.value, "raw_turns_kept": True})
        return
    say(app.console, f"Forgot memory {item.memory_id} ({item.title}). It no longer reaches routing or search.")
    say(app.console, "The RAW turns it came from are kept; a new explicit statement can form a new memory.")


# -- clear / export ----------------------------------------------------------------------------------


def run_clear(app: AppContext, *, confirm: bool, as_json: bool) -> None:
    result = app.manager().clear(confirm=confirm)
    copy = str(result.damaged_copy) if result.damaged_copy else None
    if as_json:
        emit_json(
            app.console,
            {
                "generation": result.generation,
                "thread_id": result.thread_id,
                "rebuilt": result.rebuilt,
                "damaged_copy": copy,
            },
        )
        return
    say(app.console, f"Memory cleared: generation {result.generation}, new empty thread {result.thread_id}.")
    if result.rebuilt:
        say(app.console, "The degraded database file was replaced by a fresh v2 database.")
    if copy:
        say(app.console, f"The damaged file was kept in {copy}.")
        say(
            app.console,
            f"RAW turns may still be salvageable from it: `sqlite3 {copy}/memory.db .recover > recovered.sql`.",
        )
    say(app.console, "Export files and CLI history were kept.")


def run_export(app: AppContext, *, as_json: bool) -> None:
    from autopatch_j.memory.export import RAW_NOTICE

    result = app.manager().export()
    if as_json:
        emit_json(app.console, {"path": str(result.path), "notice": RAW_NOTICE, "unreadable": list(result.unreadable)})
        return
    say(app.console, str(result.path))
    if result.unreadable:
        say(
            app.err_console,
            f"warning: these tables could not be read and are missing from the export: {', '.join(result.unreadable)}",
            "yellow",
        )
    say(app.err_console, RAW_NOTICE, "dim")


# -- threads and workspace --------------------------------------------------------------------------------


def give_old_thread_one_chance(app: AppContext, thread_id: int) -> list[str]:
    """`/new`, step 1: the old thread's pending jobs get one processing chance (M-52 snapshot rules)."""
    from autopatch_j.app.pipelines import pipeline_for
    from autopatch_j.llm.errors import LLMError
    from autopatch_j.memory.drain import drain_thread
    from autopatch_j.memory.errors import ExtractorConfigError

    try:
        pipeline = pipeline_for(app)
    except (ExtractorConfigError, LLMError) as exc:
        return [f"the old thread's Memory jobs were left for later: {message_for(exc)}"]
    return list(drain_thread(pipeline, thread_id=thread_id).warnings)


def run_new(app: AppContext, *, as_json: bool, warnings: Sequence[str] = (), patch_aborted: bool = False) -> None:
    """`/new`, last step: archive the active thread and start a new one, then report."""
    archived, new = app.manager().start_new_thread()
    if as_json:
        emit_json(
            app.console,
            {
                "archived_thread_id": archived.id,
                "thread_id": new.id,
                "patch_aborted": patch_aborted,
                "warnings": list(warnings),
            },
        )
        return
    for warning in warnings:
        say(app.err_console, f"warning: {warning}", "yellow")
    if patch_aborted:
        say(app.console, "The pending patch was aborted.")
    say(app.console, f"Started thread {new.id}; thread {archived.id} was archived.")
    say(
        app.console,
        "Preferences, decisions, RAW turns, exports and CLI history are kept; "
        "the old discussion is no longer in context.",
    )


def run_reset(app: AppContext, *, as_json: bool) -> None:
    workspace = app.manager().paths.workspace
    existed = workspace.exists()
    if existed:
        shutil.rmtree(workspace)
    if as_json:
        emit_json(app.console, {"workspace_cleared": existed, "memory_kept": True})
        return
    if existed:
        say(app.console, "Cleared the review workspace, scan results, code index and request cache.")
    else:
        say(app.console, "There was no review workspace to clear (no scan results, code index or request cache).")
    say(
        app.console,
        "Memory was kept. To clear it too, run `autopatch-j memory clear --confirm` "
        "(`/memory clear --confirm` in the REPL).",
    )


# -- typer wiring --------------------------------------------------------------------------------------


@memory_app.command("status")
def status_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Show Memory health, background jobs and the last error (changes nothing)."""
    run_status(app_context(ctx), as_json=as_json)


@memory_app.command("list")
def list_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List the current derived memories (changes nothing)."""
    run_list(app_context(ctx), as_json=as_json)


@memory_app.command("show")
def show_command(
    ctx: typer.Context,
    memory_id: Annotated[int, typer.Argument(metavar="ID", help="The memory id shown by `memory list`.")],
    as_json: JsonOption = False,
) -> None:
    """Show one memory with its sources and revisions; works on a degraded store."""
    run_show(app_context(ctx), memory_id, as_json=as_json)


@memory_app.command("forget")
def forget_command(
    ctx: typer.Context,
    memory_id: Annotated[int, typer.Argument(metavar="ID", help="The memory id shown by `memory list`.")],
    as_json: JsonOption = False,
) -> None:
    """Take a memory out of routing and search; its RAW turns are kept."""
    run_forget(app_context(ctx), memory_id, as_json=as_json)


@memory_app.command("clear")
def clear_command(
    ctx: typer.Context,
    confirm: Annotated[bool, typer.Option("--confirm", help="Required: really delete all Memory data.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Delete all Memory data and start one empty thread (needs --confirm); exports and history are kept."""
    run_clear(app_context(ctx), confirm=confirm, as_json=as_json)


@memory_app.command("export")
def export_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Write a new RAW JSON snapshot under .autopatch-j/exports/ and print its path."""
    run_export(app_context(ctx), as_json=as_json)


def register_group(app: typer.Typer) -> None:
    """Add the `memory` command group to the root application."""
    app.add_typer(memory_app, name="memory")


def register_top_level(app: typer.Typer) -> None:
    """`autopatch-j new` and `autopatch-j reset`."""

    @app.command("new")
    def new_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
        """Give the old thread's jobs one chance, abort the pending patch, start a new thread (like /new)."""
        from autopatch_j.cli.ask_cmds import workspace_for

        app_ctx = app_context(ctx)
        old = app_ctx.manager().active_thread()  # refuses on a degraded store before anything changes
        warnings = give_old_thread_one_chance(app_ctx, old.id)
        aborted = workspace_for(app_ctx).clear_pending_patch()
        run_new(app_ctx, as_json=as_json, warnings=warnings, patch_aborted=aborted)

    @app.command("gitignore")
    def gitignore_command(ctx: typer.Context) -> None:
        """Add .autopatch-j/ to the project's .gitignore (Memory holds RAW conversation)."""
        from autopatch_j.app import gitignore

        app_ctx = app_context(ctx)
        added = gitignore.add_entry(app_ctx.root)
        say(
            app_ctx.console,
            "Added .autopatch-j/ to .gitignore." if added else ".gitignore already lists .autopatch-j/.",
        )

    @app.command("reset")
    def reset_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
        """Clear the review workspace, scan results, index and request cache; Memory is kept."""
        run_reset(app_context(ctx), as_json=as_json)
