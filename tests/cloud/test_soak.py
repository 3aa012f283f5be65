"""`bench/soak.py` bounds the load it offers to what the workers can run and proves exactly-once:
a short run (SQLite, workers SIGKILLed every few seconds) drains its queue fully, and every round
has an outcome and exactly one `task_finished`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def test_a_short_soak_drains_and_runs_every_round_exactly_once() -> None:
    short = ["--sqlite", "--minutes", "0.2", "--kill-every", "4", "--clients", "4", "--max-backlog", "3"]
    run = subprocess.run(
        [sys.executable, str(SOAK), *short, "--drain", "120", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    assert figures["workers_killed"] >= 2 and figures["server_errors"] == 0
    assert figures["left_open"] == 0 and figures["rounds_without_outcome"] == 0
    assert figures["recorded_twice"] == 0 and figures["closed_not_recorded"] == 0
    assert figures["rounds_recorded"] == figures["rounds"] > 0 and figures["exactly_once"] is True
    # the clients stop queueing at the bound: the backlog overshoots it by in-flight writes only
    assert figures["peak_backlog"] <= figures["max_backlog"] + figures["clients"]


def test_bad_arguments_are_one_sentence() -> None:
    run = subprocess.run(
        [sys.executable, str(SOAK), "--sqlite", "--max-backlog", "0"], capture_output=True, text=True, timeout=60
    )
    assert run.returncode != 0 and "Traceback" not in run.stderr and "--max-backlog" in run.stderr
