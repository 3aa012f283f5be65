"""JSON contracts of the two Memory stages (M-41, M-44): what the model must answer, nothing more.

Both models forbid unknown fields (`StrictModel`); `parse_json_object(text, ExtractionOutput)` turns
a model's answer into one of them or raises `LLMResponseError`. Program-side checks that need the
input (turn ids, exact quotes, candidate and item ids, statuses) live in `memory.validation` and
`memory.consolidation`; the offline extractor builds the same models directly.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from autopatch_j.llm.json_contract import StrictModel

KindName = Literal["user_preference", "project_decision", "discussion_context"]
RoleName = Literal["user", "assistant"]
OperationName = Literal["create", "revise", "supersede", "retire", "reject"]


class SourceOut(StrictModel):
    """An exact quote of one side of one input turn."""

    turn_id: int
    role: RoleName
    quote: str


class CandidateOut(StrictModel):
    kind: KindName
    content: str
    subject: str = ""
    sources: list[SourceOut]


class ExtractionOutput(StrictModel):
    """Stage 1: the thread's updated rolling compaction and zero or more candidates."""

    compaction: str
    candidates: list[CandidateOut]


class OperationOut(StrictModel):
    """One Stage-2 operation. `reject` needs only candidate ids; `retire` candidate ids and the target (a
    memory the user dropped with no new value: it stops being active, nothing replaces it); the others
    need the item fields."""

    op: OperationName
    candidate_ids: list[int]
    target_memory_id: int | None = None
    title: str = ""
    aliases: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    content: str = ""
    #: what the memory is about ("test framework"); empty: its candidates' subject, or the replaced one's
    subject: str = ""


class ConsolidationOutput(StrictModel):
    operations: list[OperationOut]


EXTRACTION_SHAPE = (
    '{"compaction": "<updated thread summary, at most 4000 chars>", "candidates": [{"kind": '
    '"user_preference|project_decision|discussion_context", "content": "<the memory, in the words of the '
    'quote>", "subject": "<short normalized subject, e.g. python version>", "sources": [{"turn_id": 1, '
    '"role": "user|assistant", "quote": "<exact substring of that turn\'s text>"}]}]}'
)
CONSOLIDATION_SHAPE = (
    '{"operations": [{"op": "create|revise|supersede|reject", "candidate_ids": [1], "target_memory_id": '
    'null, "title": "<short title>", "aliases": ["<Chinese and English names>"], "keywords": ["<zh and en '
    'retrieval keywords>"], "content": "<the memory>"}]}'
)
