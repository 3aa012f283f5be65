"""Memory deletion, site-admin quota management (C-6, C-7) and token rotation or revocation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response, status

from autopatch_j.cloud import memories, quotas, users
from autopatch_j.cloud.api.deps import ClockDep, EngineDep, QuotasDep, UserDep
from autopatch_j.cloud.api.schemas import COMMON_ERRORS, MAX_ID, QuotaIn, QuotaOut, TokenOut, errors
from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.errors import Forbidden

router = APIRouter(responses=COMMON_ERRORS)
ObjectId = Annotated[int, Path(ge=1, le=MAX_ID)]


@router.delete(
    "/memories/{memory_id}", status_code=status.HTTP_204_NO_CONTENT, tags=["memories"], responses=errors(403, 404)
)
def delete_memory(memory_id: ObjectId, user: UserDep, engine: EngineDep, clock: ClockDep) -> Response:
    """Soft-delete a memory: your own user-level ones, or project ones with `create_task`."""
    with write_tx(engine) as conn:
        memories.delete_memory(conn, user=user, memory_id=memory_id, now=clock())
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.put("/users/{user_id}/quota", response_model=QuotaOut, tags=["quotas"], responses=errors(403, 404))
def set_quota(
    user_id: ObjectId, body: QuotaIn, user: UserDep, engine: EngineDep, clock: ClockDep, lookup: QuotasDep
) -> QuotaOut:
    """Set a user's monthly USD limit; null means unlimited (site admins only)."""
    if not user.is_admin:
        raise Forbidden("only a site admin (created with --admin) can set quotas.")
    now = clock()
    with write_tx(engine) as conn:
        quotas.set_quota(conn, actor_id=user.id, user_id=user_id, monthly_limit_usd=body.monthly_limit_usd, now=now)
        return QuotaOut.of(user_id, lookup.status(conn, user_id=user_id, now=now))


@router.post("/users/{user_id}/token/rotate", response_model=TokenOut, tags=["users"], responses=errors(403, 404))
def rotate_token(user_id: ObjectId, user: UserDep, engine: EngineDep, clock: ClockDep) -> TokenOut:
    """Give a user a new API token, shown once; the old token and every console session of the user
    end at once (site admins only)."""
    if not user.is_admin:
        raise Forbidden("only a site admin (created with --admin) can rotate tokens.")
    with write_tx(engine) as conn:
        token = users.rotate_token(conn, user_id=user_id, now=clock())
    return TokenOut(id=user_id, token=token)


@router.post(
    "/users/{user_id}/token/revoke", status_code=status.HTTP_204_NO_CONTENT, tags=["users"], responses=errors(403, 404)
)
def revoke_token(user_id: ObjectId, user: UserDep, engine: EngineDep, clock: ClockDep) -> Response:
    """Leave a user without a working token; their console sessions end at once (site admins only)."""
    if not user.is_admin:
        raise Forbidden("only a site admin (created with --admin) can revoke tokens.")
    with write_tx(engine) as conn:
        users.revoke_token(conn, user_id=user_id, now=clock())
    return Response(status_code=status.HTTP_204_NO_CONTENT)
