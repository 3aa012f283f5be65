"""The key version names the search keys: a change of the keys without a bump fails here.

The fixed sample (tests/memory/data/key_sample.json) is derived through the functions that build the
index and the question keys, and its fingerprint is compared with the one recorded for `KEY_VERSION`
(tests/memory/data/key_fingerprint.json, written by scripts/record_key_fingerprint.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.memory import index
from autopatch_j.memory.rekey import KEY_VERSION
from tests.support.scripts import ROOT, load_script

recorder = load_script("scripts/record_key_fingerprint.py")


def _sample() -> dict[str, Any]:
    return json.loads(recorder.SAMPLE.read_text(encoding="utf-8"))


def _record() -> dict[str, Any]:
    return json.loads(recorder.RECORD.read_text(encoding="utf-8"))


def test_the_keys_of_the_sample_are_those_recorded_for_this_key_version() -> None:
    problem = recorder.verdict(_record(), version=KEY_VERSION, found=recorder.fingerprint(_sample()))
    assert problem is None, problem


def test_the_sample_reaches_every_kind_of_key() -> None:
    """What the fingerprint covers: stems, an acronym's plural as the acronym, Chinese words and their
    parts, Traditional characters folded, identifiers and paths whole, full-width folded."""
    keys = recorder.sample_keys(_sample())
    item_keys = {key for item in keys["items"] for key, _ in item}
    question_keys = {key for terms in keys["questions"] for key, _ in terms}
    parts = {part for terms in keys["questions"] for _, found in terms for part in found}
    assert {
        "deploy",
        "pr",
        "gpu",
        "url",
        "资料库",
        "迁移",
        "国际化",
        "pip-tools",
        "src/app/main.py",
        "3.11",
    } <= item_keys
    assert {"max_retry_count", "mc-fw", "python", "pr", "包管理器", "采样率"} <= question_keys
    assert {"国际", "采样"} <= parts


def test_a_changed_key_changes_the_fingerprint(monkeypatch: pytest.MonkeyPatch) -> None:
    before = recorder.fingerprint(_sample())
    derive = index.item_weights

    def plural_kept(**fields: Any) -> dict[str, int]:  # as the index was before `PRs` became `pr`
        return {("prs" if key == "pr" else key): weight for key, weight in derive(**fields).items()}

    monkeypatch.setattr(recorder, "item_weights", plural_kept)
    after = recorder.fingerprint(_sample())
    assert after != before
    problem = recorder.verdict(_record(), version=KEY_VERSION, found=after)
    assert problem == (
        f"The search keys of the sample changed under key version {KEY_VERSION}: bump KEY_VERSION in "
        "src/autopatch_j/memory/rekey.py and re-record with `python scripts/record_key_fingerprint.py`."
    )


def test_a_bump_without_a_recording_and_a_version_going_back_are_named() -> None:
    record = {"versions": [{"version": 3, "fingerprint": "a"}]}
    assert recorder.verdict(record, version=3, found="a") is None
    assert "has no recorded fingerprint" in recorder.verdict(record, version=4, found="a")
    assert "only goes up" in recorder.verdict(record, version=2, found="a")


def test_the_recorder_never_rewrites_a_recorded_version() -> None:
    record = {"versions": [{"version": 2, "fingerprint": "a"}]}
    assert recorder.recorded(record, version=2, found="a") == record
    assert recorder.recorded(record, version=3, found="b")["versions"][-1] == {"version": 3, "fingerprint": "b"}
    with pytest.raises(recorder.Refused, match="bump KEY_VERSION"):
        recorder.recorded(record, version=2, found="b")
    with pytest.raises(recorder.Refused, match="older"):
        recorder.recorded({"versions": [{"version": 5, "fingerprint": "c"}]}, version=2, found="b")


def test_the_recorder_refuses_other_keys_under_a_recorded_version(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"versions": [{"version": KEY_VERSION, "fingerprint": "0" * 64}]}))
    script = [sys.executable, str(ROOT / "scripts" / "record_key_fingerprint.py"), "--record", str(record)]
    refused = subprocess.run(script, capture_output=True, text=True, timeout=120, check=False)
    assert refused.returncode == 1 and "bump KEY_VERSION" in refused.stderr
    assert json.loads(record.read_text())["versions"][0]["fingerprint"] == "0" * 64  # untouched
    check = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=120, check=False)
    assert check.returncode == 1 and "re-record with" in check.stdout
