"""`AgentHost`: admission for ordinary intents (M-20), thread binding across a concurrent /new (M-22),
failed and cancelled turns keep the user's text, and repair intents never touch Memory (M-1)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.agent.errors import EmptyRequest, RequestCancelled
from autopatch_j.agent.host import MEMORY_CONTEXT_HEADING, AgentHost
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMProviderError, LLMTimeoutError
from autopatch_j.llm.provider import ChatRequest, ChatResponse, Purpose, StreamEvent, TextDelta, ToolCall
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent, MemoryKind, TurnTicket
from autopatch_j.runtime import FakeClock
from autopatch_j.workspace.errors import NoPendingPatch, WorkspaceStorageError
from autopatch_j.workspace.store import ReviewWorkspace
from tests.agent.conftest import AUDIT_WITH_PATCH, turn_rows
from tests.memory.item_factory import add_item, add_turn


def extraction_jobs(manager: MemoryManager, turn_id: int) -> int:
    with manager.db.read("test: jobs") as conn:
        return int(
            conn.execute(
                "SELECT count(*) FROM memory_jobs WHERE kind = 'extraction' AND turn_id = ?", (turn_id,)
            ).fetchone()[0]
        )


# -- ordinary requests: admission ------------------------------------------------------------------------


def test_an_ordinary_request_stores_the_raw_text_before_the_main_call_and_the_shown_answer_after(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    raw = "  Why does run() use a shell?\n  "
    seen_at_call: list[list[dict[str, Any]]] = []

    def answer(request: ChatRequest) -> str:
        seen_at_call.append(turn_rows(manager))
        return "Because it passes shell=True."

    canned.enqueue(Purpose.MAIN, answer)
    shown: list[str] = []
    result = host.handle(raw, intent=Intent.CODE_EXPLAIN, on_delta=shown.append)

    (before,) = seen_at_call[0]
    assert before["status"] == "open" and before["user_text"] == raw
    (row,) = turn_rows(manager)
    assert row["status"] == "completed" and row["user_text"] == raw
    assert row["assistant_text"] == "".join(shown) == result.answer == "Because it passes shell=True."
    assert (result.turn_id, result.thread_id) == (row["id"], manager.active_thread().id)
    assert result.intent is Intent.CODE_EXPLAIN and result.route.source == "explicit"
    assert result.turn_id is not None and extraction_jobs(manager, result.turn_id) == 1


def test_history_is_sent_as_messages_and_the_routing_context_in_the_system_prompt(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    add_turn(manager, user_text="earlier question", assistant_text="earlier answer")
    add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="answer first", content="Give the conclusion first.")
    canned.enqueue(Purpose.MAIN, "ok")
    host.handle("and now?", intent=Intent.GENERAL_CHAT)
    (request,) = canned.requests_for(Purpose.MAIN)
    pairs = [(m.role, m.content) for m in request.messages[1:]]
    assert pairs[:2] == [("user", "earlier question"), ("assistant", "earlier answer")]
    assert pairs[-1] == ("user", "and now?")
    system = request.messages[0].content or ""
    assert MEMORY_CONTEXT_HEADING in system and "Give the conclusion first." in system
    assert "earlier question" not in system
    assert {"memory_search", "memory_read"} <= {t.name for t in request.tools}


def test_an_empty_memory_adds_no_context_heading(host: AgentHost, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.MAIN, "hi")
    host.handle("hello")
    (request,) = canned.requests_for(Purpose.MAIN)
    assert MEMORY_CONTEXT_HEADING not in (request.messages[0].content or "")
    assert [m.role for m in request.messages] == ["system", "user"]


def test_the_classifier_call_is_not_a_turn_and_a_fallback_reason_survives_success(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    canned.enqueue(Purpose.CLASSIFIER, LLMTimeoutError("the LLM request timed out after 60 s"))
    canned.enqueue(Purpose.MAIN, "Answered anyway.")
    result = host.handle("something ambiguous about caching")
    assert result.answer == "Answered anyway."
    assert result.intent is Intent.GENERAL_CHAT and result.route.source == "fallback"
    assert result.route.fallback_reason is not None and "LLMTimeoutError" in result.route.fallback_reason
    assert len(turn_rows(manager)) == 1
    assert len(canned.requests_for(Purpose.CLASSIFIER)) == 1


def test_an_empty_message_is_refused_before_anything_runs(host: AgentHost, canned: CannedProvider) -> None:
    with pytest.raises(EmptyRequest):
        host.handle("  \n")
    assert canned.requests == []


# -- failed, crashed and cancelled turns keep the user's text (M-20) ----------------------------------------


def test_a_provider_failure_marks_the_turn_failed_and_keeps_the_user_text(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    canned.enqueue(Purpose.MAIN, LLMProviderError("upstream [bold]boom[/]", status=502, response_text="bad gateway"))
    with pytest.raises(LLMProviderError):
        host.handle("keep this text", intent=Intent.GENERAL_CHAT)
    (row,) = turn_rows(manager)
    assert (row["status"], row["user_text"], row["assistant_text"]) == ("failed", "keep this text", None)
    assert "LLMProviderError" in str(row["error"]) and "bad gateway" in str(row["error"])
    assert extraction_jobs(manager, int(row["id"])) == 1  # M-21: failed turns are extracted too


class _StreamThenCrash:
    """A provider whose stream shows some text, then dies (a crash in the middle of the answer)."""

    def complete(self, request: ChatRequest) -> ChatResponse:  # pragma: no cover - not used
        raise AssertionError

    def stream(self, request: ChatRequest) -> Iterator[StreamEvent]:
        yield TextDelta("partial ")
        raise RuntimeError("provider process crashed")


def test_a_crash_in_the_middle_of_the_stream_marks_the_turn_failed(
    manager: MemoryManager, project: Path, workspace: ReviewWorkspace
) -> None:
    host = AgentHost(manager=manager, provider=_StreamThenCrash(), root=project, workspace=workspace)
    shown: list[str] = []
    with pytest.raises(RuntimeError):
        host.handle("crash me", intent=Intent.GENERAL_CHAT, on_delta=shown.append)
    (row,) = turn_rows(manager)
    assert (row["status"], row["user_text"], row["assistant_text"]) == ("failed", "crash me", None)
    assert "provider process crashed" in str(row["error"])
    assert shown == ["partial "]


def test_a_cancelled_request_marks_the_turn_failed_and_keeps_the_user_text(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    canned.enqueue(Purpose.MAIN, "a long answer that the user stops")
    cancel = threading.Event()
    with pytest.raises(RequestCancelled):
        host.handle("stop me", intent=Intent.GENERAL_CHAT, on_delta=lambda _piece: cancel.set(), cancel=cancel)
    (row,) = turn_rows(manager)
    assert (row["status"], row["user_text"], row["assistant_text"]) == ("failed", "stop me", None)
    assert row["error"] == "cancelled by the user"


def test_ctrl_c_during_the_call_marks_the_turn_failed_and_propagates(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    canned.enqueue(Purpose.MAIN, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        host.handle("interrupt me", intent=Intent.GENERAL_CHAT)
    (row,) = turn_rows(manager)
    assert (row["status"], row["user_text"], row["error"]) == ("failed", "interrupt me", "cancelled by the user")


# -- thread binding across a concurrent /new (M-22) -------------------------------------------------------


def tool_call(name: str, **arguments: object) -> ChatResponse:
    return ChatResponse(content="", tool_calls=(ToolCall(id="c1", name=name, arguments=json.dumps(arguments)),))


def test_a_request_stays_bound_to_its_thread_when_another_flow_runs_new_mid_request(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    old_thread = manager.active_thread().id
    add_turn(manager, user_text="compare option A and option B", assistant_text="A is simpler")
    made = add_item(
        manager, kind=MemoryKind.DISCUSSION_CONTEXT, title="option A vs option B", content="Comparing A and B."
    )
    in_request, new_done = threading.Event(), threading.Event()

    def first_round(request: ChatRequest) -> ChatResponse:
        in_request.set()
        assert new_done.wait(10)
        return tool_call("memory_search", query="option A")

    canned.enqueue(Purpose.MAIN, first_round, tool_call("memory_read", memory_id=made.memory_id), "Still on A vs B.")
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(host.handle("go on", intent=Intent.GENERAL_CHAT)))
    worker.start()
    assert in_request.wait(10)
    _archived, new_thread = manager.start_new_thread()  # the REPL's /new, from another control flow
    new_done.set()
    worker.join(10)

    (result,) = results
    assert result.thread_id == old_thread  # type: ignore[attr-defined]
    turn = turn_rows(manager)[-1]
    assert (turn["thread_id"], turn["status"], turn["user_text"]) == (old_thread, "completed", "go on")
    tool_results = [m.content or "" for m in canned.requests_for(Purpose.MAIN)[-1].messages if m.role == "tool"]
    assert json.loads(tool_results[0])[0]["id"] == made.memory_id  # the old thread's discussion
    assert json.loads(tool_results[1])["content"] == "Comparing A and B."
    assert manager.search(thread_id=new_thread.id, query="option A") == []  # invisible from the new thread

    canned.enqueue(Purpose.MAIN, "fresh start")
    after = host.handle("next question", intent=Intent.GENERAL_CHAT)
    assert after.thread_id == new_thread.id
    request = canned.requests_for(Purpose.MAIN)[-1]
    assert [m.role for m in request.messages] == ["system", "user"]  # no history of the old thread
    assert "option A vs option B" not in (request.messages[0].content or "")


class _NewAfterAdmission(MemoryManager):
    """A manager whose every admission is immediately followed by a `/new` from another thread."""

    def begin_turn(self, user_text: str, intent: Intent) -> TurnTicket:
        ticket = super().begin_turn(user_text, intent)
        other = threading.Thread(target=self.start_new_thread)
        other.start()
        other.join(10)
        return ticket


def test_history_and_routing_context_come_from_the_admission_thread_even_after_new(
    project: Path, canned: CannedProvider
) -> None:
    manager = _NewAfterAdmission(root=project, clock=FakeClock(), owner="test-owner")
    assert manager.open().ok
    old_thread = manager.active_thread().id
    add_turn(manager, user_text="we compare A and B", assistant_text="A is simpler")
    add_item(manager, kind=MemoryKind.DISCUSSION_CONTEXT, title="A versus B", content="Comparing A and B.")
    host = AgentHost(
        manager=manager, provider=canned, root=project, workspace=ReviewWorkspace(directory=manager.paths.workspace)
    )
    canned.enqueue(Purpose.MAIN, "continuing")
    result = host.handle("continue", intent=Intent.GENERAL_CHAT)
    assert result.thread_id == old_thread != manager.active_thread().id
    (request,) = canned.requests_for(Purpose.MAIN)
    assert "A versus B" in (request.messages[0].content or "")
    pairs = [(m.role, m.content) for m in request.messages[1:]]
    assert pairs[:2] == [("user", "we compare A and B"), ("assistant", "A is simpler")]
    assert pairs[-1] == ("user", "continue")


# -- repair requests never touch Memory (M-1) --------------------------------------------------------------


def test_repair_requests_send_no_statement_to_memory_and_create_no_turn(project: Path, canned: CannedProvider) -> None:
    statements: list[str] = []
    manager = MemoryManager(root=project, clock=FakeClock(), owner="test-owner", trace=statements.append)
    assert manager.open().ok
    workspace = ReviewWorkspace(directory=manager.paths.workspace)
    host = AgentHost(manager=manager, provider=canned, root=project, workspace=workspace)
    statements.clear()
    canned.enqueue(Purpose.MAIN, AUDIT_WITH_PATCH, "The patch removes the shell.")
    audit = host.handle("audit src/app.py")
    explain = host.handle("explain the patch")
    assert statements == []
    assert (audit.intent, explain.intent) == (Intent.CODE_AUDIT, Intent.PATCH_EXPLAIN)
    assert (audit.turn_id, audit.thread_id, explain.turn_id) == (None, None, None)
    assert turn_rows(manager) == []


def test_the_patch_workflow_through_the_host(host: AgentHost, canned: CannedProvider, project: Path) -> None:
    canned.enqueue(Purpose.MAIN, AUDIT_WITH_PATCH)
    result = host.handle("audit src/app.py")
    assert result.pending_patch is not None and host.pending_patch() == result.pending_patch
    applied = host.accept_patch()
    assert applied.path == "src/app.py"
    assert "subprocess.call(cmd)\n" in (project / "src" / "app.py").read_text(encoding="utf-8")
    assert host.pending_patch() is None
    with pytest.raises(NoPendingPatch):
        host.accept_patch()
    with pytest.raises(NoPendingPatch):
        host.discard_patch()


def test_new_aborts_the_pending_patch(host: AgentHost, canned: CannedProvider, project: Path) -> None:
    before = (project / "src" / "app.py").read_bytes()
    canned.enqueue(Purpose.MAIN, AUDIT_WITH_PATCH)
    host.handle("audit src/app.py")
    host.reset_temporary_state()
    assert host.pending_patch() is None
    assert (project / "src" / "app.py").read_bytes() == before


def test_patch_intents_without_a_pending_patch_make_no_llm_call(host: AgentHost, canned: CannedProvider) -> None:
    for intent in (Intent.PATCH_EXPLAIN, Intent.PATCH_REVISE):
        with pytest.raises(NoPendingPatch):
            host.handle("what about it", intent=intent)
    assert canned.requests == []


def test_a_corrupt_workspace_does_not_block_ordinary_chat(
    host: AgentHost, canned: CannedProvider, workspace: ReviewWorkspace
) -> None:
    workspace.directory.mkdir(parents=True, exist_ok=True)
    (workspace.directory / "pending_patch.json").write_text("{broken", encoding="utf-8")
    canned.enqueue(Purpose.MAIN, "still here")
    assert host.handle("hello").answer == "still here"
    with pytest.raises(WorkspaceStorageError):
        host.handle("explain it", intent=Intent.PATCH_EXPLAIN)


def test_a_cancelled_repair_request_stores_nothing_anywhere(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager, workspace: ReviewWorkspace
) -> None:
    canned.enqueue(Purpose.MAIN, AUDIT_WITH_PATCH)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RequestCancelled):
        host.handle("audit src/app.py", cancel=cancel)
    assert turn_rows(manager) == [] and workspace.pending_patch() is None


def test_ctrl_c_while_the_classifier_routes_keeps_the_text_as_a_failed_turn(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    """Issue 17 item 4 (`ask`: Ctrl-C arrives as KeyboardInterrupt in the blocked classifier call)."""
    canned.enqueue(Purpose.CLASSIFIER, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        host.handle("which of the two designs should we keep?")
    (row,) = turn_rows(manager)
    assert (row["user_text"], row["status"], row["error"]) == (
        "which of the two designs should we keep?",
        "failed",
        "cancelled by the user",
    )


def test_a_cancel_set_before_an_ordinary_request_keeps_the_text(
    host: AgentHost, canned: CannedProvider, manager: MemoryManager
) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RequestCancelled):
        host.handle("hello", cancel=cancel)  # a rule route: no model call at all
    assert [(r["user_text"], r["status"]) for r in turn_rows(manager)] == [("hello", "failed")]
    assert canned.requests == []
