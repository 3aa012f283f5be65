"""Users and their bearer tokens (C-2): tokens are high-entropy and stored only as sha256 digests."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from autopatch_j.cloud import audit
from autopatch_j.cloud.errors import Conflict, InvalidInput, NotFound, Unauthorized
from autopatch_j.cloud.records import User
from autopatch_j.cloud.tables import console_sessions, users

TOKEN_PREFIX = "apj_"
_NAME_MAX = 200
# Built once: every authenticated request runs it, and building a statement costs more than running it.
_BY_TOKEN_HASH = sa.select(users).where(users.c.token_hash == sa.bindparam("token_hash"))


@dataclass(frozen=True, slots=True)
class NewUser:
    """A freshly created user and the only copy of its plain token."""

    user: User
    token: str


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def create_user(conn: Connection, *, name: str, is_admin: bool, now: datetime) -> NewUser:
    """Insert a user; the plain token is returned once and never stored."""
    name = name.strip()
    if not name or len(name) > _NAME_MAX:
        raise InvalidInput(f"the user name must be 1 to {_NAME_MAX} characters.")
    token = new_token()
    try:
        with conn.begin_nested():
            user_id = conn.execute(
                sa.insert(users)
                .values(name=name, is_admin=is_admin, token_hash=hash_token(token), created_at=now)
                .returning(users.c.id)
            ).scalar_one()
    except IntegrityError as exc:
        raise Conflict(f"a user named {name!r} already exists.") from exc
    audit.record(conn, kind="user_created", at=now, user_id=user_id, is_admin=is_admin)
    return NewUser(user=User(id=user_id, name=name, is_admin=is_admin, created_at=now), token=token)


def user_for_token(conn: Connection, token: str | None) -> User:
    """The user owning this bearer token, or Unauthorized."""
    if not token:
        raise Unauthorized()
    row = conn.execute(_BY_TOKEN_HASH, {"token_hash": hash_token(token)}).mappings().first()
    if row is None:
        raise Unauthorized()
    return User.from_row(row)


def get_user(conn: Connection, user_id: int) -> User | None:
    row = conn.execute(sa.select(users).where(users.c.id == user_id)).mappings().first()
    return None if row is None else User.from_row(row)


def user_by_name(conn: Connection, name: str) -> User:
    row = conn.execute(sa.select(users).where(users.c.name == name.strip())).mappings().first()
    if row is None:
        raise NotFound(f"no user is named {name.strip()!r}.")
    return User.from_row(row)


def _replace_token_hash(conn: Connection, *, user_id: int, token_hash: str, kind: str, now: datetime) -> None:
    """Store a new token digest and end the user's console sessions (they also stop matching it)."""
    if not conn.execute(sa.update(users).where(users.c.id == user_id).values(token_hash=token_hash)).rowcount:
        raise NotFound("the user does not exist.")
    conn.execute(sa.delete(console_sessions).where(console_sessions.c.user_id == user_id))
    audit.record(conn, kind=kind, at=now, user_id=user_id)


def rotate_token(conn: Connection, *, user_id: int, now: datetime) -> str:
    """Give the user a new token (returned once); the old one and every console session end now."""
    token = new_token()
    _replace_token_hash(conn, user_id=user_id, token_hash=hash_token(token), kind="user_token_rotated", now=now)
    return token


def revoke_token(conn: Connection, *, user_id: int, now: datetime) -> None:
    """Leave the user without a working token (a digest no token has); their sessions end now."""
    unusable = "revoked:" + secrets.token_hex(28)  # never a sha256 hex digest, so nothing matches it
    _replace_token_hash(conn, user_id=user_id, token_hash=unusable, kind="user_token_revoked", now=now)
