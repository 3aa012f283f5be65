"""Isolation at the HTTP boundary (M-1, M-66, H-21, H-22), with the real `openai` client talking to a
loopback OpenAI-compatible server that records every request body.

Ordinary requests carry the Memory tools and the routing context; every repair request (and every
classifier call) carries no Memory tool schema, no routing context, no earlier message and no
Memory content: the leak count over all seeded Memory texts is 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopatch_j.agent.host import MEMORY_CONTEXT_HEADING, AgentHost
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.memory.context import BOUNDARY_NOTICE
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent, MemoryKind
from autopatch_j.workspace.store import ReviewWorkspace
from tests.memory.item_factory import add_item, add_turn, set_compaction
from tests.support.openai_server import FakeOpenAIServer, FakeToolCall, RecordedRequest

# Every text seeded into Memory; none may reach a repair request.
MEMORY_TEXTS = [
    "PREF-ZETA-91 give the conclusion first",
    "DEC-OMEGA-37 the project uses Python 3.10+",
    "DISC-KAPPA-55 comparing option A and option B",
    "COMPACT-SIGMA-12 the thread so far",
    "HIST-DELTA-73 how is the cache invalidated?",
    "HIST-DELTA-74 by a version counter",
    "记忆标记-甲乙丙 以后先给结论",
]
MEMORY_MARKERS = ["PREF-ZETA-91", "DEC-OMEGA-37", "DISC-KAPPA-55", "COMPACT-SIGMA-12", "HIST-DELTA-7", "记忆标记"]
MEMORY_SIGNS = ["memory_search", "memory_read", MEMORY_CONTEXT_HEADING, BOUNDARY_NOTICE.splitlines()[1][:40]]

AUDIT_ZERO = json.dumps({"summary": "Looks fine.", "findings": [], "patch": None})
AUDIT_PATCH = json.dumps(
    {
        "summary": "Command injection risk.",
        "findings": [{"path": "src/app.py", "line": 5, "severity": "high", "title": "shell=True", "detail": "x"}],
        "patch": {
            "path": "src/app.py",
            "search": "subprocess.call(cmd, shell=True)",
            "replace": "subprocess.call(cmd)",
            "explanation": "No shell.",
        },
    }
)
REVISE = json.dumps(
    {
        "search": "subprocess.call(cmd, shell=True)",
        "replace": "subprocess.call(shlex.split(cmd))",
        "explanation": "Split the command instead.",
    }
)


def seed_memory(manager: MemoryManager) -> None:
    add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="answer first", content=MEMORY_TEXTS[0])
    add_item(manager, kind=MemoryKind.PROJECT_DECISION, title="python version", content=MEMORY_TEXTS[1])
    add_item(manager, kind=MemoryKind.DISCUSSION_CONTEXT, title="option A vs B", content=MEMORY_TEXTS[2])
    add_item(manager, kind=MemoryKind.USER_PREFERENCE, title="先给结论", content=MEMORY_TEXTS[6])
    set_compaction(manager, MEMORY_TEXTS[3])
    add_turn(manager, user_text=MEMORY_TEXTS[4], assistant_text=MEMORY_TEXTS[5])


def body_text(request: RecordedRequest) -> str:
    return json.dumps(request.body, ensure_ascii=False) + request.raw.decode("utf-8", errors="replace")


def halves(text: str) -> list[str]:
    return [text[: len(text) // 2], text[len(text) // 2 :]]


@pytest.fixture
def http_host(
    openai_server: FakeOpenAIServer, manager: MemoryManager, project: Path, workspace: ReviewWorkspace
) -> AgentHost:
    seed_memory(manager)
    provider = OpenAIProvider(settings=openai_server.settings())
    return AgentHost(manager=manager, provider=provider, root=project, workspace=workspace)


def test_ordinary_requests_carry_memory_tools_routing_context_and_history(
    openai_server: FakeOpenAIServer, http_host: AgentHost
) -> None:
    openai_server.reply_stream(tool_calls=[FakeToolCall("c1", "memory_search", '{"query": "python version"}')])
    openai_server.reply_stream(["We decided ", "on Python 3.10+."])
    result = http_host.handle("what did we decide?", intent=Intent.GENERAL_CHAT)
    assert result.answer == "We decided on Python 3.10+."

    first, second = openai_server.requests
    tools = {t["function"]["name"] for t in first.body["tools"]}
    assert {"memory_search", "memory_read", "read_file", "list_files", "search_project"} <= tools
    messages = first.body["messages"]
    system = messages[0]["content"]
    assert messages[0]["role"] == "system"
    assert MEMORY_CONTEXT_HEADING in system and "DEC-OMEGA-37" in system and "COMPACT-SIGMA-12" in system
    assert BOUNDARY_NOTICE.splitlines()[1] in system
    assert {"role": "user", "content": MEMORY_TEXTS[4]} in messages
    assert {"role": "assistant", "content": MEMORY_TEXTS[5]} in messages
    assert "HIST-DELTA-73" not in system  # history travels as messages, never in the system prompt
    tool_message = second.body["messages"][-1]
    assert tool_message["role"] == "tool" and "python version" in tool_message["content"]


def test_repair_requests_carry_no_memory_at_all(
    openai_server: FakeOpenAIServer, http_host: AgentHost, manager: MemoryManager
) -> None:
    turns_before = manager.status().counts["turns"]
    # 1. routed by the classifier (not a rule) to a zero-finding audit
    openai_server.reply_json('{"intent": "code_audit"}')
    openai_server.reply_stream(halves(AUDIT_ZERO))
    zero = http_host.handle("please look for bugs in src/app.py")
    assert zero.intent is Intent.CODE_AUDIT and zero.route.source == "classifier"
    assert "No findings." in zero.answer and zero.pending_patch is None
    # 2. a rule-routed audit proposing a patch, 3. explain it, 4. revise it, 5. an explicit audit intent
    openai_server.reply_stream(halves(AUDIT_PATCH))
    assert http_host.handle("audit src/app.py").pending_patch is not None
    openai_server.reply_stream(["It removes ", "the shell."])
    assert http_host.handle("explain the patch").answer == "It removes the shell."
    openai_server.reply_stream(halves(REVISE))
    revised = http_host.handle("revise the patch to split the command")
    assert revised.pending_patch is not None and "shlex.split" in revised.pending_patch.replace
    openai_server.reply_stream(halves(AUDIT_ZERO))
    http_host.handle("check the README too", intent=Intent.CODE_AUDIT)

    requests = openai_server.requests
    assert len(requests) == 6
    classifier, repairs = requests[0], requests[1:]
    assert "tools" not in classifier.body
    leaks = 0
    for request in requests:
        text = body_text(request)
        leaks += sum(text.count(marker) for marker in MEMORY_MARKERS + MEMORY_SIGNS)
    assert leaks == 0
    for request in repairs:
        body = request.body
        assert "tools" not in body and "tool_choice" not in body
        assert [m["role"] for m in body["messages"]] == ["system", "user"]  # no earlier message
    assert manager.status().counts["turns"] == turns_before  # repair requests are never turns
