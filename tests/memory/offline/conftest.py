"""Offline extraction by behaviour: whole sessions through admission, the real pipeline and drain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autopatch_j.memory.drain import drain
from autopatch_j.memory.manager import MemoryManager
from tests.memory.pipeline_support import admit, pipeline_for

CASES = Path(__file__).parent / "cases"


def cases(name: str) -> list[dict[str, Any]]:
    """The cases of one behaviour, from `cases/<name>.json` (a list of objects with a `name`)."""
    data: list[dict[str, Any]] = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))
    return data


def run_session(manager: MemoryManager, turns: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Admit each turn and drain after it (the worker's rhythm); the active memories with their quotes."""
    pipeline = pipeline_for(manager)
    for t in turns:
        admit(manager, [(t["user"], t.get("assistant") or "OK.")])
        drain(pipeline)
    out = []
    for item in manager.list_items():
        detail = manager.show_item(item.memory_id)
        out.append(
            {
                "kind": item.kind.value,
                "title": item.title,
                "content": item.content,
                "quotes": [s.quote for s in detail.sources],
            }
        )
    return out
