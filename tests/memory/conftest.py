"""Shared fixtures for Memory tests: a fresh project with a fake clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.memory.manager import MemoryManager
from autopatch_j.runtime import FakeClock
from tests.support.fixtures import openai_server  # noqa: F401


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def manager(tmp_path: Path, clock: FakeClock) -> MemoryManager:
    """A healthy, freshly created Memory in an empty project directory."""
    m = MemoryManager(root=tmp_path, clock=clock, owner="test-owner")
    assert m.open().ok
    return m
