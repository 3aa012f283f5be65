"""The JSON payloads every face returns for the same question: `memory list --json`, `memory status
--json`, the REPL's `/memory` commands and the MCP server's tools and resources build them here."""

from __future__ import annotations

from typing import Any

from autopatch_j.app.render import timestamp
from autopatch_j.memory import DEBUG_HINT, KEY_VERSION, RETRY_FAILED_HINT, Item, StatusReport, concise_error


def status_payload(report: StatusReport, *, debug: bool) -> dict[str, Any]:
    raw = report.last_error
    return {
        "health": report.health.state,
        "reason": report.health.reason,
        "schema_version": report.schema_version,
        "active_thread_id": report.active_thread_id,
        "generation": report.generation,
        "counts": {
            "turns": report.counts.get("turns", 0),
            "active_items": report.counts.get("active_items", 0),
            "candidates": report.counts.get("candidates", 0),
        },
        "jobs": dict(sorted(report.jobs.items())),
        "last_error": (raw if debug else concise_error(raw)) if raw else None,
        "last_succeeded_at": timestamp(report.last_succeeded_at),
        "debug": debug,
        "hint": DEBUG_HINT if raw and not debug else None,
        "failed_jobs": [
            {
                "id": job.id,
                "kind": job.kind,
                "turn_id": job.turn_id,
                "attempts": job.attempts,
                "error": (job.last_error if debug else concise_error(job.last_error)) if job.last_error else None,
            }
            for job in report.failed
        ],
        "failed_hint": RETRY_FAILED_HINT if report.failed else None,
        "index_keys": {"built_by": report.index_key_version, "current": KEY_VERSION},
    }


def item_payload(item: Item) -> dict[str, Any]:
    return {
        "id": item.memory_id,
        "kind": item.kind.value,
        "title": item.title,
        "content": item.content,
        "status": item.status.value,
        "updated_at": timestamp(item.updated_at),
    }
