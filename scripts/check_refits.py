"""Check the learned tables the package ships against their training scripts.

Two checks, of two guarantees (docs/testing.md, "Refits reproduce the shipped models"):

    python scripts/check_refits.py --inputs          # seconds: each table was fitted on today's inputs
    python scripts/check_refits.py                   # minutes: each trainer refits its table again
    python scripts/check_refits.py reader joining    # only these; --jobs N refits at a time

`--inputs` reads each table's fingerprint (`scripts/fingerprints/`, written by the trainer, see
`scripts/refit_inputs.py`) and compares it with the checkout: the table's own bytes, the trainer's
scripts and every data file and directory listing the fit read. A table whose inputs changed
without a refit is one sentence naming what changed and the command to rerun. The suite runs this
(`tests/test_refits.py`).

Without `--inputs` every trainer runs again as a subprocess (its command line as recorded, with
`--threshold` the shipped one where the trainer would otherwise cross-validate to choose it), up
to `--jobs` at once, longest first, and its table is compared with the shipped one (or with the
table of the same name in `--against DIR`, the trainer given `--trainer-arg`s too, e.g.
`--trainer-arg=--part --trainer-arg=test`): byte for byte, or for a linear model within its last
rounded unit (another CPU's BLAS may round the other way). This also catches a change of feature
code, which the fingerprint does not cover; `.ci/run` runs it after the suite. Exit status 0 when
every check holds, 1 when one does not (each failure one line on stderr), 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from refit_inputs import ROOT, fingerprint_path, stale_sentence

MEMORY = ROOT / "src" / "autopatch_j" / "memory"
CLOUD = ROOT / "src" / "autopatch_j" / "cloud"

Compare = Callable[[Path, Path], list[str]]


def same_bytes(again: Path, shipped: Path) -> list[str]:
    """Byte-identical tables (deterministic trainers without a floating-point solver in the way)."""
    return [] if again.read_bytes() == shipped.read_bytes() else ["the bytes differ"]


def _json(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _same_keys(again: dict[str, Any], shipped: dict[str, Any], fitted: set[str]) -> list[str]:
    if again.keys() != shipped.keys():
        return [f"keys {sorted(again.keys() ^ shipped.keys())} differ"]
    return [f"{key} differs" for key in sorted(shipped.keys() - fitted) if again[key] != shipped[key]]


def _record(again: dict[str, Any], shipped: dict[str, Any]) -> list[str]:
    """A cross-validated record within one held-out example: each count within one, each share
    within one example of the table's `pairs`/`examples` and its rounding (a prediction on the
    threshold may fall the other way on another BLAS)."""
    record, theirs = again.get("cross_validated"), shipped.get("cross_validated")
    if not isinstance(record, dict) or not isinstance(theirs, dict) or record.keys() != theirs.keys():
        return [] if record == theirs else ["cross_validated differs"]
    size = shipped.get("pairs") or shipped.get("examples")
    share = 1 / size + 1e-4 + 1e-9 if isinstance(size, int) and size > 0 else 0.0
    far = [
        key for key in sorted(theirs) if abs(record[key] - theirs[key]) > (1 if isinstance(theirs[key], int) else share)
    ]
    return [f"cross_validated.{key} {record[key]} refitted, {theirs[key]} shipped" for key in far]


def linear(again_path: Path, shipped_path: Path, unit: float = 2e-4) -> list[str]:
    """A logistic model (`bias`, `weights` by feature, rounded to 1e-4): the other keys equal, the
    bias and every weight within one rounded unit, a cross-validated record within one example."""
    again, shipped = _json(again_path), _json(shipped_path)
    found = _same_keys(again, shipped, {"weights", "bias", "cross_validated"}) + _record(again, shipped)
    if found:
        return found
    if abs(again["bias"] - shipped["bias"]) > unit:
        found.append(f"bias {again['bias']} refitted, {shipped['bias']} shipped")
    names = sorted(again["weights"].keys() | shipped["weights"].keys())
    far = [n for n in names if abs(again["weights"].get(n, 0.0) - shipped["weights"].get(n, 0.0)) > unit]
    return found + [f"weight {n}: {again['weights'].get(n)} refitted, {shipped['weights'].get(n)} shipped" for n in far]


def _constant(script: str, name: str) -> float:
    """The number a module-level `name = …` of `script` assigns (read, not imported)."""
    for node in ast.parse((ROOT / script).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = ast.literal_eval(node.value)
            if isinstance(value, int | float):
                return float(value)
    raise LookupError(f"{script} assigns no number to {name}")


def reader(again_path: Path, shipped_path: Path) -> list[str]:
    """The reader's integer weights in thousandths, per class: other keys equal, each bias within one
    thousandth, each weight within one unit (a weight under the shipping floor may be on one side
    only, within the floor and a unit)."""
    again, shipped = _json(again_path), _json(shipped_path)
    found = _same_keys(again, shipped, {"weights", "bias"})
    if found:
        return found
    if max(abs(a - b) for a, b in zip(again["bias"], shipped["bias"], strict=True)) > 0.001 + 1e-9:
        found.append(f"bias {again['bias']} refitted, {shipped['bias']} shipped")
    floor = round(_constant("scripts/train_reader.py", "MIN_WEIGHT") * _constant("scripts/train_reader.py", "SCALE"))
    for name in sorted(again["weights"].keys() | shipped["weights"].keys()):
        rows = (again["weights"].get(name, []), shipped["weights"].get(name, []))
        a, b = (dict(zip(row[::2], row[1::2], strict=True)) for row in rows)
        for cls in sorted(a.keys() | b.keys()):
            x, y = a.get(cls), b.get(cls)
            if abs((x or 0) - (y or 0)) > (floor + 1 if x is None or y is None else 1):
                found.append(f"weight {name}[{cls}]: {x} refitted, {y} shipped")
    return found


def speech(again_path: Path, shipped_path: Path) -> list[str]:
    """The speech model's two linear models score every training sentence within 0.01 of the
    shipped ones (their solver stops at its default tolerance); the other keys are equal."""
    from autopatch_j.memory.speech_model import LinearModel, features
    from autopatch_j.quality.realistic import find_checkout_part
    from autopatch_j.quality.speech_data import (
        FIXES,
        fix_examples,
        load_realistic_part,
        negative_examples,
        part_examples,
        realistic_examples,
    )

    again, shipped = _json(again_path), _json(shipped_path)
    found = _same_keys(again, shipped, {"statement", "kind"})
    if found:
        return found
    realistic = find_checkout_part(ROOT)
    groups = {**part_examples("dev"), FIXES: fix_examples()}
    if realistic is not None:
        groups.update(realistic_examples(load_realistic_part(realistic)))
    texts = [features(e.text) for exs in groups.values() for e in exs] + [features(e.text) for e in negative_examples()]
    for name in ("statement", "kind"):
        mine, theirs = LinearModel.from_data(again[name]), LinearModel.from_data(shipped[name])
        drift = max(abs(mine.probability(f) - theirs.probability(f)) for f in texts)
        if not drift < 0.01:
            found.append(f"the {name} model's probabilities drift by {drift:.4f}")
    return found


def _threshold(*path: str) -> Callable[[dict[str, Any]], list[str]]:
    def args(shipped: dict[str, Any]) -> list[str]:
        value: Any = shipped
        for key in path:
            value = value[key]
        return ["--threshold", repr(float(value))]

    return args


@dataclass(frozen=True)
class Refit:
    """One shipped table, the script that fits it, how a refit is compared with it, and the
    arguments that skip choosing a threshold the shipped table already holds."""

    name: str
    table: Path
    script: str
    compare: Compare
    fixed: Callable[[dict[str, Any]], list[str]] | None = None


#: Longest refit first (so the last to start is a short one).
REFITS = (
    Refit("reader", MEMORY / "reader_model.json", "scripts/train_reader.py", reader),
    Refit("qualifier", MEMORY / "search_qualifier.json", "scripts/train_search_qualifier.py", linear),
    Refit("secret_judge", CLOUD / "secret_judge_weights.json", "scripts/train_secret_judge.py", same_bytes),
    Refit("assent", MEMORY / "assent_model.json", "scripts/train_assent.py", linear),
    Refit("revisions", MEMORY / "revision_model.json", "scripts/train_revisions.py", linear, _threshold("threshold")),
    Refit("joining", MEMORY / "joining_model.json", "scripts/train_joining.py", linear, _threshold("threshold")),
    Refit("speech", MEMORY / "speech_model.json", "scripts/train_speech_model.py", speech, _threshold("threshold")),
    Refit(
        "subjects",
        MEMORY / "subject_model.json",
        "scripts/train_subjects.py",
        same_bytes,
        _threshold("pair", "threshold"),
    ),
    Refit("associations", MEMORY / "text" / "associations.txt", "scripts/train_associations.py", same_bytes),
    Refit("necessity", MEMORY / "text" / "necessity.txt", "scripts/train_necessity.py", same_bytes),
)


def _fingerprint(refit: Refit, folder: Path | None) -> dict[str, Any] | None:
    path = fingerprint_path(refit.table)
    path = folder / path.name if folder else path
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def check_inputs(refit: Refit, folder: Path | None = None) -> str | None:
    """None when `refit`'s table was fitted on today's inputs; else the sentence saying why not."""
    fingerprint = _fingerprint(refit, folder)
    if fingerprint is None:
        table = refit.table.relative_to(ROOT).as_posix()
        return f"{table} has no fingerprint of its inputs: rerun `python {refit.script}`."
    return stale_sentence(fingerprint, refit.table)


def _command(refit: Refit, out: Path, extra: list[str]) -> list[str]:
    fingerprint = _fingerprint(refit, None)
    argv = [*(fingerprint["argv"] if fingerprint else []), *extra]
    if refit.fixed is not None and "--threshold" not in argv:
        argv += refit.fixed(_json(refit.table) if refit.table.suffix == ".json" else {})
    return [sys.executable, str(ROOT / refit.script), *argv, "--out", str(out)]


@dataclass(frozen=True)
class Outcome:
    """A refit checked: what differs (nothing when it reproduces), and the trainer's CPU seconds."""

    differences: list[str]
    cpu_seconds: float


def check_refit(refit: Refit, scratch: Path, *, against: Path | None = None, extra: tuple[str, ...] = ()) -> Outcome:
    """What differs between `refit`'s table refitted now (the trainer given `extra` arguments too)
    and `against` (default: the shipped table, whose recorded inputs the refit must also have
    read); a failed run is one line."""
    out = scratch / refit.table.name
    log = scratch / "stderr.txt"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            _command(refit, out, list(extra)), stdout=subprocess.DEVNULL, stderr=stderr, cwd=ROOT
        )
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    if process.returncode != 0 or not out.is_file():
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
        return Outcome([f"the trainer failed: {(tail or [f'exit status {process.returncode}'])[0]}"], cpu)
    if against is None:
        return Outcome(_same_inputs(refit, out) + refit.compare(out, refit.table), cpu)
    if not against.is_file():
        return Outcome([f"{against} is missing"], cpu)
    return Outcome(refit.compare(out, against), cpu)


def _same_inputs(refit: Refit, out: Path) -> list[str]:
    """The refit read what the shipped table's fingerprint says its fit read."""
    shipped = _fingerprint(refit, None)
    again_path = fingerprint_path(out)
    if shipped is None or not again_path.is_file():
        return []  # no fingerprint yet: `--inputs` says so
    again = json.loads(again_path.read_text(encoding="utf-8"))
    # a refit written elsewhere may read the shipped table it replaces (the qualifier's trainer weighs
    # queries through the search, which loads it); that table is no input of the fit
    again["files"].pop(refit.table.relative_to(ROOT).as_posix(), None)
    return [
        f"the refit read other {part} than the fingerprint records"
        for part in ("scripts", "files", "listings")
        if again[part] != shipped[part]
    ]


def main(argv: list[str] | None = None) -> int:
    names = [r.name for r in REFITS]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"only these tables ({', '.join(names)})")
    parser.add_argument("--inputs", action="store_true", help="only compare each table's fingerprint of its inputs")
    parser.add_argument("--fingerprints", type=Path, help="with --inputs: read the fingerprints from this folder")
    parser.add_argument("--against", type=Path, help="compare refits with the tables of this folder instead")
    parser.add_argument(
        "--trainer-arg", action="append", default=[], help="with --against: one more argument for each trainer"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="refits at a time (default: cores)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(names))
    if unknown:
        parser.error(f"no such table: {', '.join(unknown)} (one of {', '.join(names)})")
    if args.trainer_arg and not args.against:
        parser.error("--trainer-arg changes what is fitted: compare with --against DIR")
    chosen = [r for r in REFITS if not args.names or r.name in args.names]
    if args.inputs:
        stale = [s for s in (check_inputs(r, args.fingerprints) for r in chosen) if s is not None]
        for sentence in stale:
            print(sentence, file=sys.stderr)
        print(f"{len(chosen) - len(stale)} of {len(chosen)} tables fitted on today's inputs")
        return 1 if stale else 0
    failed = 0
    with tempfile.TemporaryDirectory(prefix="refits-") as scratch, ThreadPoolExecutor(max(1, args.jobs)) as pool:

        def run(refit: Refit) -> tuple[Refit, Outcome, float]:
            started = time.monotonic()
            folder = Path(scratch) / refit.name
            folder.mkdir()
            against = args.against / refit.table.name if args.against else None
            outcome = check_refit(refit, folder, against=against, extra=tuple(args.trainer_arg))
            return refit, outcome, time.monotonic() - started

        for refit, outcome, seconds in pool.map(run, chosen):
            table = refit.table.relative_to(ROOT).as_posix()
            found = outcome.differences
            if found:
                failed += 1
                shown = "; ".join(found[:3]) + (f" (and {len(found) - 3} more)" if len(found) > 3 else "")
                print(f"{table} does not reproduce with `python {refit.script}`: {shown}.", file=sys.stderr)
            else:
                print(f"{table} reproduces ({seconds:.0f} s, {outcome.cpu_seconds:.0f} s of CPU)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
