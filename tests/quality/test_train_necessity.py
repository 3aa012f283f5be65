"""`scripts/train_necessity.py`: the packaged table is exactly what the script fits on the realistic
sessions (a byte-identical retrain), and bad input is one sentence, not a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_necessity.py"
PACKAGED = ROOT / "src" / "autopatch_j" / "memory" / "text" / "necessity.txt"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, check=False, timeout=300
    )


def test_the_packaged_table_is_the_scripts_fit_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "necessity.txt"
    done = _run("--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == PACKAGED.read_bytes()
    table = dict(line.split("\t")[:2] for line in out.read_text(encoding="utf-8").splitlines()[2:])
    assert float(table["long"]) < 0.5 < 1.0 < float(table["ci"])  # "how long": a way of asking


def test_no_sessions_to_fit_on_is_one_sentence(tmp_path: Path) -> None:
    done = _run("--part", "no-such-part", "--out", str(tmp_path / "n.txt"))
    assert done.returncode == 1
    assert done.stderr.strip() == "no realistic sessions to fit on (check --part and --exclude)"
    assert not (tmp_path / "n.txt").exists()
