"""Console dependencies: the signed-in user (from the session cookie) and CSRF-checked form posts.

The user is loaded with the same `users` functions the API uses; every page then calls the same
service functions (`projects.require`, `tasks.visible_task`, `memories.delete_memory`, …) with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.engine import Engine

from autopatch_j.cloud.api.deps import get_clock, get_engine, get_quotas  # the API's own: request.app.state
from autopatch_j.cloud.console import csrf
from autopatch_j.cloud.console.session import BIND_COOKIE, COOKIE, DbSessions, Session, read_cookie
from autopatch_j.cloud.db import read_tx
from autopatch_j.cloud.quotas import QuotaLookup
from autopatch_j.cloud.records import User
from autopatch_j.cloud.users import get_user
from autopatch_j.runtime import UtcClock


class NotSignedIn(Exception):
    """No valid console session: the browser is sent to the sign-in page."""


@dataclass(frozen=True, slots=True)
class Signed:
    user: User
    session: Session


@dataclass(frozen=True, slots=True)
class Posted:
    user: User
    session: Session
    form: dict[str, str]


def sessions(request: Request) -> DbSessions:
    store: DbSessions = request.app.state.sessions
    return store


def signed_in(request: Request, engine: Annotated[Engine, Depends(get_engine)]) -> Signed:
    session = sessions(request).get(read_cookie(request, COOKIE), read_cookie(request, BIND_COOKIE))
    if session is None:
        raise NotSignedIn()
    with read_tx(engine) as conn:
        user = get_user(conn, session.user_id)
    if user is None:
        sessions(request).drop(session.id)
        raise NotSignedIn()
    return Signed(user=user, session=session)


SignedDep = Annotated[Signed, Depends(signed_in)]


async def posted(request: Request, signed: SignedDep) -> Posted:
    """A form post from this origin carrying the session's CSRF token; Forbidden otherwise."""
    csrf.check_origin(request)
    form = await csrf.read_form(request)
    csrf.check_token(signed.session.csrf, form.get("csrf"))
    return Posted(user=signed.user, session=signed.session, form=form)


EngineDep = Annotated[Engine, Depends(get_engine)]
ClockDep = Annotated[UtcClock, Depends(get_clock)]
QuotasDep = Annotated[QuotaLookup, Depends(get_quotas)]
PostedDep = Annotated[Posted, Depends(posted)]
