"""`bench/run_all.py`: a missing script is reported as missing, a failing one as failed; both files are written."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import load_script


def _load() -> ModuleType:
    return load_script("bench/run_all.py")


def test_missing_failing_and_working_scripts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run_all = _load()
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "good.py").write_text('import json\nprint(json.dumps({"p50_ms": 1.5, "ratio": 2.0}))\n')
    (bench / "bad.py").write_text('import sys\nsys.exit("boom")\n')
    monkeypatch.setattr(run_all, "BENCH", bench)
    monkeypatch.setattr(
        run_all,
        "SUITE",
        {"good": ("good.py", [], 30, 30), "bad": ("bad.py", [], 30, 30), "absent": ("absent.py", [], 30, 30)},
    )
    monkeypatch.setattr(sys, "argv", ["run_all.py", "--quick", "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as exited:
        run_all.main()
    assert exited.value.code == 1  # one benchmark failed
    report = json.loads((tmp_path / "out" / "results.json").read_text())
    statuses = {name: entry["status"] for name, entry in report["benchmarks"].items()}
    assert statuses == {"good": "ok", "bad": "failed", "absent": "missing"}
    assert report["benchmarks"]["good"]["result"] == {"p50_ms": 1.5, "ratio": 2.0}
    assert report["machine"]["nproc"] and report["machine"]["sqlite"]
    text = (tmp_path / "out" / "results.md").read_text()
    assert "| p50_ms | 1.5 |" in text and "does not exist yet" in text and "boom" in text
