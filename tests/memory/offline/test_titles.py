"""Titles in the language the user wrote the rule in: a rule on a subject of the lexicon's table is
titled in that language only (the other language stays among its aliases, so it is still found)."""

from __future__ import annotations

from typing import Any

import pytest

from autopatch_j.memory.manager import MemoryManager
from tests.memory.offline.conftest import cases, run_session

TITLES = cases("titles")


@pytest.mark.parametrize("case", TITLES, ids=[c["name"] for c in TITLES])
def test_the_title_is_in_the_language_of_the_rule(manager: MemoryManager, case: dict[str, Any]) -> None:
    stored = run_session(manager, case["turns"])
    assert [m["title"] for m in stored] == [case["title"]]
