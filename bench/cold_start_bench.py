"""CLI cold start: whole-process `autopatch-j …` commands against `python -c pass` (issue 16).

Each command runs as a fresh process (`python -m autopatch_j …`, the same entry point as the
`autopatch-j` script) N times; the median wall time is compared with a bare `python -c pass` measured
in the same run, interleaved with the commands so machine noise hits all of them alike. Commands:
`--version`, `--help`, `memory status` on an empty store and on a store of 10,000 memories (each with
its turn, job, candidate, quote and search terms, as consolidation writes them), and `memory search`.
Target: `memory status` ≤ 10x `python -c pass`. Bytecode is cached (in a temporary
PYTHONPYCACHEPREFIX, so no source tree is written to), as for an installed package.

`--baseline-src DIR` also times every command with DIR (another checkout's `src`) first on
PYTHONPATH, interleaved with the rest: a "before" measured in the same run.

Also reported: the heavy modules `memory status` imports (`python -X importtime`); none of them is
needed to print the status (tests/cli/test_cold_start.py keeps it so).

    python bench/cold_start_bench.py [--quick] [--json] [--runs N] [--items N] [--baseline-src DIR]
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 10.0
HEAVY = (
    "openai",
    "fastapi",
    "sqlalchemy",
    "prompt_toolkit",
    "httpx",
    "uvicorn",
    "alembic",
    "pydantic",
    "pydantic_settings",
    "mcp",
    "Stemmer",  # memory search's English stemmer (issue 18): search and indexing only
    "rich",  # terminal rendering: tables and styled text, not the plain status lines
)

BASELINE = "python -c pass"


def commands(py: str) -> dict[str, tuple[list[str], str]]:
    """name -> (argv, which project: 'empty' or 'large')."""
    cli = [py, "-m", "autopatch_j"]
    return {
        BASELINE: ([py, "-c", "pass"], "empty"),
        "autopatch-j --version": ([*cli, "--version"], "empty"),
        "autopatch-j --help": ([*cli, "--help"], "empty"),
        "autopatch-j memory status": ([*cli, "memory", "status"], "empty"),
        "autopatch-j memory status (10k)": ([*cli, "memory", "status"], "large"),
        "autopatch-j memory search (10k)": ([*cli, "memory", "search", "deployed services"], "large"),
    }


def build_store(root: Path, items: int) -> None:
    """A project whose Memory holds `items` active memories with provenance and terms."""
    from tests.memory.item_factory import add_item_in_tx

    from autopatch_j.memory.manager import MemoryManager
    from autopatch_j.memory.records import MemoryKind

    manager = MemoryManager(root=root)
    assert manager.open().ok
    kinds = (MemoryKind.USER_PREFERENCE, MemoryKind.PROJECT_DECISION, MemoryKind.DISCUSSION_CONTEXT)
    with manager.db.write("bench: fill the store") as conn:
        for i in range(items):
            add_item_in_tx(
                conn,
                kind=kinds[i % 3],
                title=f"deploy service {i} with 先给结论 rule {i % 97}",
                content=f"When deploying service {i}, answer first, then explain; 服务 {i} 部署前先运行测试。",
                keywords=[f"service{i}", "deploy", "部署"],
            )
    manager.close()


def _time(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[2:])} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def heavy_imports(py: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """Heavy top-level packages that `memory status` imports (via `python -X importtime`)."""
    done = subprocess.run(
        [py, "-X", "importtime", "-m", "autopatch_j", "memory", "status"],
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
            top = line.rsplit("|", 1)[1].strip().split(".")[0]
            if top in HEAVY:
                seen.add(top)
    return sorted(seen)


def _summaries(samples: dict[str, list[float]], base: float) -> dict[str, dict[str, float | int]]:
    return {
        name: {
            "median_ms": round(statistics.median(values), 1),
            "min_ms": round(min(values), 1),
            "max_ms": round(max(values), 1),
            "ratio_to_baseline": round(statistics.median(values) / base, 2),
            "runs": len(values),
        }
        for name, values in samples.items()
    }


def run(runs: int, items: int, baseline_src: Path | None) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_LLM_") and k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="autopatch-cold-") as tmp:
        projects = {"empty": Path(tmp) / "empty", "large": Path(tmp) / "large"}
        for project in projects.values():
            project.mkdir()
        started = time.perf_counter()
        build_store(projects["large"], items)
        build_s = time.perf_counter() - started
        sides = {"after": {**env, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc-after")}}
        if baseline_src is not None:
            before_path = os.pathsep.join(p for p in (str(baseline_src), env.get("PYTHONPATH", "")) if p)
            sides["before"] = {**env, "PYTHONPATH": before_path, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc-before")}
        table = commands(sys.executable)
        for side_env in sides.values():  # creates the empty Memory and writes the bytecode cache (not timed)
            for argv, where in table.values():
                _time(argv, projects[where], side_env)
        samples: dict[str, dict[str, list[float]]] = {side: {name: [] for name in table} for side in sides}
        for _ in range(runs):
            for name, (argv, where) in table.items():  # interleaved: noise hits every command alike
                for side, side_env in sides.items():
                    if side == "before" and name == BASELINE:
                        continue  # one baseline serves both sides
                    samples[side][name].append(_time(argv, projects[where], side_env))
        heavy = {side: heavy_imports(sys.executable, projects["empty"], side_env) for side, side_env in sides.items()}
    base = statistics.median(samples["after"][BASELINE])
    results = {side: _summaries({k: v for k, v in s.items() if v}, base) for side, s in samples.items()}
    status_ratio = results["after"]["autopatch-j memory status"]["ratio_to_baseline"]
    return {
        "benchmark": "cold_start",
        "runs": runs,
        "items_in_large_store": items,
        "large_store_build_s": round(build_s, 1),
        "baseline_src": str(baseline_src) if baseline_src else None,
        "results": results["after"],
        **({"results_before": results["before"]} if "before" in results else {}),
        "target_ratio": TARGET_RATIO,
        "memory_status_meets_target": status_ratio <= TARGET_RATIO,
        "heavy_modules_imported_by_memory_status": heavy["after"],
        **({"heavy_modules_before": heavy["before"]} if "before" in heavy else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="5 runs per command and a 2,000-memory store")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--runs", type=int, default=None, help="runs per command (default 15)")
    parser.add_argument("--items", type=int, default=None, help="memories in the large store (default 10,000)")
    parser.add_argument("--baseline-src", type=Path, default=None, help="also time this `src` tree (before)")
    args = parser.parse_args()
    report = run(
        args.runs or (5 if args.quick else 15),
        args.items or (2_000 if args.quick else 10_000),
        args.baseline_src.resolve() if args.baseline_src else None,
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"cold start, median of {report['runs']} interleaved runs each ({report['items_in_large_store']} items):")
    before = report.get("results_before", {})
    for name, r in report["results"].items():  # type: ignore[union-attr]
        line = f"  {name:34} {r['median_ms']:8.1f} ms  (x{r['ratio_to_baseline']:5.2f})"
        if name in before:  # type: ignore[operator]
            b = before[name]  # type: ignore[index]
            line += f"   before {b['median_ms']:8.1f} ms  (x{b['ratio_to_baseline']:5.2f})"
        print(line)
    verdict = "meets" if report["memory_status_meets_target"] else "MISSES"
    print(f"memory status {verdict} the <= {TARGET_RATIO:g}x target")
    print(f"heavy modules imported by memory status: {report['heavy_modules_imported_by_memory_status'] or 'none'}")
    if "heavy_modules_before" in report:
        print(f"  before: {report['heavy_modules_before'] or 'none'}")


if __name__ == "__main__":
    main()
