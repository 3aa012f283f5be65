"""The ordinary ReAct loop (H-21): tool rounds, streamed answer = stored answer, round bound, cancellation."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from autopatch_j.agent.errors import EmptyAnswer, RequestCancelled, RoundLimitReached
from autopatch_j.agent.memory_tools import MemoryTools
from autopatch_j.agent.react import LAST_ROUND_NOTE, ROUND_SEPARATOR, ReactAgent
from autopatch_j.agent.tools import ProjectTools, Toolbox
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import ChatResponse, Message, Purpose, ToolCall
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from tests.memory.item_factory import add_item


def tool_round(*calls: tuple[str, dict[str, object]], text: str = "") -> ChatResponse:
    return ChatResponse(
        content=text,
        tool_calls=tuple(
            ToolCall(id=f"call_{n}", name=name, arguments=json.dumps(args)) for n, (name, args) in enumerate(calls)
        ),
        finish_reason="tool_calls",
    )


@pytest.fixture
def toolbox(project: Path, manager: MemoryManager) -> Toolbox:
    thread_id = manager.active_thread().id
    return Toolbox([*ProjectTools(root=project).tools(), *MemoryTools(manager=manager, thread_id=thread_id).tools()])


START = [Message(role="system", content="sys"), Message(role="user", content="what does run() do?")]


def test_tool_calls_are_executed_and_fed_back_until_the_answer(
    canned: CannedProvider, toolbox: Toolbox, manager: MemoryManager
) -> None:
    made = add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="shell policy", content="Never use shell=True.")
    canned.enqueue(
        Purpose.MAIN,
        tool_round(("list_files", {"path": "src"}), ("search_project", {"pattern": "shell=True"})),
        tool_round(
            ("read_file", {"path": "src/app.py", "start_line": 4}), ("memory_search", {"query": "shell policy"})
        ),
        tool_round(("memory_read", {"memory_id": made.memory_id})),
        "run() calls a shell; the project decided never to use shell=True.",
    )
    shown: list[str] = []
    result = ReactAgent(provider=canned, toolbox=toolbox).run(START, on_delta=shown.append)
    assert result.answer == "run() calls a shell; the project decided never to use shell=True."
    assert "".join(shown) == result.answer
    assert (result.rounds, result.tool_calls) == (4, 5)

    requests = canned.requests_for(Purpose.MAIN)
    assert {t.name for t in requests[0].tools} == {
        "list_files",
        "read_file",
        "search_project",
        "memory_search",
        "memory_read",
    }
    final = requests[-1].messages
    tool_messages = [m for m in final if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["call_0", "call_1", "call_0", "call_1", "call_0"]
    assert "app.py" in (tool_messages[0].content or "")
    assert "src/app.py:5:" in (tool_messages[1].content or "")
    assert "5| " in (tool_messages[2].content or "")
    hits = json.loads(tool_messages[3].content or "")
    assert hits[0]["id"] == made.memory_id and hits[0]["title"] == "shell policy"
    detail = json.loads(tool_messages[4].content or "")
    assert detail["content"] == "Never use shell=True." and detail["non_factual"] is False


def test_text_of_several_rounds_is_shown_and_stored_identically(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, tool_round(("list_files", {}), text="Let me look."), "  Found it.")
    shown: list[str] = []
    result = ReactAgent(provider=canned, toolbox=toolbox).run(START, on_delta=shown.append)
    assert result.answer == "Let me look." + ROUND_SEPARATOR + "Found it."
    assert "".join(shown) == result.answer


def test_the_round_bound_forces_an_answer_on_the_last_round(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, *[tool_round(("list_files", {}))] * 2, "Best effort answer.")
    result = ReactAgent(provider=canned, toolbox=toolbox, max_rounds=3).run(START)
    assert result.answer == "Best effort answer." and result.rounds == 3
    last = canned.requests_for(Purpose.MAIN)[-1]
    assert last.messages[-1] == Message(role="user", content=LAST_ROUND_NOTE)


def test_a_model_that_never_stops_calling_tools_ends_with_round_limit(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, *[tool_round(("list_files", {}))] * 3)
    with pytest.raises(RoundLimitReached):
        ReactAgent(provider=canned, toolbox=toolbox, max_rounds=3).run(START)
    assert len(canned.requests_for(Purpose.MAIN)) == 3


def test_an_empty_answer_is_an_error(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, "   ")
    with pytest.raises(EmptyAnswer):
        ReactAgent(provider=canned, toolbox=toolbox).run(START)


def test_cancellation_between_chunks_stops_the_stream(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, "one two three four five")
    cancel = threading.Event()
    shown: list[str] = []

    def on_delta(piece: str) -> None:
        shown.append(piece)
        cancel.set()

    with pytest.raises(RequestCancelled):
        ReactAgent(provider=canned, toolbox=toolbox).run(START, on_delta=on_delta, cancel=cancel)
    assert shown == ["one "]


def test_cancellation_before_a_round_sends_nothing(canned: CannedProvider, toolbox: Toolbox) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(RequestCancelled):
        ReactAgent(provider=canned, toolbox=toolbox).run(START, cancel=cancel)
    assert canned.requests == []


def test_a_one_round_agent_sends_no_round_limit_note(canned: CannedProvider, toolbox: Toolbox) -> None:
    canned.enqueue(Purpose.MAIN, "Direct answer.")
    assert ReactAgent(provider=canned, toolbox=toolbox, max_rounds=1).run(START).answer == "Direct answer."
    assert canned.requests[0].messages == tuple(START)
