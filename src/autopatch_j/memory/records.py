"""Typed records of the Memory engine (M-12): built from rows with `from_row`, never passed as dicts."""

from __future__ import annotations

import enum
import json
import sqlite3
from dataclasses import dataclass


class Intent(enum.StrEnum):
    CODE_EXPLAIN = "code_explain"
    GENERAL_CHAT = "general_chat"
    CODE_AUDIT = "code_audit"
    PATCH_EXPLAIN = "patch_explain"
    PATCH_REVISE = "patch_revise"

    @property
    def uses_memory(self) -> bool:
        """Only ordinary intents read or write Memory (M-1)."""
        return self in ORDINARY_INTENTS


ORDINARY_INTENTS = frozenset({Intent.CODE_EXPLAIN, Intent.GENERAL_CHAT})


class TurnStatus(enum.StrEnum):
    OPEN = "open"
    COMPLETED = "completed"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class JobKind(enum.StrEnum):
    EXTRACTION = "extraction"
    CONSOLIDATION = "consolidation"


class JobStatus(enum.StrEnum):
    PENDING = "pending"
    LEASED = "leased"
    RETRY_WAIT = "retry_wait"
    SUCCEEDED = "succeeded"
    SUCCEEDED_NO_OUTPUT = "succeeded_no_output"
    FAILED = "failed"  # terminal: bounded attempts used up; `memory drain --retry-failed` revives it


class MemoryKind(enum.StrEnum):
    USER_PREFERENCE = "user_preference"
    PROJECT_DECISION = "project_decision"
    DISCUSSION_CONTEXT = "discussion_context"


class CandidateStatus(enum.StrEnum):
    PENDING = "pending"
    APPLIED = "applied"
    REJECTED = "rejected"
    SUPPRESSED = "suppressed"


class ItemStatus(enum.StrEnum):
    ACTIVE = "active"
    REVISED = "revised"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


class SourceRole(enum.StrEnum):
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class Health:
    """Result of bootstrap verification: `healthy`, or `degraded` with a reason (M-14)."""

    state: str
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.state == "healthy"

    @classmethod
    def healthy(cls) -> Health:
        return cls("healthy")

    @classmethod
    def degraded(cls, reason: str) -> Health:
        return cls("degraded", reason)


@dataclass(frozen=True, slots=True)
class Meta:
    generation: int
    created_at: float
    updated_at: float
    last_error: str | None
    last_error_job_id: int | None
    last_succeeded_at: float | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Meta:
        return cls(
            generation=row["generation"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            last_error=row["last_error"],
            last_error_job_id=row["last_error_job_id"],
            last_succeeded_at=row["last_succeeded_at"],
        )


@dataclass(frozen=True, slots=True)
class Thread:
    id: int
    status: str
    compaction: str
    compacted_through_seq: int
    created_at: float
    archived_at: float | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Thread:
        return cls(
            id=row["id"],
            status=row["status"],
            compaction=row["compaction"],
            compacted_through_seq=row["compacted_through_seq"],
            created_at=row["created_at"],
            archived_at=row["archived_at"],
        )


@dataclass(frozen=True, slots=True)
class Turn:
    id: int
    thread_id: int
    seq: int
    intent: Intent
    status: TurnStatus
    user_text: str
    assistant_text: str | None
    error: str | None
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Turn:
        return cls(
            id=row["id"],
            thread_id=row["thread_id"],
            seq=row["seq"],
            intent=Intent(row["intent"]),
            status=TurnStatus(row["status"]),
            user_text=row["user_text"],
            assistant_text=row["assistant_text"],
            error=row["error"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )

    def text_for(self, role: SourceRole) -> str:
        """The RAW text of one side of the exchange ('' for an answer that never came)."""
        return self.user_text if role is SourceRole.USER else (self.assistant_text or "")


@dataclass(frozen=True, slots=True)
class TurnTicket:
    """An admitted request: bound to the thread id of admission until it ends (M-20, M-22)."""

    turn_id: int
    thread_id: int
    seq: int
    owner: str


@dataclass(frozen=True, slots=True)
class Job:
    id: int
    kind: JobKind
    thread_id: int
    turn_id: int | None
    parent_job_id: int | None
    status: JobStatus
    generation: int
    owner: str | None
    lease_expires_at: float | None
    batch_id: str | None
    attempts: int
    next_attempt_at: float
    last_error: str | None
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Job:
        return cls(
            id=row["id"],
            kind=JobKind(row["kind"]),
            thread_id=row["thread_id"],
            turn_id=row["turn_id"],
            parent_job_id=row["parent_job_id"],
            status=JobStatus(row["status"]),
            generation=row["generation"],
            owner=row["owner"],
            lease_expires_at=row["lease_expires_at"],
            batch_id=row["batch_id"],
            attempts=row["attempts"],
            next_attempt_at=row["next_attempt_at"],
            last_error=row["last_error"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class Source:
    """An exact quote of one side of one turn (M-5)."""

    turn_id: int
    role: SourceRole
    quote: str

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Source:
        return cls(turn_id=row["turn_id"], role=SourceRole(row["role"]), quote=row["quote"])


@dataclass(frozen=True, slots=True)
class Candidate:
    id: int
    thread_id: int
    extraction_job_id: int
    consolidation_job_id: int | None
    kind: MemoryKind
    content: str
    subject: str
    non_factual: bool
    status: CandidateStatus
    created_at: float
    sources: tuple[Source, ...] = ()

    @classmethod
    def from_row(cls, row: sqlite3.Row, sources: tuple[Source, ...] = ()) -> Candidate:
        return cls(
            id=row["id"],
            thread_id=row["thread_id"],
            extraction_job_id=row["extraction_job_id"],
            consolidation_job_id=row["consolidation_job_id"],
            kind=MemoryKind(row["kind"]),
            content=row["content"],
            subject=row["subject"],
            non_factual=bool(row["non_factual"]),
            status=CandidateStatus(row["status"]),
            created_at=row["created_at"],
            sources=sources,
        )


@dataclass(frozen=True, slots=True)
class Item:
    """One revision of a memory. `memory_id` is the stable id users see."""

    id: int
    memory_id: int
    revision: int
    kind: MemoryKind
    thread_id: int | None
    title: str
    content: str
    aliases: tuple[str, ...]
    keywords: tuple[str, ...]
    non_factual: bool
    status: ItemStatus
    operation: str
    superseded_by: int | None
    job_id: int | None
    created_at: float
    updated_at: float

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Item:
        return cls(
            id=row["id"],
            memory_id=row["memory_id"],
            revision=row["revision"],
            kind=MemoryKind(row["kind"]),
            thread_id=row["thread_id"],
            title=row["title"],
            content=row["content"],
            aliases=tuple(json.loads(row["aliases"])),
            keywords=tuple(json.loads(row["keywords"])),
            non_factual=bool(row["non_factual"]),
            status=ItemStatus(row["status"]),
            operation=row["operation"],
            superseded_by=row["superseded_by"],
            job_id=row["job_id"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
        )


@dataclass(frozen=True, slots=True)
class ItemDetail:
    """A memory with every revision (oldest first) and the sources of its current revision."""

    item: Item
    revisions: tuple[Item, ...]
    sources: tuple[Source, ...]
