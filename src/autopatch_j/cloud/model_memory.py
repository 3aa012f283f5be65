"""Cloud memories written by a model (C-40), with the same proof as local Memory.

Used for an eligible task (every C-21 gate passed) when the user's settings name `extract_model` and
the service has a memory LLM configured (`ModelMemory.from_settings`). The local Memory engine's
contracts and checks are reused as they are, not re-implemented:

* the task's conversation (one turn per round: the round's prompt as the user side, the final
  result as the assistant side of the last round) is built from **redacted** text only, so the
  model never sees a secret and every quote is verified against what was redacted;
* Stage 1 asks with `memory.extractor`'s prompt and payload, parses with the strict
  `ExtractionOutput` contract and validates with `memory.validation.validate_extraction` (exact
  quotes, explicit user speech acts, no assistant-only claims). `user_preference` becomes a
  user-level memory, `project_decision` a project-level one; `discussion_context` is dropped (a
  cloud memory outlives the conversation);
* Stage 2 shows the candidates with the user's and the project's active memories, parses the
  `ConsolidationOutput` contract and plans with `memory.consolidation.plan_consolidation`; the plan
  is applied in ONE transaction (create / revise in place / supersede / reject, quotes stored in
  `identity_memory_sources`), which re-checks every target and records the run, or writes nothing.

Failure semantics: a timeout, an HTTP error (429 → `rate_limited`), output that is
not the JSON contract, output that breaks a structural check (one bad quote fails the whole output)
or a cost cap → `ModelResult.fallback` says why and the caller runs the deterministic path, logging
`model_fallback:<reason>`. A task the model processed is never processed again (the run row and the
charge ledger are keyed by task), so a retried sweep neither duplicates a memory nor charges twice.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from pydantic import BaseModel
from sqlalchemy.engine import Connection, Engine

from autopatch_j.cloud import audit
from autopatch_j.cloud.auto_memory_records import Outcome, log_upsert_row
from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.memory_costs import CapCheckFailed, CapReached, Caps, Prices, SweepBudget, estimate
from autopatch_j.cloud.model_memory_input import SCOPE_OF, Conversation, load_conversation, related_memories
from autopatch_j.cloud.records import MemoryScope, MemoryStatus, TaskStatus
from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.tables import (
    auto_memory_model_runs,
    identity_memories,
    identity_memory_sources,
    projects,
    tasks,
)
from autopatch_j.llm.config import LLMSettings
from autopatch_j.llm.diagnostics import DiagnosticsLog
from autopatch_j.llm.errors import LLMError, LLMProviderError, LLMResponseError, LLMTimeoutError
from autopatch_j.llm.json_contract import parse_json_object
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, LLMProvider, Message, Purpose, Usage, strategy_for
from autopatch_j.memory.batches import ConsolidationRequest
from autopatch_j.memory.consolidation import ConsolidationPlan, PlannedOp, plan_consolidation
from autopatch_j.memory.contracts import ConsolidationOutput, ExtractionOutput
from autopatch_j.memory.errors import ConsolidationRejected, ExtractionRejected
from autopatch_j.memory.extractor import (
    CONSOLIDATION_SYSTEM,
    EXTRACTION_SYSTEM,
    consolidation_payload,
    extraction_payload,
)
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.records import (
    Candidate as MemoryCandidate,
)
from autopatch_j.memory.records import (
    CandidateStatus,
    Source,
)
from autopatch_j.memory.validation import validate_extraction

if TYPE_CHECKING:
    from autopatch_j.cloud.auto_memory_records import Candidate
    from autopatch_j.cloud.memory_settings import AutoMemorySettings
    from autopatch_j.cloud.settings import CloudSettings

log = logging.getLogger(__name__)


class Fallback(StrEnum):
    """Why the deterministic path ran instead (logged as `model_fallback:<reason>`)."""

    TIMEOUT = "timeout"
    RATE_LIMITED = "rate_limited"
    PROVIDER_ERROR = "provider_error"
    INVALID_JSON = "invalid_json"
    INVALID_OUTPUT = "invalid_output"
    CAP_REACHED = "cap_reached"
    CAP_CHECK_FAILED = "cap_check_failed"


class RunReason(StrEnum):
    """Log reasons of a task the model processed."""

    MODEL_EXTRACTED = "model_extracted"
    MODEL_NO_MEMORY = "model_no_memory"  # nothing worth remembering: no memory is written


@dataclass(frozen=True, slots=True)
class ModelResult:
    memory_ids: tuple[int, ...] = ()
    reason: RunReason | None = None
    fallback: Fallback | None = None
    lost: bool = False  # another sweep processed the task first


class _FallBack(Exception):
    def __init__(self, reason: Fallback, detail: str = "") -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ModelMemoryConfig:
    """The memory LLM (`llm`: endpoint and key, as the LLM layer's settings; each call names its
    model — the user's `extract_model` or `consolidation_model` — in place of `llm.model`), the
    per-call bound and the caps and prices of model-written memories."""

    llm: LLMSettings
    timeout_s: float
    caps: Caps
    prices: Prices


class ModelMemory:
    """The model path of the extraction sweep; one provider (one SDK client) per model name."""

    def __init__(
        self,
        config: ModelMemoryConfig,
        *,
        provider_for: Callable[[str], LLMProvider] | None = None,
        lexicon: Lexicon | None = None,
        diagnostics: DiagnosticsLog | None = None,
    ) -> None:
        self.config = config
        self._provider_for = provider_for or self._openai
        self._lexicon = lexicon or default_lexicon()
        self._diagnostics = diagnostics
        self._providers: dict[str, LLMProvider] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: CloudSettings, **kwargs: Any) -> ModelMemory | None:
        """None unless the service has a memory LLM (`AUTOPATCH_CLOUD_MEMORY_LLM_BASE_URL`)."""
        llm = settings.memory_llm()
        if llm is None:
            return None
        config = ModelMemoryConfig(
            llm=llm,
            timeout_s=settings.memory_llm_timeout_seconds,
            caps=Caps(
                sweep_tokens=settings.memory_sweep_max_tokens,
                sweep_usd=settings.memory_sweep_max_usd,
                user_daily_tokens=settings.memory_user_daily_max_tokens,
                user_daily_usd=settings.memory_user_daily_max_usd,
            ),
            prices=Prices(settings.llm_input_usd_per_token, settings.llm_output_usd_per_token),
        )
        return cls(config, **kwargs)

    def wanted(self, settings: AutoMemorySettings) -> bool:
        return bool(settings.extract_model)

    def budget(self, engine: Engine) -> SweepBudget:
        return SweepBudget(engine=engine, caps=self.config.caps, prices=self.config.prices)

    def close(self) -> None:
        with self._lock:
            providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            close = getattr(provider, "close", None)
            if callable(close):
                close()

    def _openai(self, model: str) -> LLMProvider:
        settings = dataclasses.replace(self.config.llm, model=model)
        return OpenAIProvider(settings=settings, diagnostics=self._diagnostics, timeout_s=self.config.timeout_s)

    def _provider(self, model: str) -> LLMProvider:
        with self._lock:
            if model not in self._providers:
                self._providers[model] = self._provider_for(model)
            return self._providers[model]

    # -- one task ---------------------------------------------------------------------------------

    def run(self, engine: Engine, cand: Candidate, *, now: datetime, budget: SweepBudget) -> ModelResult:
        """Extract and consolidate one eligible task; a model fault returns `fallback`, never raises."""
        try:
            return self._run(engine, cand, now=now, budget=budget)
        except _FallBack as fall:
            log.info("auto memory: task %s falls back to the deterministic path: %s", cand.task_id, fall)
            return ModelResult(fallback=fall.reason)

    def _run(self, engine: Engine, cand: Candidate, *, now: datetime, budget: SweepBudget) -> ModelResult:
        settings = cand.settings
        extract_model = settings.extract_model or ""
        with read_tx(engine) as conn:
            conversation = load_conversation(conn, task_id=cand.task_id)
        request = conversation.request
        output = self._ask(
            cand, Purpose.EXTRACTION, extract_model, EXTRACTION_SYSTEM, extraction_payload(request), ExtractionOutput,
            now=now, budget=budget,
        )  # fmt: skip
        assert isinstance(output, ExtractionOutput)
        try:
            validated = validate_extraction(output, request, self._lexicon)
        except ExtractionRejected as exc:
            raise _FallBack(Fallback.INVALID_OUTPUT, str(exc)) from exc
        drafts = [d for d in validated.candidates if d.kind in SCOPE_OF]
        if not drafts:
            return self._commit(engine, cand, conversation, plan=None, candidates=(), now=now)
        candidates = tuple(
            MemoryCandidate(
                id=number,
                thread_id=cand.task_id,
                extraction_job_id=0,
                consolidation_job_id=None,
                kind=draft.kind,
                content=draft.content,
                subject=draft.subject,
                non_factual=False,
                status=CandidateStatus.PENDING,
                created_at=0.0,
                sources=draft.sources,
            )
            for number, draft in enumerate(drafts, start=1)
        )
        with read_tx(engine) as conn:
            related = related_memories(conn, user_id=cand.user_id, project_id=cand.project_id)
        second = ConsolidationRequest(thread_id=cand.task_id, candidates=candidates, related=related)
        model = settings.consolidation_model or extract_model
        answer = self._ask(
            cand, Purpose.CONSOLIDATION, model, CONSOLIDATION_SYSTEM, consolidation_payload(second),
            ConsolidationOutput, now=now, budget=budget,
        )  # fmt: skip
        assert isinstance(answer, ConsolidationOutput)
        try:
            plan = plan_consolidation(answer, second, retire=False)
        except ConsolidationRejected as exc:
            raise _FallBack(Fallback.INVALID_OUTPUT, str(exc)) from exc
        return self._commit(engine, cand, conversation, plan=plan, candidates=candidates, now=now)

    def _ask(
        self,
        cand: Candidate,
        purpose: Purpose,
        model: str,
        system: str,
        payload: dict[str, Any],
        contract: type[BaseModel],
        *,
        now: datetime,
        budget: SweepBudget,
    ) -> BaseModel:
        """One capped, charged call; every failure becomes a `_FallBack`."""
        user = json.dumps(payload, ensure_ascii=False)
        guess = estimate(system + user, strategy_for(purpose).max_output_tokens or 0)
        try:
            budget.check(user_id=cand.user_id, now=now, guess=guess)
        except CapReached as exc:
            raise _FallBack(Fallback.CAP_REACHED, str(exc)) from exc
        except CapCheckFailed as exc:
            raise _FallBack(Fallback.CAP_CHECK_FAILED, str(exc)) from exc
        messages = (Message(role="system", content=system), Message(role="user", content=user))

        def charge(usage: Usage) -> None:
            budget.charge(
                task_id=cand.task_id, user_id=cand.user_id, stage=purpose.value, model=model,
                usage=usage, fallback=guess, now=now,
            )  # fmt: skip

        try:
            response = self._provider(model).complete(ChatRequest(purpose=purpose, messages=messages))
        except LLMTimeoutError as exc:  # the provider may have worked on it: charge the estimate
            charge(Usage())
            raise _FallBack(Fallback.TIMEOUT, str(exc)) from exc
        except LLMResponseError as exc:
            charge(Usage())
            raise _FallBack(Fallback.INVALID_JSON, str(exc)) from exc
        except LLMProviderError as exc:  # refused: nothing to charge
            reason = Fallback.RATE_LIMITED if exc.status == 429 else Fallback.PROVIDER_ERROR
            raise _FallBack(reason, str(exc)) from exc
        except LLMError as exc:
            raise _FallBack(Fallback.PROVIDER_ERROR, str(exc)) from exc
        charge(response.usage)
        try:
            return parse_json_object(response.content, contract)
        except LLMResponseError as exc:
            raise _FallBack(Fallback.INVALID_JSON, str(exc)) from exc

    # -- the one transaction ----------------------------------------------------------------------

    def _commit(
        self,
        engine: Engine,
        cand: Candidate,
        conversation: Conversation,
        *,
        plan: ConsolidationPlan | None,
        candidates: tuple[MemoryCandidate, ...],
        now: datetime,
    ) -> ModelResult:
        by_id = {c.id: c for c in candidates}
        with write_tx(engine) as conn:
            conn.execute(sa.select(projects.c.id).where(projects.c.id == cand.project_id).with_for_update())
            done = conn.execute(
                sa.select(auto_memory_model_runs.c.task_id).where(auto_memory_model_runs.c.task_id == cand.task_id)
            ).first()
            fallback_done = conn.execute(
                sa.select(identity_memories.c.id).where(identity_memories.c.source_thread_id == str(cand.task_id))
            ).first()
            status = conn.execute(sa.select(tasks.c.status).where(tasks.c.id == cand.task_id)).scalar_one()
            if done is not None or fallback_done is not None or status != TaskStatus.COMPLETED:
                return ModelResult(lost=True)
            memory_ids: list[int] = []
            for op in plan.operations if plan else ():
                if op.op != "reject":
                    sources = [src for cid in op.candidate_ids for src in by_id[cid].sources]
                    memory_ids.append(self._apply(conn, cand, op, sources, now=now))
            reason = RunReason.MODEL_EXTRACTED if memory_ids else RunReason.MODEL_NO_MEMORY
            conn.execute(
                sa.insert(auto_memory_model_runs).values(
                    task_id=cand.task_id,
                    user_id=cand.user_id,
                    outcome=reason.value,
                    memory_ids=json.dumps(memory_ids),
                    at=now,
                )
            )
            log_upsert_row(
                conn, cand, outcome=Outcome.EXTRACTED, reason=reason, memory_id=memory_ids[0] if memory_ids else None,
                now=now,
            )  # fmt: skip
            audit.record(
                conn,
                kind="auto_memory_model_extracted",
                at=now,
                user_id=cand.user_id,
                project_id=cand.project_id,
                task_id=cand.task_id,
                memory_ids=memory_ids,
                operations=[op.op for op in plan.operations] if plan else [],
            )
        return ModelResult(memory_ids=tuple(memory_ids), reason=reason)

    def _apply(self, conn: Connection, cand: Candidate, op: PlannedOp, sources: list[Source], *, now: datetime) -> int:
        """Apply one create / revise / supersede; the target is re-checked (active, same scope, owned)."""
        scope = SCOPE_OF[op.kind]
        content = redact(op.content)
        mem = identity_memories
        target_id: int | None = None
        if op.target_memory_id is not None:
            owner = mem.c.user_id == cand.user_id if scope is MemoryScope.USER else mem.c.project_id == cand.project_id
            target_id = conn.execute(
                sa.select(mem.c.id).where(
                    mem.c.id == op.target_memory_id, mem.c.scope == scope, mem.c.status == MemoryStatus.ACTIVE, owner
                )
            ).scalar_one_or_none()
            if target_id is None:
                raise _FallBack(Fallback.INVALID_OUTPUT, f"memory {op.target_memory_id} is no longer active")
        if op.op == "revise" and target_id is not None:
            conn.execute(sa.update(mem).where(mem.c.id == target_id).values(content=content, updated_at=now))
            memory_id = target_id
        else:
            memory_id = conn.execute(
                sa.insert(mem)
                .values(
                    scope=scope,
                    user_id=cand.user_id,
                    project_id=cand.project_id if scope is MemoryScope.PROJECT else None,
                    content=content,
                    status=MemoryStatus.ACTIVE,
                    created_at=now,
                    updated_at=now,
                )
                .returning(mem.c.id)
            ).scalar_one()
            if target_id is not None:  # supersede: only ever as an explicit operation
                conn.execute(
                    sa.update(mem).where(mem.c.id == target_id).values(status=MemoryStatus.SUPERSEDED, updated_at=now)
                )
        first = conn.execute(
            sa.select(sa.func.coalesce(sa.func.max(identity_memory_sources.c.ordinal), -1)).where(
                identity_memory_sources.c.memory_id == memory_id
            )
        ).scalar_one()
        if sources:
            conn.execute(
                sa.insert(identity_memory_sources),
                [
                    {
                        "memory_id": memory_id,
                        "ordinal": first + 1 + n,
                        "task_id": cand.task_id,
                        "round": src.turn_id,
                        "role": src.role.value,
                        "quote": src.quote,
                    }
                    for n, src in enumerate(sources)
                ],
            )
        return int(memory_id)
