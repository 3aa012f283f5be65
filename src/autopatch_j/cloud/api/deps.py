"""Per-request dependencies: the engine, reads and clock from `app.state`, and the authenticated caller.

The trivial ones are `async def` so they run on the event loop instead of costing a thread hop.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.engine import Engine

from autopatch_j.cloud.api.reads import Reads
from autopatch_j.cloud.errors import Unauthorized
from autopatch_j.cloud.quotas import QuotaLookup
from autopatch_j.cloud.records import User
from autopatch_j.cloud.users import user_for_token
from autopatch_j.runtime import UtcClock

bearer = HTTPBearer(auto_error=False, description="The API token printed by `autopatch-j cloud user add`.")


async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


async def get_clock(request: Request) -> UtcClock:
    clock: UtcClock = request.app.state.clock
    return clock


async def get_quotas(request: Request) -> QuotaLookup:
    quotas: QuotaLookup = request.app.state.quotas
    return quotas


async def get_reads(request: Request) -> Reads:
    reads: Reads = request.app.state.reads
    return reads


async def bearer_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> str:
    """The bearer token as sent (401 without one); whose it is is looked up by `user_for_token`."""
    return _token_of(credentials)


async def request_token(request: Request) -> str:
    """`bearer_token` for an endpoint that takes the `Request` itself: the same parsing and the same
    401, without FastAPI solving two dependencies per request (the hot `GET /tasks/{id}`); such a
    route declares `BEARER_SECURITY` so the OpenAPI document still says it needs the token."""
    return _token_of(await bearer(request))


def _token_of(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized()
    return credentials.credentials


async def current_user(
    reads: Annotated[Reads, Depends(get_reads)], token: Annotated[str, Depends(bearer_token)]
) -> User:
    """The caller, looked up by the sha256 of the bearer token (see `reads.py` for where it runs)."""
    return await reads(lambda conn: user_for_token(conn, token))


# what `Depends(bearer)` adds to an operation in the OpenAPI document
BEARER_SECURITY: dict[str, list[dict[str, list[str]]]] = {"security": [{bearer.scheme_name: []}]}

EngineDep = Annotated[Engine, Depends(get_engine)]
ClockDep = Annotated[UtcClock, Depends(get_clock)]
QuotasDep = Annotated[QuotaLookup, Depends(get_quotas)]
UserDep = Annotated[User, Depends(current_user)]
ReadsDep = Annotated[Reads, Depends(get_reads)]
TokenDep = Annotated[str, Depends(bearer_token)]
