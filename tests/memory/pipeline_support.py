"""Helpers for pipeline tests: admit exchanges, build a pipeline, write canned model answers, read rows."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.memory.extractor import Extractor, LLMExtractor
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.records import Intent, Job


def admit(manager: MemoryManager, exchanges: Iterable[tuple[str, str]]) -> list[int]:
    """Complete one ordinary turn per (user, assistant) pair; returns the turn ids."""
    ids = []
    for user, assistant in exchanges:
        ticket = manager.begin_turn(user, Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, assistant)
        ids.append(ticket.turn_id)
    return ids


def pipeline_for(manager: MemoryManager, extractor: Extractor | None = None, **options: Any) -> Pipeline:
    return Pipeline(
        db=manager.db,
        clock=manager.clock,
        owner=manager.owner,
        extractor=extractor or RulesExtractor(),
        heartbeat_seconds=None,
        **options,
    )


def llm_pipeline(manager: MemoryManager, canned: CannedProvider, **options: Any) -> Pipeline:
    return pipeline_for(manager, LLMExtractor(provider=canned), **options)


def source(turn_id: int, quote: str, role: str = "user") -> dict[str, Any]:
    return {"turn_id": turn_id, "role": role, "quote": quote}


def candidate(kind: str, content: str, *sources: dict[str, Any], subject: str = "") -> dict[str, Any]:
    return {"kind": kind, "content": content, "subject": subject, "sources": list(sources)}


def extraction_json(*candidates: dict[str, Any], compaction: str = "summary") -> str:
    return json.dumps({"compaction": compaction, "candidates": list(candidates)}, ensure_ascii=False)


def op(kind: str, ids: Sequence[int], target: int | None = None, **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"op": kind, "candidate_ids": list(ids), "target_memory_id": target}
    if kind != "reject":
        body |= {
            "title": fields.get("title", "title"),
            "aliases": fields.get("aliases", ["别名", "alias"]),
            "keywords": fields.get("keywords", ["关键词", "keyword"]),
            "content": fields.get("content", "content"),
        }
    return body


def consolidation_json(*operations: dict[str, Any]) -> str:
    return json.dumps({"operations": list(operations)}, ensure_ascii=False)


def connect(manager: MemoryManager) -> sqlite3.Connection:
    conn = sqlite3.connect(manager.paths.db)
    conn.row_factory = sqlite3.Row
    return conn


def rows(manager: MemoryManager, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
    conn = connect(manager)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def jobs(manager: MemoryManager) -> list[Job]:
    return [Job.from_row(r) for r in rows(manager, "SELECT * FROM memory_jobs ORDER BY id")]


def job(manager: MemoryManager, job_id: int) -> Job:
    return next(j for j in jobs(manager) if j.id == job_id)


def meta(manager: MemoryManager) -> sqlite3.Row:
    return rows(manager, "SELECT * FROM memory_meta WHERE id = 1")[0]


def table_counts(manager: MemoryManager) -> dict[str, int]:
    names = ("memory_candidates", "candidate_sources", "memory_items", "memory_item_candidates", "memory_postings")
    return {name: rows(manager, f"SELECT count(*) FROM {name}")[0][0] for name in names}


# The long harnesses run with the project's full fault mode (AUTOPATCH_FAULT_FULL=1) or AUTOPATCH_FULL_TESTS=1.
FULL_MODE = "1" in (os.environ.get("AUTOPATCH_FAULT_FULL"), os.environ.get("AUTOPATCH_FULL_TESTS"))
full_only = pytest.mark.skipif(not FULL_MODE, reason="long harness: set AUTOPATCH_FAULT_FULL=1 (and -m slow)")
