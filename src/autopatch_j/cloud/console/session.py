"""Console sessions: a random id in an HttpOnly, SameSite=Strict cookie, state kept on the server.

Signing in exchanges an API token (checked by `users.user_for_token`, the API's own check) for a
session that remembers only the user id and a per-session CSRF token. Sessions live in this
process's memory: signing out or restarting the server ends them, and no token is ever stored.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "apj_console"
SIGN_IN_COOKIE = "apj_console_sign_in"  # double-submit token for the sign-in form (no session yet)
LIFETIME_SECONDS = 8 * 3600


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    user_id: int
    csrf: str
    expires_at: float


class SessionStore:
    """Thread-safe in-memory sessions with an absolute lifetime."""

    def __init__(self, *, lifetime_seconds: float = LIFETIME_SECONDS, now: Callable[[], float] = time.monotonic):
        self.lifetime_seconds = lifetime_seconds
        self._now = now
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, user_id: int) -> Session:
        session = Session(
            id=secrets.token_urlsafe(32),
            user_id=user_id,
            csrf=secrets.token_urlsafe(32),
            expires_at=self._now() + self.lifetime_seconds,
        )
        with self._lock:
            self._drop_expired()
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and session.expires_at <= self._now():
                del self._sessions[session_id]
                return None
            return session

    def drop(self, session_id: str | None) -> None:
        with self._lock:
            self._sessions.pop(session_id or "", None)

    def _drop_expired(self) -> None:
        now = self._now()
        for key in [k for k, s in self._sessions.items() if s.expires_at <= now]:
            del self._sessions[key]


def is_https(request: Request) -> bool:
    return request.url.scheme == "https"


def cookie_path(request: Request) -> str:
    return str(request.scope.get("root_path") or "/") or "/"


def set_cookie(response: Response, request: Request, name: str, value: str, *, max_age: int) -> None:
    """HttpOnly, SameSite=Strict, scoped to the console's path, Secure when served over HTTPS."""
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=cookie_path(request),
        httponly=True,
        samesite="strict",
        secure=is_https(request),
    )


def clear_cookie(response: Response, request: Request, name: str) -> None:
    response.delete_cookie(name, path=cookie_path(request), httponly=True, samesite="strict", secure=is_https(request))
