"""`autopatch-j ask` (one request through the same admission and agent path as the REPL, H-12) and
`autopatch-j patch show|accept|discard` (the REPL's patch actions as subcommands).

`build_host(app)` is the one place that assembles an `AgentHost` for a process: the project's
Memory, the LLM provider, the review workspace under `.autopatch-j/workspace/` and Semgrep when it
is installed. The provider comes from `providers.provider_factory(app)` — by default the OpenAI-compatible
provider built from `app.llm_settings()` (docs/configuration.md: environment over `.autopatch-j/config.toml`); tests
replace that module attribute `provider_factory` (or pass `provider=`) to inject a canned or
loopback provider. No LLM configured → `LLMConfigError` naming the variables to set (exit 5).

After the answer, `ask` runs the REPL's bounded exit drain (M-52: every due Memory job gets one
chance, ≤ 60 s) so `memory list` shows what the exchange taught; `--no-drain` skips it. Its
warnings go to stderr and never change the exit code. With the `publish` setting on
(docs/publish.md) the decisions are then republished, as `memory drain` does; a refusal is one
`error:` line on stderr and exit 1 (the answer and the drained memories stand).

JSON output (`--json`) is stable:

    ask:   {"intent", "route": {"source", "fallback_reason"}, "answer", "turn_id", "thread_id",
            "pending_patch": null | {"path", "search", "replace", "file_sha256", "explanation"}}
    patch show:    {"pending_patch": null | {…, "state": "applies" | "file changed" | "file missing" |
                    "does not match"}}
    patch accept:  {"applied": {"path", "old_sha256", "new_sha256"}}
    patch discard: {"discarded": {"path"}}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from autopatch_j.app import providers
from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, say
from autopatch_j.cli.invocation import app_context
from autopatch_j.memory.records import Intent

if TYPE_CHECKING:  # the agent stack is imported when a command needs it (CLI cold start)
    from autopatch_j.agent.host import AgentHost, RequestResult
    from autopatch_j.agent.intents import RouteDecision
    from autopatch_j.llm.provider import LLMProvider
    from autopatch_j.workspace.patch import AppliedPatch, PendingPatch
    from autopatch_j.workspace.store import ReviewWorkspace


def keep_unanswered(app: AppContext, text: str, *, has_pending_patch: bool) -> Intent | None:
    """Without an LLM: admit an ordinary message for Memory as a turn with no answer (its extraction
    job is queued like any turn's); returns its intent, or None when the rules route it to a review
    or an explanation, which never use Memory and are not kept (M-1)."""
    from autopatch_j.agent.intents import rule_intent

    intent = rule_intent(app.root, text, has_pending_patch=has_pending_patch) or Intent.GENERAL_CHAT
    if not intent.uses_memory:
        return None
    manager = app.manager()
    manager.complete_turn(manager.begin_turn(text, intent), "")
    return intent


def workspace_for(app: AppContext) -> ReviewWorkspace:
    from autopatch_j.workspace.store import ReviewWorkspace

    return ReviewWorkspace(directory=app.manager().paths.workspace)


def build_host(app: AppContext, provider: LLMProvider | None = None) -> AgentHost:
    """The process's `AgentHost` (used by `ask` and the REPL); starts the turn-lease heartbeat."""
    from autopatch_j.agent.host import AgentHost
    from autopatch_j.agent.scanner import SemgrepScanner

    manager = app.manager()
    llm = provider if provider is not None else providers.provider_factory(app)
    manager.start_heartbeat()
    return AgentHost(
        manager=manager,
        provider=llm,
        root=app.root,
        workspace=workspace_for(app),
        scanner=SemgrepScanner.detect(),
    )


# -- payloads ---------------------------------------------------------------------------------------


def route_payload(route: RouteDecision, *, debug: bool) -> dict[str, Any]:
    reason = route.fallback_reason
    if reason is not None and not debug:
        reason = reason.split(":", 1)[0]  # concise in normal mode (M-72); AUTOPATCH_DEBUG shows it all
    return {"source": route.source, "fallback_reason": reason}


def patch_payload(patch: PendingPatch | None) -> dict[str, Any] | None:
    return None if patch is None else patch.to_dict()


def result_payload(result: RequestResult, *, debug: bool) -> dict[str, Any]:
    return {
        "intent": result.intent.value,
        "route": route_payload(result.route, debug=debug),
        "answer": result.answer,
        "turn_id": result.turn_id,
        "thread_id": result.thread_id,
        "pending_patch": patch_payload(result.pending_patch),
    }


def applied_payload(applied: AppliedPatch) -> dict[str, Any]:
    return {"path": applied.path, "old_sha256": applied.old_sha256, "new_sha256": applied.new_sha256}


# -- handlers (shared with the REPL) ------------------------------------------------------------------


def run_ask(
    app: AppContext,
    text: str,
    *,
    intent: Intent | None = None,
    as_json: bool = False,
    host: AgentHost | None = None,
) -> RequestResult:
    """One request; the answer is streamed to stdout as plain text (or printed once as JSON)."""
    agent = host if host is not None else build_host(app)
    if as_json:
        result = agent.handle(text, intent=intent)
        emit_json(app.console, result_payload(result, debug=app.debug))
        return result
    out = app.console.file

    def on_delta(piece: str) -> None:
        out.write(piece)
        out.flush()

    result = agent.handle(text, intent=intent, on_delta=on_delta)
    if not result.answer.endswith("\n"):
        out.write("\n")
        out.flush()
    if result.truncated:
        from autopatch_j.agent.host import TRUNCATED_NOTE

        say(app.err_console, TRUNCATED_NOTE, "yellow")
    if app.debug or (result.route.source == "fallback" and result.route.announce):
        payload = route_payload(result.route, debug=app.debug)
        note = f"route: {result.intent.value} ({payload['source']})"
        if payload["fallback_reason"]:
            note += f" — {payload['fallback_reason']}"
        say(app.err_console, note, "dim")
    return result


def run_exit_drain(app: AppContext, provider: LLMProvider | None) -> list[str]:
    """`ask`'s exit drain (M-52): the REPL's bounded round (≤ 60 s), so the turn's memories
    exist when `ask` returns. Warnings are returned; jobs left over wait for the next drain."""
    from autopatch_j.app.errors import message_for
    from autopatch_j.memory.drain import drain_at_exit
    from autopatch_j.memory.errors import MemoryEngineError
    from autopatch_j.memory.extractor import choose_extractor
    from autopatch_j.memory.pipeline import Pipeline

    try:
        extractor = choose_extractor(mode=app.extractor_mode, provider=provider)
        pipeline = Pipeline.for_manager(app.manager(), extractor=extractor)
    except MemoryEngineError as exc:
        return [f"Memory jobs were left for later: {message_for(exc)}"]
    return list(drain_at_exit(pipeline).warnings)


def republish_after_exit_drain(app: AppContext, publish_to: tuple[str, ...]) -> None:
    """With the `publish` setting on, republish the decisions as `memory drain` does: a refusal is one
    `error:` line on stderr and exit 1; the answer, the turn and the drained memories stand."""
    from autopatch_j.app.publish.service import publish_after_drain

    error = publish_after_drain(app, publish_to).error
    if error is not None:
        say(app.err_console, f"error: {error}", "yellow")
        raise typer.Exit(1)


def run_patch_show(app: AppContext, *, as_json: bool) -> None:
    from autopatch_j.workspace.patch import patch_state

    patch = workspace_for(app).pending_patch()
    state = patch_state(app.root, patch) if patch is not None else None
    if as_json:
        payload = patch_payload(patch)
        emit_json(app.console, {"pending_patch": None if payload is None else {**payload, "state": state}})
        return
    if patch is None:
        say(app.console, "No pending patch.")
        return
    say(app.console, f"Pending patch for {patch.path} ({state}):", "bold")
    say(app.console, patch.explanation)
    say(app.console, patch.diff())
    say(app.console, "Accept: autopatch-j patch accept   Discard: autopatch-j patch discard", "dim")


def run_patch_accept(app: AppContext, *, as_json: bool, host: AgentHost | None = None) -> AppliedPatch:
    applied = host.accept_patch() if host is not None else workspace_for(app).accept(app.root)
    if as_json:
        emit_json(app.console, {"applied": applied_payload(applied)})
    else:
        say(app.console, f"Applied the patch to {applied.path}.")
    return applied


def run_patch_discard(app: AppContext, *, as_json: bool, host: AgentHost | None = None) -> None:
    workspace = host.workspace if host is not None else workspace_for(app)
    patch = workspace.discard()
    if as_json:
        emit_json(app.console, {"discarded": {"path": patch.path}})
    else:
        say(app.console, f"Discarded the pending patch for {patch.path}.")


# -- typer wiring -----------------------------------------------------------------------------------

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")]

patch_app = typer.Typer(help="Show, accept or discard the pending patch of a code audit.", no_args_is_help=True)


@patch_app.command("show")
def patch_show_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Show the pending patch and whether it still applies (changes nothing)."""
    run_patch_show(app_context(ctx), as_json=as_json)


@patch_app.command("accept")
def patch_accept_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Apply the pending patch atomically after re-checking the file's content."""
    run_patch_accept(app_context(ctx), as_json=as_json)


@patch_app.command("discard")
def patch_discard_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Drop the pending patch without touching the file."""
    run_patch_discard(app_context(ctx), as_json=as_json)


def register(app: typer.Typer) -> None:
    """Add `ask` and `patch show|accept|discard` to the root application."""

    @app.command("ask")
    def ask_command(
        ctx: typer.Context,
        text: Annotated[str, typer.Argument(metavar="TEXT", help="The request, as you would type it in the REPL.")],
        intent: Annotated[
            Intent | None,
            typer.Option("--intent", case_sensitive=False, help="Skip routing and use this intent."),
        ] = None,
        as_json: JsonOption = False,
        no_drain: Annotated[
            bool,
            typer.Option("--no-drain", help="Skip the exit drain (≤ 60 s) that turns this exchange into memories."),
        ] = False,
    ) -> None:
        """Send one request through the same admission and agent path as the REPL; the answer goes to stdout."""
        from autopatch_j.app.publish.settings import read_publish_targets

        app = app_context(ctx)
        publish_to = () if no_drain else read_publish_targets(app.environ, app.root)  # a bad value exits 5
        provider = providers.provider_factory(app)
        run_ask(app, text, intent=intent, as_json=as_json, host=build_host(app, provider=provider))
        if not no_drain:
            for warning in run_exit_drain(app, provider):
                say(app.err_console, f"warning: {warning}", "yellow")
            republish_after_exit_drain(app, publish_to)

    app.add_typer(patch_app, name="patch")
