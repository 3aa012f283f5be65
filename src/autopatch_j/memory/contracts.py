"""Contracts of the two Memory stages (M-41, M-44): what an extractor answers, nothing more.

The offline extractor builds these models directly; the LLM extractor has a model's JSON answer
parsed into them (`llm.json_contract.parse_json_object`, which accepts them because they forbid
unknown fields). Program-side checks that need the input (turn ids, exact quotes, candidate and
item ids, statuses) live in `memory.validation` and `memory.consolidation`. Nothing here imports
an LLM module: the offline path stands without one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from autopatch_j.memory.records import MemoryKind
from autopatch_j.strict_model import StrictModel

RoleName = Literal["user", "assistant"]
OperationName = Literal["create", "revise", "supersede", "retire", "reject"]


class SourceOut(StrictModel):
    """An exact quote of one side of one input turn."""

    turn_id: int
    role: RoleName
    quote: str


class CandidateOut(StrictModel):
    kind: MemoryKind
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
