"""`bench/search_bench.py --baseline-src`: the other checkout's search runs whole in a process of its own.

Its modules are all the other checkout's (not only `search.py` and `db.py`), and its process's copy
(kept postings, hits and rankings) is its own, so neither side's kept work serves the other's
searches and a comparison of cached paths is honest.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.scripts import ROOT

SRC = ROOT / "src"


def _checkout(tmp_path: Path, *, appended: dict[str, str]) -> Path:
    """A copy of this tree's package as another checkout's `src`, with text appended to some modules."""
    src = tmp_path / "other" / "src"
    shutil.copytree(SRC / "autopatch_j", src / "autopatch_j", ignore=shutil.ignore_patterns("__pycache__"))
    for relative, text in appended.items():
        with (src / "autopatch_j" / relative).open("a", encoding="utf-8") as module:
            module.write("\n" + text + "\n")
    return src


def _bench(baseline: Path, tmp_path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "search_bench.py"),
            "--json",
            "--sizes",
            "1000",
            "--queries",
            "120",
            "--manager-calls",
            "10",
            "--baseline-src",
            str(baseline),
        ],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        timeout=600,
        check=True,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report["sizes"][0]  # type: ignore[no-any-return]


def test_the_other_side_runs_its_own_modules_and_its_own_copy(tmp_path: Path) -> None:
    # Another checkout whose match labels differ (matching.py) and whose copy never holds postings
    # (postings_cache.py): neither is search.py or db.py.
    other = _checkout(
        tmp_path,
        appended={
            "memory/matching.py": "def match_of(*args: object, **kwargs: object) -> str:\n    return 'content'",
            "memory/postings_cache.py": "LOAD_ROWS = WHOLE_ITEMS = BUSY_ITEMS = 0",
        },
    )
    size = _bench(other, tmp_path)
    with_hits = size["queries_with_hits"]
    assert with_hits > 0
    before = size["before"]
    # Its labels are its own: every search with a hit that is not labelled `content` here differs.
    assert 0 < before["hits_differ"] <= with_hits
    assert size["manager"]["hits_differ"] > 0
    # Its copy is its own and never holds postings, so it ranks in SQL where this side's copy does not.
    assert before["statements_mean"] > size["statements_mean"]


def test_the_same_code_on_both_sides_sends_the_same_statements_and_hits(tmp_path: Path) -> None:
    size = _bench(_checkout(tmp_path, appended={}), tmp_path)
    before = size["before"]
    assert before["hits_differ"] == 0 and size["manager"]["hits_differ"] == 0
    # Each side fills and uses its own copy: the same statements, search by search in sum.
    assert before["statements_max"] == size["statements_max"]
    assert before["statements_mean"] == size["statements_mean"]
