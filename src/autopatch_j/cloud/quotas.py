"""Monthly USD quotas per user (C-6): no row → $10, a row with NULL limit → unlimited.

Spending is the sum of `cost_usd` of the task rounds the user asked for (and so pays for) that
finished in the current UTC month: the member who continues a task pays for that round.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError

from autopatch_j.cloud import audit
from autopatch_j.cloud.db import upsert
from autopatch_j.cloud.errors import InvalidInput, NotFound, QuotaLookupError, QuotaUnreachable
from autopatch_j.cloud.tables import quotas, task_rounds, users

DEFAULT_MONTHLY_LIMIT_USD = 10.0


@dataclass(frozen=True, slots=True)
class QuotaStatus:
    limit_usd: float | None  # None = unlimited
    spent_usd: float
    has_row: bool

    @property
    def remaining_percent(self) -> float:
        if self.limit_usd is None:
            return 100.0
        if self.limit_usd <= 0:
            return 0.0
        return max(0.0, (self.limit_usd - self.spent_usd) / self.limit_usd * 100.0)

    @property
    def exhausted(self) -> bool:
        return self.limit_usd is not None and self.spent_usd >= self.limit_usd


class QuotaLookup(Protocol):
    """The port the worker and the auto-memory gate read quotas through."""

    def status(self, conn: Connection, *, user_id: int, now: datetime) -> QuotaStatus: ...


def month_start(now: datetime) -> datetime:
    now = now.astimezone(UTC)
    return datetime(now.year, now.month, 1, tzinfo=UTC)


class DbQuotas:
    """Quotas read from the `quotas` and `tasks` tables; any driver error → QuotaLookupError, and one
    that means the database is unreachable (restarting, connection dropped: an `OperationalError`
    or a disconnect) → its subclass QuotaUnreachable, which is also a StorageError."""

    def status(self, conn: Connection, *, user_id: int, now: datetime) -> QuotaStatus:
        try:
            row = conn.execute(sa.select(quotas.c.monthly_limit_usd).where(quotas.c.user_id == user_id)).first()
            spent = conn.execute(
                sa.select(sa.func.coalesce(sa.func.sum(task_rounds.c.cost_usd), 0.0)).where(
                    task_rounds.c.user_id == user_id, task_rounds.c.finished_at >= month_start(now)
                )
            ).scalar_one()
        except SQLAlchemyError as exc:
            if isinstance(exc, OperationalError) or (isinstance(exc, DBAPIError) and exc.connection_invalidated):
                raise QuotaUnreachable(
                    f"the quota of user {user_id} could not be read: the cloud database refused the read."
                ) from exc
            raise QuotaLookupError(f"the quota of user {user_id} could not be read.") from exc
        if row is None:
            return QuotaStatus(limit_usd=DEFAULT_MONTHLY_LIMIT_USD, spent_usd=float(spent), has_row=False)
        limit = row[0]
        return QuotaStatus(limit_usd=None if limit is None else float(limit), spent_usd=float(spent), has_row=True)


def set_quota(
    conn: Connection, *, actor_id: int | None, user_id: int, monthly_limit_usd: float | None, now: datetime
) -> None:
    """Set (or, with None, lift) a user's monthly limit; the caller checks that the actor is an admin."""
    if monthly_limit_usd is not None and monthly_limit_usd < 0:
        raise InvalidInput("monthly_limit_usd must be zero or more, or null for unlimited.")
    if conn.execute(sa.select(users.c.id).where(users.c.id == user_id)).first() is None:
        raise NotFound("the user does not exist.")
    upsert(
        conn,
        quotas,
        {"user_id": user_id, "monthly_limit_usd": monthly_limit_usd, "updated_at": now},
        key=["user_id"],
    )
    audit.record(
        conn, kind="quota_set", at=now, user_id=actor_id, target_user=user_id, monthly_limit_usd=monthly_limit_usd
    )
