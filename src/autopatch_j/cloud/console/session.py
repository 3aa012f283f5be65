"""Console sessions (C-42), kept in the database so every `serve` process shares them.

Signing in exchanges an API token (checked by `users.user_for_token`, the API's own check) for a
session: a random id and a random **binding secret**, each in an HttpOnly, SameSite=Strict cookie,
and a per-session CSRF token. Only sha256 digests of the id and of the binding secret are stored
(`console_sessions`), with the digest of the user's token at sign-in, so:

- a session survives a restart and works in every process of `serve --workers N`;
- signing out deletes the row: the session ends in every process at once;
- rotating or revoking the user's token ends every session of that user (the stored token digest
  no longer matches the user's);
- a request needs the id *and* its binding secret, and a request that carries either cookie twice
  (a cookie tossed in by a page on another port of the same host, with another path) is refused;
- under HTTPS both cookies are `__Host-` cookies (Secure, `Path=/`, no Domain), which a plain-HTTP
  page on another port of the same host cannot set or overwrite.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from starlette.requests import Request
from starlette.responses import Response

from autopatch_j.cloud.db import read_tx, write_tx
from autopatch_j.cloud.tables import console_sessions, users

COOKIE = "apj_console"
BIND_COOKIE = "apj_console_bind"
SIGN_IN_COOKIE = "apj_console_sign_in"  # double-submit token for the sign-in form (no session yet)
HOST_PREFIX = "__Host-"
LIFETIME_SECONDS = 8 * 3600


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    user_id: int
    csrf: str
    expires_at: datetime
    binding: str = ""  # the plain binding secret: only known right after `create`


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


_LIVE = (
    sa.select(console_sessions, users.c.token_hash.label("user_token_hash"))
    .join(users, users.c.id == console_sessions.c.user_id)
    .where(console_sessions.c.id_hash == sa.bindparam("id_hash"))
)


class DbSessions:
    """Sessions in `console_sessions`, with an absolute lifetime."""

    def __init__(
        self, engine: Engine, *, clock: Callable[[], datetime], lifetime_seconds: float = LIFETIME_SECONDS
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.lifetime_seconds = lifetime_seconds

    def create(self, user_id: int) -> Session:
        now = self.clock()
        session = Session(
            id=secrets.token_urlsafe(32),
            user_id=user_id,
            csrf=secrets.token_urlsafe(32),
            expires_at=now + timedelta(seconds=self.lifetime_seconds),
            binding=secrets.token_urlsafe(32),
        )
        with write_tx(self.engine) as conn:
            conn.execute(sa.delete(console_sessions).where(console_sessions.c.expires_at <= now))
            token_hash = conn.execute(sa.select(users.c.token_hash).where(users.c.id == user_id)).scalar_one()
            conn.execute(
                sa.insert(console_sessions).values(
                    id_hash=_digest(session.id),
                    user_id=user_id,
                    token_hash=token_hash,
                    binding_hash=_digest(session.binding),
                    csrf=session.csrf,
                    created_at=now,
                    expires_at=session.expires_at,
                )
            )
        return session

    def get(self, session_id: str | None, binding: str | None) -> Session | None:
        """The live session for this id and binding secret; None when either is wrong, the session
        expired, or the user's token changed since sign-in."""
        if not session_id or not binding:
            return None
        with read_tx(self.engine) as conn:
            row = conn.execute(_LIVE, {"id_hash": _digest(session_id)}).mappings().first()
        if row is None or not hmac.compare_digest(row["binding_hash"], _digest(binding)):
            return None
        if row["expires_at"] <= self.clock() or row["token_hash"] != row["user_token_hash"]:
            return None
        return Session(id=session_id, user_id=row["user_id"], csrf=row["csrf"], expires_at=row["expires_at"])

    def drop(self, session_id: str | None) -> None:
        if session_id:
            with write_tx(self.engine) as conn:
                conn.execute(sa.delete(console_sessions).where(console_sessions.c.id_hash == _digest(session_id)))


def is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def cookie_name(request: Request, name: str) -> str:
    """`__Host-` names under HTTPS."""
    return HOST_PREFIX + name if is_https(request) else name


def read_cookie(request: Request, name: str) -> str | None:
    """The cookie's value, or None when it is missing or sent more than once (a tossed cookie)."""
    full = cookie_name(request, name)
    header = request.headers.get("cookie", "")
    if sum(1 for part in header.split(";") if part.strip().split("=", 1)[0] == full) > 1:
        return None
    return request.cookies.get(full)


def cookie_path(request: Request) -> str:
    if is_https(request):
        return "/"  # a `__Host-` cookie must have Path=/
    return str(request.scope.get("root_path") or "/") or "/"


def set_cookie(response: Response, request: Request, name: str, value: str, *, max_age: int) -> None:
    """HttpOnly, SameSite=Strict, scoped to the console's path; `__Host-` and Secure under HTTPS."""
    response.set_cookie(
        cookie_name(request, name),
        value,
        max_age=max_age,
        path=cookie_path(request),
        httponly=True,
        samesite="strict",
        secure=is_https(request),
    )


def clear_cookie(response: Response, request: Request, name: str) -> None:
    response.delete_cookie(
        cookie_name(request, name),
        path=cookie_path(request),
        httponly=True,
        samesite="strict",
        secure=is_https(request),
    )
