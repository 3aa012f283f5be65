"""Helpers for API tests: an app over the test engine and a client per token."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from autopatch_j.cloud.app import create_app
from autopatch_j.cloud.settings import CloudSettings
from tests.cloud.world import World


def make_app(world: World) -> FastAPI:
    return create_app(settings=CloudSettings(db=str(world.engine.url)), engine=world.engine, clock=world.clock)


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


class Api:
    """A TestClient that sends one actor's token."""

    def __init__(self, client: TestClient, token: str | None) -> None:
        self.client = client
        self.token = token

    def __call__(self, method: str, path: str, json: Any = None, **kwargs: Any) -> Any:
        return self.client.request(method, path, json=json, headers=auth(self.token), **kwargs)
