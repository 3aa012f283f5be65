"""`AgentHost`: the single entry for every non-command input, used by both `ask` and the REPL.

    host = AgentHost(manager=manager, provider=provider, root=root, workspace=workspace)
    result = host.handle("why does src/app.py retry twice?", on_delta=print_piece, cancel=event)

`handle` routes the text (H-20), then:

- ordinary intents (`code_explain`, `general_chat`) go through admission (M-20): `begin_turn` stores
  the RAW text BEFORE any main LLM call and binds the request to `ticket.thread_id`; history,
  routing context and the Memory tools all use that id even if another control flow runs `/new`
  meanwhile (M-22; the binding lives only in this call's locals, so it ends with the request).
  Success stores exactly the text streamed to the user (`complete_turn`); any failure or
  cancellation marks the turn failed with the user text kept (`fail_turn`) and re-raises.
- repair intents (`code_audit`, `patch_explain`, `patch_revise`) never touch Memory (M-1): no
  admission, no history, no routing context, no Memory tools.

The classifier call is not a turn. The route (with a fallback reason, M-73) is part of the result.

Cancellation: with a `cancel` event every model call of the request goes through
`CancellableProvider`, so setting it abandons a busy provider at once instead of waiting for it.
A cancellation while the classifier is still routing keeps the user's text too: the message is
admitted as the fallback route (`general_chat`, the route an unclassified message takes) and marked
failed "cancelled by the user" before `RequestCancelled` is raised — as docs/repl.md promises.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.agent.errors import EmptyRequest, RequestCancelled
from autopatch_j.agent.intents import RouteDecision, Router
from autopatch_j.agent.memory_tools import MemoryTools
from autopatch_j.agent.react import DEFAULT_MAX_ROUNDS, ReactAgent
from autopatch_j.agent.repair import RepairAgents, RepairOutcome
from autopatch_j.agent.scanner import SemgrepScanner
from autopatch_j.agent.tools import ProjectTools, Toolbox
from autopatch_j.llm.diagnostics import ErrorRecord
from autopatch_j.llm.errors import LLMCancelled, LLMError
from autopatch_j.llm.provider import LLMProvider, Message
from autopatch_j.llm.pump import CancellableProvider
from autopatch_j.memory import Intent, MemoryEngineError, MemoryManager, TurnTicket
from autopatch_j.workspace.errors import WorkspaceStorageError
from autopatch_j.workspace.patch import AppliedPatch, PendingPatch
from autopatch_j.workspace.store import ReviewWorkspace

DeltaSink = Callable[[str], None]

ORDINARY_PROMPT = """\
You are autopatch-j, a coding assistant working inside the project `{project}`.
For anything about this project's code, build or errors, read it live with the tools (list_files,
read_file, search_project; read-only, confined to the project) instead of guessing.
memory_search / memory_read find the user's stated preferences, confirmed project decisions and the
current discussion. Memory is not evidence about the code, and the user's current instruction always
wins over anything remembered. Answer in the user's language, in Markdown, concisely."""

MEMORY_CONTEXT_HEADING = "## Memory context"
TRUNCATED_NOTE = (
    "The answer stopped at the output cap (AUTOPATCH_LLM_MAX_OUTPUT_TOKENS); ask for the rest, or raise the cap."
)


@dataclass(frozen=True)
class RequestResult:
    intent: Intent
    route: RouteDecision
    answer: str
    turn_id: int | None
    thread_id: int | None
    pending_patch: PendingPatch | None
    truncated: bool = False  # the answer stopped at the output cap (AUTOPATCH_LLM_MAX_OUTPUT_TOKENS)


class AgentHost:
    def __init__(
        self,
        *,
        manager: MemoryManager,
        provider: LLMProvider,
        root: Path,
        workspace: ReviewWorkspace,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        scanner: SemgrepScanner | None = None,
    ) -> None:
        self._manager = manager
        self._provider = provider
        self._root = root.resolve()
        self._workspace = workspace
        self._max_rounds = max_rounds
        self._router = Router(provider=provider, root=self._root)
        self._repair = RepairAgents(provider=provider, root=self._root, workspace=workspace, scanner=scanner)
        self._patch_lock = threading.RLock()

    @property
    def workspace(self) -> ReviewWorkspace:
        return self._workspace

    # -- requests -----------------------------------------------------------------------------------

    def route(self, text: str, *, intent: Intent | None = None, provider: LLMProvider | None = None) -> RouteDecision:
        """Route without running anything (the classifier call may run).

        An unreadable pending-patch file counts as "no patch" here so that ordinary chat keeps
        working; the patch commands and patch intents still report it.
        """
        try:
            pending = self.pending_patch() is not None
        except WorkspaceStorageError:
            pending = False
        return self._router.route(text, has_pending_patch=pending, explicit=intent, provider=provider)

    def handle(
        self,
        text: str,
        *,
        intent: Intent | None = None,
        on_delta: DeltaSink | None = None,
        cancel: threading.Event | None = None,
    ) -> RequestResult:
        if not text.strip():
            raise EmptyRequest()
        provider = self._provider if cancel is None else CancellableProvider(self._provider, cancel)
        try:
            route = self.route(text, intent=intent, provider=provider)
        except (LLMCancelled, KeyboardInterrupt) as exc:
            self._keep_cancelled(text, Intent.GENERAL_CHAT)  # the route an unclassified message takes
            if isinstance(exc, LLMCancelled):
                raise RequestCancelled() from exc
            raise
        if cancel is not None and cancel.is_set():
            if route.intent.uses_memory:  # a repair request never touches Memory (M-1)
                self._keep_cancelled(text, route.intent)
            raise RequestCancelled()
        if route.intent.uses_memory:
            return self._ordinary(text, route, on_delta, cancel, provider)
        return self._repair_request(text, route, on_delta, cancel, provider)

    def _keep_cancelled(self, text: str, intent: Intent) -> None:
        """A request cancelled before its model call: keep the text as a failed ordinary turn."""
        with contextlib.suppress(MemoryEngineError):  # a degraded store: nothing can be kept anyway
            ticket = self._manager.begin_turn(text, intent)
            self._fail(ticket, RequestCancelled())

    def _ordinary(
        self,
        text: str,
        route: RouteDecision,
        on_delta: DeltaSink | None,
        cancel: threading.Event | None,
        provider: LLMProvider,
    ) -> RequestResult:
        ticket = self._manager.begin_turn(text, route.intent)  # RAW text first (M-20)
        try:
            messages = self._ordinary_messages(ticket, text)
            toolbox = Toolbox(
                [
                    *ProjectTools(root=self._root).tools(),
                    *MemoryTools(manager=self._manager, thread_id=ticket.thread_id).tools(),
                ]
            )
            agent = ReactAgent(provider=provider, toolbox=toolbox, max_rounds=self._max_rounds)
            result = agent.run(messages, on_delta=on_delta, cancel=cancel)
        except BaseException as exc:
            self._fail(ticket, exc)
            if isinstance(exc, LLMCancelled):
                raise RequestCancelled() from exc
            raise
        self._manager.complete_turn(ticket, result.answer)
        return RequestResult(
            intent=route.intent,
            route=route,
            answer=result.answer,
            turn_id=ticket.turn_id,
            thread_id=ticket.thread_id,
            pending_patch=None,
            truncated=result.truncated,
        )

    def _ordinary_messages(self, ticket: TurnTicket, text: str) -> Sequence[Message]:
        """System prompt (+ routing context), prior turns as messages (M-66), then the current text."""
        thread_id = ticket.thread_id  # bound at admission (M-22), never "the active thread now"
        context = self._manager.routing_context(thread_id=thread_id)
        system = ORDINARY_PROMPT.format(project=self._root.name or str(self._root))
        if context.strip():
            system = f"{system}\n\n{MEMORY_CONTEXT_HEADING}\n{context}"
        messages: list[Message] = [Message(role="system", content=system)]
        for turn in self._manager.history(thread_id=thread_id):
            messages.append(Message(role="user", content=turn.user_text))
            messages.append(Message(role="assistant", content=turn.assistant_text))
        messages.append(Message(role="user", content=text))
        return messages

    def _fail(self, ticket: TurnTicket, exc: BaseException) -> None:
        if isinstance(exc, RequestCancelled | LLMCancelled | KeyboardInterrupt):
            error = "cancelled by the user"
        elif isinstance(exc, LLMError):
            error = ErrorRecord.from_exception(exc).render()
        else:
            error = f"{type(exc).__name__}: {exc}"
        with contextlib.suppress(MemoryEngineError):  # the lease recovery marks it interrupted later
            self._manager.fail_turn(ticket, error)

    def _repair_request(
        self,
        text: str,
        route: RouteDecision,
        on_delta: DeltaSink | None,
        cancel: threading.Event | None,
        provider: LLMProvider,
    ) -> RequestResult:
        outcome: RepairOutcome
        repair = self._repair if provider is self._provider else self._repair.with_provider(provider)
        with self._patch_lock:
            try:
                if route.intent is Intent.CODE_AUDIT:
                    outcome = repair.audit(text, on_delta=on_delta, cancel=cancel)
                elif route.intent is Intent.PATCH_EXPLAIN:
                    outcome = repair.explain_patch(text, on_delta=on_delta, cancel=cancel)
                else:
                    outcome = repair.revise_patch(text, on_delta=on_delta, cancel=cancel)
            except LLMCancelled as exc:
                raise RequestCancelled() from exc
        return RequestResult(
            intent=route.intent,
            route=route,
            answer=outcome.answer,
            turn_id=None,
            thread_id=None,
            pending_patch=outcome.pending_patch,
        )

    # -- the pending patch (H-22, H-23) ---------------------------------------------------------------

    def pending_patch(self) -> PendingPatch | None:
        return self._workspace.pending_patch()

    def accept_patch(self) -> AppliedPatch:
        """Apply the pending patch atomically after re-checking the file; it stays pending on conflict."""
        with self._patch_lock:
            return self._workspace.accept(self._root)

    def discard_patch(self) -> None:
        """Drop the pending patch; `NoPendingPatch` without one."""
        with self._patch_lock:
            self._workspace.discard()

    def reset_temporary_state(self) -> None:
        """`/new`: abort the pending patch and drop temporary agent state (Memory is not touched)."""
        with self._patch_lock:
            self._workspace.clear_pending_patch()
