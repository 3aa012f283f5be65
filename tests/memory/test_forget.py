"""Forget really forgets (M-45, M-46; issue 9.5, 9.6): whatever the role of the forgotten item's evidence,
it never forms a memory again, and its text leaves the thread's compaction, routing context, search
and `memory_read` — also after many more turns and drains by a model that keeps repeating it."""

from __future__ import annotations

import json
from typing import Any

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import ChatRequest, Purpose
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import ItemStatus
from tests.memory.pipeline_support import admit, candidate, llm_pipeline, rows, source

PROPOSAL = "方案甲用消息队列解耦订单服务"
SECRET = "消息队列解耦订单服务"


class EchoingModel:
    """A model that, whenever the proposal turn is visible, extracts it again as discussion context
    and copies it into the compaction — the worst case for a forget."""

    def __init__(self) -> None:
        self.proposal_turn: int | None = None

    def extraction(self, request: ChatRequest) -> str:
        payload = json.loads(request.messages[-1].content or "{}")
        visible = [payload["context_turn"], *payload["turns"]] if payload["context_turn"] else payload["turns"]
        candidates: list[dict[str, Any]] = []
        compaction = payload["previous_compaction"]
        if any(turn["turn_id"] == self.proposal_turn for turn in visible):
            compaction = (compaction + f"\n正在讨论：{PROPOSAL}").strip()[-3000:]
            candidates.append(
                candidate(
                    "discussion_context",
                    f"讨论中：{PROPOSAL}",
                    source(self.proposal_turn or 0, PROPOSAL, role="assistant"),
                    subject="discussion",
                )
            )
        return json.dumps({"compaction": compaction, "candidates": candidates}, ensure_ascii=False)

    def consolidation(self, request: ChatRequest) -> str:
        payload = json.loads(request.messages[-1].content or "{}")
        operations = [
            {
                "op": "create",
                "candidate_ids": [c["id"]],
                "target_memory_id": None,
                "title": "订单服务讨论",
                "aliases": ["订单服务", "order service"],
                "keywords": ["消息队列", "queue"],
                "content": c["content"],
            }
            for c in payload["candidates"]
        ]
        return json.dumps({"operations": operations}, ensure_ascii=False)

    def __call__(self, request: ChatRequest) -> str:
        return self.extraction(request) if request.purpose is Purpose.EXTRACTION else self.consolidation(request)


def _drain(manager: MemoryManager, canned: CannedProvider) -> None:
    pipeline = llm_pipeline(manager, canned)
    while pipeline.step(force=True) is not None:
        pass


def _visible_everywhere(manager: MemoryManager, memory_id: int) -> list[str]:
    thread_id = manager.active_thread().id
    places = []
    compactions = [r[0] for r in rows(manager, "SELECT compaction FROM threads")]
    if any(SECRET in c for c in compactions):
        places.append("compaction")
    if SECRET in manager.routing_context(thread_id=thread_id):
        places.append("routing context")
    for query in (SECRET, "消息队列", "订单服务"):
        if any(SECRET in hit.title + hit.synopsis for hit in manager.search(thread_id=thread_id, query=query)):
            places.append(f"search {query!r}")
    read = manager.read_memory(thread_id=thread_id, memory_id=memory_id)
    if read is not None:
        places.append("memory_read")
    if any(SECRET in item.content for item in manager.list_items()):
        places.append("list")
    return places


def test_forgotten_assistant_sourced_discussion_is_not_rebuilt_and_leaves_the_compaction(
    manager: MemoryManager,
) -> None:
    model = EchoingModel()
    canned = CannedProvider(default=model)
    (t1,) = admit(manager, [("订单服务怎么拆？", f"{PROPOSAL}，或者方案乙直接同步调用。")])
    model.proposal_turn = t1
    _drain(manager, canned)
    (item,) = manager.list_items()
    assert SECRET in item.content
    assert SECRET in manager.routing_context(thread_id=manager.active_thread().id)

    manager.forget(item.memory_id)
    assert _visible_everywhere(manager, item.memory_id) == []

    for n in range(10):  # turn 1 is the context turn of the next batch; the model keeps quoting it
        admit(manager, [(f"继续聊别的 {n}", "好的。")])
        _drain(manager, canned)
        assert _visible_everywhere(manager, item.memory_id) == [], f"after {n + 1} more turn(s)"
    assert manager.show_item(item.memory_id).item.status is ItemStatus.FORGOTTEN
    assert [i.memory_id for i in manager.list_items()] == []
