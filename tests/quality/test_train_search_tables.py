"""`scripts/train_associations.py` and `scripts/train_necessity.py`: each packaged table is exactly what
its script fits on the realistic sessions (a byte-identical retrain), and bad input is one sentence,
not a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "src" / "autopatch_j" / "memory" / "text"


def _run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )


def _associations_fitted(text: str) -> None:
    assert len(text.splitlines()) > 100


def _necessity_fitted(text: str) -> None:
    table = dict(line.split("\t")[:2] for line in text.splitlines()[2:])
    assert float(table["long"]) < 0.5 < 1.0 < float(table["ci"])  # "how long": a way of asking


TRAINERS = [
    ("train_associations.py", "associations.txt", _associations_fitted),
    ("train_necessity.py", "necessity.txt", _necessity_fitted),
]


@pytest.mark.parametrize(("script", "table", "fitted"), TRAINERS, ids=[t[1] for t in TRAINERS])
def test_the_packaged_table_is_the_scripts_fit_byte_for_byte(
    tmp_path: Path, script: str, table: str, fitted: Callable[[str], None]
) -> None:
    out = tmp_path / table
    done = _run(script, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == (TABLES / table).read_bytes()
    fitted(out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("script", [t[0] for t in TRAINERS])
def test_no_sessions_to_fit_on_is_one_sentence(tmp_path: Path, script: str) -> None:
    done = _run(script, "--part", "no-such-part", "--out", str(tmp_path / "t.txt"))
    assert done.returncode == 1
    assert done.stderr.strip() == "no realistic sessions to fit on (check --part and --exclude)"
    assert not (tmp_path / "t.txt").exists()
