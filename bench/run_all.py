"""Run every benchmark of the project and collect the figures: `bench/results.json` and `bench/results.md`.

    python bench/run_all.py [--quick] [--only NAME ...] [--out DIR]

Runs, one after another (never in parallel, so they do not disturb each other), each script with
`--json` (and `--quick` when asked): admission (single process and 8 processes), search (1k/10k/100k
against the FTS5 baseline), pipeline overhead, CLI cold start, cloud (SQLite; PostgreSQL too when
`AUTOPATCH_TEST_PG_URL` is set) and the crash/fault report. Every ratio is measured by its script
against a baseline in the same run. A script that does not exist yet is reported as `missing`, one
that fails or times out as `failed` with the end of its stderr; the others still run. Writes the
machine (nproc, memory, Python and SQLite versions, commit) next to the figures. `--quick` aims at
under 3 minutes in total.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# name -> (script, extra args, timeout in seconds for --quick, and for a full run)
SUITE: dict[str, tuple[str, list[str], int, int]] = {
    "admission": ("admission_bench.py", [], 60, 600),
    "search": ("search_bench.py", [], 90, 1800),
    "pipeline": ("pipeline_bench.py", [], 60, 900),
    "cold_start": ("cold_start_bench.py", [], 180, 1200),
    "import": ("import_bench.py", [], 120, 900),
    "mcp": ("mcp_bench.py", [], 180, 900),
    "cloud": ("cloud_bench.py", [], 120, 1800),
    "cloud_api": ("cloud_api_bench.py", [], 120, 600),
    "faults": ("fault_report.py", [], 120, 3600),
}

_KEY_HINTS = (
    "p50", "p99", "median", "ratio", "per_s", "_ms", "_s", "throughput", "busy", "error", "lost", "failure",
    "statements", "bytes", "meets", "ok", "duplicate", "unfinished", "trials", "acknowledged",
)  # fmt: skip


def machine() -> dict[str, Any]:
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "nproc": os.cpu_count(),
        "memory_gib": round(mem_kb / 1024 / 1024, 1) if mem_kb else None,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "commit": commit or None,
        "postgres": bool(os.environ.get("AUTOPATCH_TEST_PG_URL")),
    }


def run_one(name: str, quick: bool) -> dict[str, Any]:
    script, extra, quick_timeout, full_timeout = SUITE[name]
    path = BENCH / script
    argv = [sys.executable, str(path), "--json", *extra, *(["--quick"] if quick else [])]
    entry: dict[str, Any] = {"script": f"bench/{script}", "command": " ".join(["python", f"bench/{script}", *argv[3:]])}
    if not path.exists():
        return entry | {"status": "missing"}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            argv,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=quick_timeout if quick else full_timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return entry | {"status": "failed", "error": "timed out", "elapsed_s": round(time.perf_counter() - started, 1)}
    entry["elapsed_s"] = round(time.perf_counter() - started, 1)
    try:
        entry["result"] = json.loads(done.stdout)
    except json.JSONDecodeError:
        return entry | {"status": "failed", "exit_code": done.returncode, "error": (done.stderr or done.stdout)[-1500:]}
    entry["status"] = "ok" if done.returncode == 0 else "failed"
    if done.returncode != 0:
        entry["exit_code"] = done.returncode
        entry["error"] = done.stderr[-1500:]
    return entry


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            rows.extend(flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:20]):
            rows.extend(flatten(inner, f"{prefix}[{index}]"))
    elif isinstance(value, bool | int | float) or value is None:
        rows.append((prefix, value))
    return rows


def key_figures(result: Any, limit: int = 40) -> list[tuple[str, Any]]:
    rows = flatten(result)
    picked = [row for row in rows if any(hint in row[0].lower() for hint in _KEY_HINTS)]
    return (picked or rows)[:limit]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "—" if value is None else str(value)


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        "# Benchmark results",
        "",
        f"Produced by `python bench/run_all.py{' --quick' if report['quick'] else ''}` "
        f"on {report['finished_at']} in {report['elapsed_s']} s.",
        "",
        "| machine | value |",
        "|---|---|",
        *(f"| {key} | {_cell(value)} |" for key, value in m.items()),
        "",
        "Every ratio below is measured by its script against a baseline in the same run; latencies are",
        "medians / percentiles of repeated measurements on a shared, noisy machine.",
        "",
        "| benchmark | status | time (s) | command |",
        "|---|---|---|---|",
    ]
    for name, entry in report["benchmarks"].items():
        lines.append(f"| {name} | {entry['status']} | {_cell(entry.get('elapsed_s'))} | `{entry['command']}` |")
    for name, entry in report["benchmarks"].items():
        lines += ["", f"## {name}", ""]
        if entry["status"] == "missing":
            lines.append(f"`{entry['script']}` does not exist yet.")
            continue
        if "error" in entry:
            lines += ["```", str(entry["error"]).strip()[-800:], "```"]
        if "result" in entry:
            lines += ["| figure | value |", "|---|---|"]
            lines += [f"| {key} | {_cell(value)} |" for key, value in key_figures(entry["result"])]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="every script's --quick size (under 3 minutes)")
    parser.add_argument("--only", nargs="*", choices=sorted(SUITE), help="run only these benchmarks")
    parser.add_argument("--out", type=Path, default=BENCH, help="where results.json and results.md go")
    args = parser.parse_args()
    started = time.perf_counter()
    report: dict[str, Any] = {"quick": args.quick, "machine": machine(), "benchmarks": {}}
    for name in args.only or list(SUITE):
        print(f"[run_all] {name} …", file=sys.stderr, flush=True)
        entry = run_one(name, args.quick)
        report["benchmarks"][name] = entry
        print(f"[run_all] {name}: {entry['status']} ({entry.get('elapsed_s', 0)} s)", file=sys.stderr, flush=True)
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    report["finished_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (args.out / "results.md").write_text(markdown(report), encoding="utf-8")
    print(f"[run_all] wrote {args.out / 'results.json'} and {args.out / 'results.md'} in {report['elapsed_s']} s")
    failed = [name for name, entry in report["benchmarks"].items() if entry["status"] == "failed"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
