"""Local Memory engine: schema, store, admission, jobs, pipeline, retrieval, context, export.

The public API other packages use: the `MemoryManager` facade, the records it hands out, the
errors it raises, the admission outcome, the search results, the status report and its hints, the
`Extractor` protocol with `choose_extractor`, the `Pipeline`, the background `Worker`, and
the pages `memory publish` reads (`PublishPage` of `PublishedItem`). Every
name is imported on first use (PEP 562, `autopatch_j.lazy_api`), so importing the package loads none of
its modules and a command that never searches never loads the search modules (tests/cli/test_cold_start.py).
"""

from __future__ import annotations

from autopatch_j import lazy_api

TYPE_CHECKING = False  # typing stays unloaded (cold start); mypy knows the name

if TYPE_CHECKING:
    from autopatch_j.memory.admission import MAX_TURN_CHARS, TurnOutcome
    from autopatch_j.memory.errors import (
        InvalidInputError,
        MemoryEngineError,
        MemorySchemaError,
        NotConfirmedError,
        ProjectRootError,
        StorageBusyError,
        StorageCorruptError,
        StorageError,
        UnknownMemoryError,
    )
    from autopatch_j.memory.extractor import Extractor, ExtractorChoice, choose_extractor
    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.memory.pipeline import Pipeline
    from autopatch_j.memory.publishing import PublishedItem, PublishPage
    from autopatch_j.memory.records import Health, Intent, Item, ItemDetail, ItemStatus, MemoryKind, Thread, TurnTicket
    from autopatch_j.memory.rekey import KEY_VERSION
    from autopatch_j.memory.search import ReadResult, SearchHit
    from autopatch_j.memory.status import DEBUG_HINT, RETRY_FAILED_HINT, StatusReport, concise_error
    from autopatch_j.memory.worker import Worker

_EXPORTS: dict[str, str] = {
    "MemoryManager": "manager",
    "Health": "records",
    "Intent": "records",
    "Item": "records",
    "ItemDetail": "records",
    "ItemStatus": "records",
    "MemoryKind": "records",
    "Thread": "records",
    "TurnTicket": "records",
    "InvalidInputError": "errors",
    "MemoryEngineError": "errors",
    "MemorySchemaError": "errors",
    "NotConfirmedError": "errors",
    "ProjectRootError": "errors",
    "StorageBusyError": "errors",
    "StorageCorruptError": "errors",
    "StorageError": "errors",
    "UnknownMemoryError": "errors",
    "MAX_TURN_CHARS": "admission",
    "TurnOutcome": "admission",
    "ReadResult": "search",
    "SearchHit": "search",
    "StatusReport": "status",
    "DEBUG_HINT": "status",
    "KEY_VERSION": "rekey",
    "RETRY_FAILED_HINT": "status",
    "concise_error": "status",
    "Extractor": "extractor",
    "ExtractorChoice": "extractor",
    "choose_extractor": "extractor",
    "Pipeline": "pipeline",
    "PublishedItem": "publishing",
    "PublishPage": "publishing",
    "Worker": "worker",
}

__all__ = [
    "DEBUG_HINT",
    "KEY_VERSION",
    "MAX_TURN_CHARS",
    "RETRY_FAILED_HINT",
    "Extractor",
    "ExtractorChoice",
    "Health",
    "Intent",
    "InvalidInputError",
    "Item",
    "ItemDetail",
    "ItemStatus",
    "MemoryEngineError",
    "MemoryKind",
    "MemoryManager",
    "MemorySchemaError",
    "NotConfirmedError",
    "Pipeline",
    "ProjectRootError",
    "PublishPage",
    "PublishedItem",
    "ReadResult",
    "SearchHit",
    "StatusReport",
    "StorageBusyError",
    "StorageCorruptError",
    "StorageError",
    "Thread",
    "TurnOutcome",
    "TurnTicket",
    "UnknownMemoryError",
    "Worker",
    "choose_extractor",
    "concise_error",
]

__getattr__ = lazy_api(__name__, _EXPORTS)
