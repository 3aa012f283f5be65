"""Shared pytest fixtures. Import them into a test folder's conftest:

from tests.support.fixtures import openai_server  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_server import FakeOpenAIServer


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A started loopback OpenAI-compatible server; stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server
