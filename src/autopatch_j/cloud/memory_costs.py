"""What model-written memories may cost (C-40): caps, the charge ledger, the check.

Two caps, each in tokens and in dollars, both from `CloudSettings`: per sweep (the whole sweep, all
users) and per user per UTC day. `SweepBudget.check()` runs before every model call with a
conservative estimate of the call (its prompt bytes / 3 as tokens, plus the purpose's full output
budget) and fails closed: a cap that the estimate would cross raises `CapReached`, a ledger that
cannot be read raises `CapCheckFailed`; either way the caller falls back to the deterministic path.

Each call is charged once in `auto_memory_charges`, keyed by (task, stage): a retried sweep that
calls the model again for the same task does not charge the user twice. The charge is written in its
own short transaction right after the call, so a later failure (invalid output, a lost race) still
counts against the caps.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from autopatch_j.cloud.db import dialect_insert, read_tx, write_tx
from autopatch_j.cloud.errors import CloudError, StorageError
from autopatch_j.cloud.tables import auto_memory_charges
from autopatch_j.llm.provider import Usage


class CapReached(CloudError):
    """A model-memory cost cap would be crossed by the next call."""


class CapCheckFailed(CloudError):
    """The model-memory spending could not be read, so no model call is made."""


@dataclass(frozen=True, slots=True)
class Caps:
    sweep_tokens: int
    sweep_usd: float
    user_daily_tokens: int
    user_daily_usd: float


@dataclass(frozen=True, slots=True)
class Prices:
    input_usd_per_token: float
    output_usd_per_token: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens * self.input_usd_per_token + completion_tokens * self.output_usd_per_token


@dataclass(frozen=True, slots=True)
class Estimate:
    prompt_tokens: int
    completion_tokens: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def estimate(prompt_text: str, max_output_tokens: int) -> Estimate:
    """An upper-side estimate: UTF-8 bytes / 3 (≈ 1 token per CJK char, generous for Latin text)."""
    return Estimate(prompt_tokens=len(prompt_text.encode("utf-8")) // 3 + 1, completion_tokens=max_output_tokens)


def day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


class SweepBudget:
    """The spending of one sweep, checked against the caps before every call."""

    def __init__(self, *, engine: Engine, caps: Caps, prices: Prices) -> None:
        self._engine = engine
        self.caps = caps
        self.prices = prices
        self.tokens = 0
        self.usd = 0.0

    def check(self, *, user_id: int, now: datetime, guess: Estimate) -> None:
        guess_usd = self.prices.cost(guess.prompt_tokens, guess.completion_tokens)
        if self.tokens + guess.tokens > self.caps.sweep_tokens or self.usd + guess_usd > self.caps.sweep_usd:
            raise CapReached("the per-sweep cap would be crossed")
        try:
            tokens, usd = spent_today(self._engine, user_id=user_id, now=now)
        except (SQLAlchemyError, StorageError) as exc:
            raise CapCheckFailed(str(exc)) from exc
        if tokens + guess.tokens > self.caps.user_daily_tokens or usd + guess_usd > self.caps.user_daily_usd:
            raise CapReached("the per-user daily cap would be crossed")

    def charge(
        self, *, task_id: int, user_id: int, stage: str, model: str, usage: Usage, fallback: Estimate, now: datetime
    ) -> None:
        """Record one call's cost (the estimate when the provider reported no usage); once per (task, stage)."""
        prompt = usage.prompt_tokens or fallback.prompt_tokens
        completion = usage.completion_tokens if usage.prompt_tokens else fallback.completion_tokens
        usd = self.prices.cost(prompt, completion)
        self.tokens += prompt + completion
        self.usd += usd
        values = {
            "task_id": task_id,
            "stage": stage,
            "user_id": user_id,
            "model": model,
            "tokens": prompt + completion,
            "cost_usd": usd,
            "at": now,
        }
        with write_tx(self._engine) as conn:
            conn.execute(dialect_insert(conn, auto_memory_charges).values(**values).on_conflict_do_nothing())


def spent_today(engine: Engine, *, user_id: int, now: datetime) -> tuple[int, float]:
    """(tokens, dollars) charged to the user's model memories since the start of `now`'s UTC day."""
    start = day_start(now)
    with read_tx(engine) as conn:
        row = conn.execute(
            sa.select(
                sa.func.coalesce(sa.func.sum(auto_memory_charges.c.tokens), 0),
                sa.func.coalesce(sa.func.sum(auto_memory_charges.c.cost_usd), 0.0),
            ).where(
                auto_memory_charges.c.user_id == user_id,
                auto_memory_charges.c.at >= start,
                auto_memory_charges.c.at < start + timedelta(days=1),
            )
        ).one()
    return int(row[0]), float(row[1])
