"""CLI cold start: whole-process `autopatch-j memory status` and `autopatch-j --help`.

Each command runs as a fresh process (`python -m autopatch_j …`, the same entry point as the
`autopatch-j` script) N times in a scratch project; the median wall time is compared with a bare
`python -c pass` measured in the same run, interleaved with the commands so machine noise hits all
of them alike. Target (issue 4): `memory status` ≤ 300 ms. Also reported: the modules imported by
`memory status` that are known to be heavy (openai, fastapi, sqlalchemy, prompt_toolkit, httpx, mcp),
which should be imported only on the paths that need them.

    python bench/cold_start_bench.py [--quick] [--json] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 300.0
HEAVY = (
    "openai",
    "fastapi",
    "sqlalchemy",
    "prompt_toolkit",
    "httpx",
    "uvicorn",
    "alembic",
    "pydantic_settings",
    "mcp",
    "Stemmer",  # memory search's English stemmer (issue 18): search and indexing only
)

COMMANDS: dict[str, list[str]] = {
    "baseline: python -c pass": [sys.executable, "-c", "pass"],
    "autopatch-j --help": [sys.executable, "-m", "autopatch_j", "--help"],
    "autopatch-j memory status": [sys.executable, "-m", "autopatch_j", "memory", "status"],
    # loads the stemmer (PyStemmer) and the zh/en equivalents on top of what status needs
    "autopatch-j memory search": [sys.executable, "-m", "autopatch_j", "memory", "search", "deployed services"],
}


def _time(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def heavy_imports(cwd: Path, env: dict[str, str]) -> list[str]:
    """Heavy top-level packages that `memory status` imports (via `python -X importtime`)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "autopatch_j", "memory", "status"],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    seen = set()
    for line in done.stderr.splitlines():
        if "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            top = name.split(".")[0]
            if top in HEAVY:
                seen.add(top)
    return sorted(seen)


def run(runs: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_LLM_")}
    with tempfile.TemporaryDirectory(prefix="autopatch-cold-") as tmp:
        cwd = Path(tmp)
        _time(COMMANDS["autopatch-j memory status"], cwd, env)  # creates the Memory once (not timed)
        samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, argv in COMMANDS.items():  # interleaved: noise hits every command alike
                samples[name].append(_time(argv, cwd, env))
        heavy = heavy_imports(cwd, env)
    base = statistics.median(samples["baseline: python -c pass"])
    results = {}
    for name, values in samples.items():
        median = statistics.median(values)
        results[name] = {
            "median_ms": round(median, 1),
            "min_ms": round(min(values), 1),
            "max_ms": round(max(values), 1),
            "ratio_to_baseline": round(median / base, 2) if base else None,
            "runs": len(values),
        }
    status = results["autopatch-j memory status"]["median_ms"]
    return {
        "benchmark": "cold_start",
        "runs": runs,
        "results": results,
        "target_ms": TARGET_MS,
        "memory_status_meets_target": status <= TARGET_MS,
        "heavy_modules_imported_by_memory_status": heavy,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="5 runs per command instead of 15")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=None, help="runs per command")
    args = parser.parse_args()
    report = run(args.runs or (5 if args.quick else 15))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"cold start, median of {report['runs']} runs each (interleaved):")
    for name, r in report["results"].items():  # type: ignore[union-attr]
        print(f"  {name:28} {r['median_ms']:8.1f} ms  (x{r['ratio_to_baseline']} of baseline)")
    verdict = "meets" if report["memory_status_meets_target"] else "MISSES"
    print(f"memory status {verdict} the {TARGET_MS:.0f} ms target")
    print(f"heavy modules imported by memory status: {report['heavy_modules_imported_by_memory_status'] or 'none'}")


if __name__ == "__main__":
    main()
