"""The shipped learned tables and their training scripts (`scripts/check_refits.py`): every table was
fitted on today's inputs (its fingerprint, checked here in seconds), and a refit that does not
reproduce its table fails the full check that `.ci/run` runs after the suite (docs/testing.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "check_refits.py"
FINGERPRINTS = ROOT / "scripts" / "fingerprints"
NECESSITY = "src/autopatch_j/memory/text/necessity.txt"


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=600, check=False
    )


def test_every_shipped_table_was_fitted_on_todays_inputs() -> None:
    done = _check("--inputs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "10 of 10 tables fitted on today's inputs"


def test_the_search_qualifier_is_a_table_its_script_fits() -> None:
    """`search_qualifier.json` is checked as the other tables are: by its fingerprint here, by a
    refit of `scripts/train_search_qualifier.py` in the full check."""
    done = _check("qualifier", "--inputs")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 of 1 tables fitted on today's inputs"


def test_a_table_whose_input_changed_without_a_refit_names_the_script_to_rerun(tmp_path: Path) -> None:
    """A training file edited and another added since the fit: the table's one sentence names them
    and the command that refits it; the other tables are fresh."""
    shutil.copytree(FINGERPRINTS, tmp_path, dirs_exist_ok=True)
    fingerprint_file = tmp_path / "necessity.json"
    fingerprint = json.loads(fingerprint_file.read_text(encoding="utf-8"))
    edited = sorted(name for name in fingerprint["files"] if name.startswith("eval/realistic/"))[0]
    fingerprint["files"][edited] = "0" * 64
    listed = sorted(fingerprint["listings"])[0]
    *before, added = fingerprint["listings"][listed]  # the fit saw the folder without its last entry
    fingerprint["listings"][listed] = before
    fingerprint_file.write_text(json.dumps(fingerprint), encoding="utf-8")

    done = _check("--inputs", "--fingerprints", str(tmp_path))

    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{NECESSITY} was not fitted on today's inputs ({edited} changed; {listed}/ gained {added}): "
        "rerun `python scripts/train_necessity.py`."
    ]
    assert done.stdout.strip() == "9 of 10 tables fitted on today's inputs"


def test_a_table_without_a_fingerprint_is_one_sentence(tmp_path: Path) -> None:
    shutil.copytree(FINGERPRINTS, tmp_path, dirs_exist_ok=True)
    (tmp_path / "necessity.json").unlink()
    done = _check("necessity", "--inputs", "--fingerprints", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"{NECESSITY} has no fingerprint of its inputs: rerun `python scripts/train_necessity.py`."
    )


def test_a_table_that_does_not_reproduce_fails_the_refit_check(tmp_path: Path) -> None:
    """The necessity trainer on the small `test` part (a few seconds): its own table passes, the
    same table with one factor changed fails with the table and the script named."""
    small = ["--trainer-arg=--part", "--trainer-arg=test"]
    same, changed = tmp_path / "same", tmp_path / "changed"
    same.mkdir()
    changed.mkdir()
    fit = [sys.executable, str(ROOT / "scripts" / "train_necessity.py"), "--part", "test", "--out"]
    subprocess.run([*fit, str(same / "necessity.txt")], check=True, capture_output=True, cwd=ROOT, timeout=600)
    lines = (same / "necessity.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    key, factor, rest = lines[2].split("\t", 2)
    lines[2] = f"{key}\t{float(factor) + 0.001:.3f}\t{rest}"
    (changed / "necessity.txt").write_text("".join(lines), encoding="utf-8")

    ok = _check("necessity", "--against", str(same), *small)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith(f"{NECESSITY} reproduces (")

    bad = _check("necessity", "--against", str(changed), *small)
    assert bad.returncode == 1
    assert bad.stderr.strip() == (
        f"{NECESSITY} does not reproduce with `python scripts/train_necessity.py`: the bytes differ."
    )


def test_an_unknown_table_or_a_changed_fit_without_a_table_to_compare_is_a_usage_error() -> None:
    done = _check("no-such-table")
    assert done.returncode == 2
    assert "no such table: no-such-table" in done.stderr
    done = _check("necessity", "--trainer-arg=--part", "--trainer-arg=test")
    assert done.returncode == 2
    assert "compare with --against DIR" in done.stderr


def _linear_table(path: Path, record: dict[str, float]) -> Path:
    table = {"bias": -1.0, "weights": {"a": 0.5}, "pairs": 5000, "threshold": 0.65, "cross_validated": record}
    path.write_text(json.dumps(table), encoding="utf-8")
    return path


def test_a_linear_table_whose_record_differs_by_one_out_of_fold_example_still_reproduces(tmp_path: Path) -> None:
    """One held-out prediction on the threshold may fall the other way on another BLAS (the joining
    table did, between two runs here): the cross-validated record reproduces within one example."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_refits", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("check_refits", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    shipped = _linear_table(tmp_path / "shipped.json", {"accuracy": 0.8353, "missed_joins": 555, "wrong_joins": 407})
    one = _linear_table(tmp_path / "one.json", {"accuracy": 0.8355, "missed_joins": 554, "wrong_joins": 407})
    two = _linear_table(tmp_path / "two.json", {"accuracy": 0.8357, "missed_joins": 553, "wrong_joins": 407})
    assert module.linear(one, shipped) == []
    assert module.linear(two, shipped) == [
        "cross_validated.accuracy 0.8357 refitted, 0.8353 shipped",
        "cross_validated.missed_joins 553 refitted, 555 shipped",
    ]
