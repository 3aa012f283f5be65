"""Helpers for console tests: sign in through the form, read CSRF tokens, post forms."""

from __future__ import annotations

import re

import httpx
from fastapi.testclient import TestClient

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    found = CSRF.search(html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def sign_in(client: TestClient, token: str) -> str:
    """Sign in through the form; returns the session's CSRF token."""
    form = client.get("/console/sign-in")
    response = client.post("/console/sign-in", data={"csrf": csrf_of(form.text), "token": token})
    assert response.status_code == 303, response.text
    return csrf_of(client.get("/console/memories").text)


def post(client: TestClient, path: str, csrf: str, **fields: str) -> httpx.Response:
    return client.post(path, data={"csrf": csrf, **fields})
