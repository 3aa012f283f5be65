"""The case files: each loads, names its cases uniquely, and states behaviour, never history (no issue
number, review round or version pinned in a test or a case)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.memory.offline.conftest import CASES
from tests.test_no_history import history_lines

HERE = Path(__file__).parent
VERSION = re.compile(r"\bv?\d+\.\d+\.\d+\b|\bversion \d")


@pytest.mark.parametrize("path", sorted(CASES.glob("*.json")), ids=lambda p: p.name)
def test_a_case_file_names_its_cases_uniquely(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    names = [case["name"] for case in data]
    assert data and len(names) == len(set(names))


def test_the_behaviour_tests_name_no_issue_round_or_version() -> None:
    found = [
        f"{path.relative_to(HERE)}:{n}: {line}"
        for path in sorted([*HERE.glob("*.py"), *CASES.glob("*.json")])
        if path.name != Path(__file__).name
        for n, line in history_lines(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)
    for path in sorted(HERE.glob("*.py")):
        assert not VERSION.search(path.read_text(encoding="utf-8")), path
