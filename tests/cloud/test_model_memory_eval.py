"""Issue 14 item 3: the canned-mode eval of the cloud extractor runs, holds its invariants, and its
detectors can fail (a fabricated quote and a foreign task are counted)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa

from autopatch_j.cloud.db import make_engine, write_tx
from autopatch_j.cloud.schema import migrate
from autopatch_j.cloud.tables import identity_memory_sources
from autopatch_j.quality.corpus import load_corpus
from autopatch_j.runtime import FakeClock
from tests.cloud.scripted_openai import Reply, serve_scripted_openai
from tests.cloud.world import CLOUD_START
from tests.support.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "cloud_memory_eval.py"


def _module() -> ModuleType:
    return load_script("bench/cloud_memory_eval.py")


def test_the_eval_holds_its_invariants_on_the_first_cases() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--json", "--limit", "12"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["invariants_ok"] is True and report["invariants"]["model_memories"] > 0


def test_the_detectors_count_a_fabricated_quote_and_a_foreign_task(tmp_path: Path) -> None:
    evaluation = _module()
    engine = make_engine(f"sqlite:///{tmp_path / 'e.sqlite3'}")
    migrate(engine)
    clock = FakeClock(CLOUD_START)
    cases = [c for c in load_corpus().cases if c.category == "explicit_preference"][:2]
    runners = [evaluation.CaseRunner(engine, clock, case, random.Random(1), 0.0) for case in cases]
    for runner in runners:
        runner.run()
    assert evaluation.invariants(engine, runners)["illegal_provenance"] == 0
    with write_tx(engine) as conn:
        memory_id, ordinal = conn.execute(
            sa.select(identity_memory_sources.c.memory_id, identity_memory_sources.c.ordinal)
        ).first()  # type: ignore[misc]
        conn.execute(
            sa.update(identity_memory_sources)
            .where(identity_memory_sources.c.memory_id == memory_id, identity_memory_sources.c.ordinal == ordinal)
            .values(quote="never said", task_id=runners[1].off_task)
        )
    broken = evaluation.invariants(engine, runners)
    assert broken["illegal_provenance"] >= 1 and broken["cross_repo_leakage"] >= 1
    engine.dispose()


def test_the_live_mode_asks_the_server_and_falls_back_on_its_bad_output() -> None:
    """Issue 14 item 4: `--live-url` sends every Stage-1 call to a real OpenAI-compatible server (here
    the loopback fake answering prose); each task then falls back and the invariants still hold."""
    with serve_scripted_openai() as fake:
        fake.responder = lambda _body: Reply(content="Sure! Here are the memories you asked for.")
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--json", "--per-category", "1", "--limit", "2",
             "--live-url", fake.base_url, "--model", "gemma-test", "--timeout", "10"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        sent = list(fake.requests)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"].startswith("live gemma-test") and report["cases"] == 2 and report["categories"] == 2
    assert report["model_calls"] == len(sent) > 0 and {body["model"] for body in sent} == {"gemma-test"}
    assert report["fallbacks"] == {"model_fallback:invalid_json": len(sent)}
    assert report["invariants_ok"] is True and report["invariants"]["model_memories"] == 0
    assert report["seconds_per_call"]["max"] >= report["seconds_per_call"]["median"] > 0
