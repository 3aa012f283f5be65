"""Issue 17 item 1: Stage 1/2 requests are bounded, and quotes stay verifiable against the RAW text.

The loopback server plays a llama.cpp-like model with an 8,192-token context: a request whose
prompt plus output cap does not fit is answered 400 `context_length_exceeded`, as a real one is.
"""

from __future__ import annotations

import json
from typing import Any

from autopatch_j.llm.config import LLMLimits
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, ChatResponse
from autopatch_j.memory import batches, jobs
from autopatch_j.memory.extractor import LLMExtractor, budget_for, extraction_payload
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.pipeline import Outcome
from autopatch_j.memory.prompt_budget import PromptBudget, excerpt
from tests.memory.pipeline_support import admit, candidate, connect, extraction_json, pipeline_for, rows, source
from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, Reply, completion_body

CONTEXT = 8_192
PREFERENCE = "From now on, always answer in English."
LONG = ("The build runs Maven with the shade plugin and then the tests. " * 3_200)[:200_000]


def _real_tokens(body: dict[str, Any]) -> int:
    """Roughly what a real tokenizer counts for English and JSON (≈ 4 characters a token)."""
    return sum(len(m.get("content") or "") for m in body["messages"]) // 4


def _eight_k_model(answer: str) -> Any:
    def handler(request: RecordedRequest) -> Reply:
        prompt = _real_tokens(request.body)
        if prompt + request.body.get("max_tokens", 0) > CONTEXT:
            error = {
                "error": {
                    "message": f"request ({prompt} tokens) exceeds the available context size ({CONTEXT} tokens)",
                    "type": "invalid_request_error",
                    "code": "context_length_exceeded",
                }
            }
            return Reply(status=400, body=json.dumps(error).encode())
        return Reply(body=json.dumps(completion_body(answer)).encode())

    return handler


def test_a_200k_character_answer_does_not_block_an_explicit_preference(
    manager: MemoryManager, openai_server: FakeOpenAIServer
) -> None:
    t1, _ = admit(manager, [(PREFERENCE, "OK."), ("Explain the build.", LONG)])
    answer = extraction_json(
        candidate("user_preference", "Always answer in English", source(t1, PREFERENCE), subject="answer language")
    )
    openai_server.enqueue(_eight_k_model(answer))
    settings = openai_server.settings(limits=LLMLimits(context_tokens=CONTEXT))
    provider = OpenAIProvider(settings=settings)
    try:
        extractor = LLMExtractor(provider=provider, budget=budget_for(provider))
        result = pipeline_for(manager, extractor).step(force=True)
    finally:
        provider.close()
    assert result is not None and result.outcome is Outcome.SUCCEEDED, result
    assert result.candidates == 1
    sent = openai_server.last_request().body
    user = sent["messages"][1]["content"]
    assert len(user) < 20_000  # the 200,000-character answer went as an excerpt
    turns = json.loads(user)["turns"]
    assert turns[0]["user"] == PREFERENCE  # short texts are sent whole
    assert turns[1]["assistant"] in LONG or "characters omitted" in turns[1]["assistant"]
    assert rows(manager, "SELECT quote FROM candidate_sources")[0]["quote"] == PREFERENCE


def test_excerpt_pieces_are_verbatim_and_keep_explicit_sentences() -> None:
    middle = "我们决定就用 PostgreSQL 15。"
    text = "开头说明。" * 10_000 + middle + "结尾说明。" * 10_000
    short = excerpt(text, 2_000, important=lambda s: "决定" in s)
    assert len(short) < 2_200
    pieces = [p for p in short.split("\n") if p and "characters omitted" not in p]
    assert len(pieces) >= 3
    assert all(piece in text for piece in pieces)  # every piece is a substring of the RAW text
    assert middle in short  # the sentence with the decision survived the cut


def test_payloads_shrink_to_the_model_context(manager: MemoryManager) -> None:
    admit(manager, [("第一轮" * 30_000, "答一" * 50_000), ("第二轮", "答二" * 80_000)])
    conn = connect(manager)
    try:
        claim = jobs.claim_extraction_in_tx(conn, owner="t", now=manager.clock.now(), force=True)
        assert claim is not None
        request = batches.load_extraction_request_in_tx(conn, claim=claim)
        conn.rollback()
    finally:
        conn.close()
    unbounded = len(json.dumps(extraction_payload(request), ensure_ascii=False))
    canned: list[str] = []

    class Recording:
        def complete(self, chat: ChatRequest) -> ChatResponse:
            canned.append(chat.messages[1].content or "")
            return ChatResponse(content=extraction_json())

        def stream(self, chat: ChatRequest) -> Any:  # pragma: no cover - not used by the extractor
            raise AssertionError("the extractor never streams")

    budget = PromptBudget(context_tokens=4_096)
    LLMExtractor(provider=Recording(), budget=budget).extract(request)
    (sent,) = canned
    assert len(sent) < unbounded
    room = budget.token_room(system="", max_output_tokens=1_800)
    assert room is not None and len(sent) <= room  # CJK: at most one character per token
