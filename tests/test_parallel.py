"""The suite runs on two pytest-xdist workers (scripts/test.sh); an `xdist_group` keeps its tests on
one worker, so a session fixture of the group is made once (docs/testing.md). Checked on a small
suite of its own, run the way scripts/test.sh runs the real one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SUITE = """
import os
import pytest

@pytest.fixture(scope="session")
def made_in():
    return os.getpid()

ONE = pytest.mark.xdist_group("one")
TWO = pytest.mark.xdist_group("two")

@ONE
def test_one_a(made_in): print("one", made_in, os.getpid())

@ONE
def test_one_b(made_in): print("one", made_in, os.getpid())

@ONE
def test_one_c(made_in): print("one", made_in, os.getpid())

@TWO
def test_two_a(made_in): print("two", made_in, os.getpid())

@TWO
def test_two_b(made_in): print("two", made_in, os.getpid())

@pytest.mark.parametrize("n", range(12))
def test_single(n): print("single", n, os.getpid())
"""


def test_a_group_runs_on_one_worker_and_the_rest_on_both(tmp_path: Path) -> None:
    (tmp_path / "test_groups.py").write_text(SUITE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-q", "-rA"),
            *("--disable-plugin-autoload", "-p", "xdist"),  # as the suite's own run (pyproject.toml)
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "17 passed" in done.stdout
    seen: dict[str, set[str]] = {}
    for group, pid in re.findall(r"^(one|two) \d+ (\d+)$", done.stdout, re.MULTILINE):
        seen.setdefault(group, set()).add(pid)
    assert len(seen["one"]) == 1 and len(seen["two"]) == 1, seen
    made = set(re.findall(r"^(?:one|two) (\d+) \d+$", done.stdout, re.MULTILINE))
    assert made == seen["one"] | seen["two"]  # each group's fixture was made where its tests ran
