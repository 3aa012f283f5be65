"""Crash and fault figures: kill -9 loop, many writers on one file (+ negative control), WAL growth.

The same harnesses as `tests/faults` (`autopatch_j.quality.faults`), printed as figures.
Every run logs its seed; `--seed` replays one.

    python bench/fault_report.py [--quick | --full] [--json] [--seed N]

--quick (default sizes for `bench/run_all.py --quick`): 200 kill -9 trials, 8 writers × 40 commits,
WAL runs of 2 × 300 commits. Default: 400 trials, 8 and 16 writers, 2 × 600 commits. --full: 1,000
trials, 16 writers × 200 commits, 2 × 1,500 commits.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from autopatch_j.quality import faults

WAL_BOUND_BYTES = 16 * 1024 * 1024

SIZES = {
    "quick": {"trials": 200, "writers": [8], "commits": 40, "wal_commits": 300},
    "default": {"trials": 400, "writers": [8, 16], "commits": 80, "wal_commits": 600},
    "full": {"trials": 1_000, "writers": [8, 16], "commits": 200, "wal_commits": 1_500},
}


def run(size: str, seed: int) -> dict[str, Any]:
    s = SIZES[size]
    report: dict[str, Any] = {"benchmark": "faults", "size": size, "seed": seed}
    with tempfile.TemporaryDirectory(prefix="autopatch-faults-") as tmp:
        base = Path(tmp)
        kill = faults.kill_loop(
            base / "kill",
            trials=s["trials"],
            seed=seed,
            max_run_ms=200,
            runner=faults.offline_job_runner,
            jobs_every=1,
            integrity_every=10 if size != "full" else 25,
            final_drain=faults.drain_everything,
        )
        report["kill9"] = kill.as_dict()
        report["writers"] = [
            faults.concurrent_writers(
                base / f"writers-{n}", processes=n, commits_per_process=s["commits"], seed=seed
            ).as_dict()
            for n in s["writers"]
        ]
        report["deferred_control"] = faults.concurrent_writers(
            base / "control", processes=8, commits_per_process=s["commits"], seed=seed, mode="deferred-control"
        ).as_dict()
        wal = {}
        for name, options in (
            ("one_reader_with_gaps", {"readers": 1, "reader_gap_ms": 5.0}),
            ("four_back_to_back_readers", {"readers": 4}),
            ("pinned_reader_control", {"readers": 1, "pinned_reader": True}),
        ):
            wal[name] = faults.wal_growth(
                base / f"wal-{name}", writers=2, commits_per_writer=s["wal_commits"], seed=seed, **options
            ).as_dict()
        report["wal"] = wal
        report["wal_bound_bytes"] = WAL_BOUND_BYTES
    report["ok"] = bool(
        kill.ok
        and all(w["busy_errors"] == 0 and w["other_errors"] == 0 for w in report["writers"])
        and report["deferred_control"]["busy_errors"] > 0
        and wal["one_reader_with_gaps"]["wal_max_bytes"] <= WAL_BOUND_BYTES
        and wal["four_back_to_back_readers"]["wal_max_bytes"] <= WAL_BOUND_BYTES
        and wal["pinned_reader_control"]["wal_max_bytes"] > WAL_BOUND_BYTES
    )
    return report


def _mb(value: int) -> str:
    return f"{value / 1024 / 1024:.1f} MiB"


def render(r: dict[str, Any]) -> None:
    k = r["kill9"]
    print(f"fault report ({r['size']}), seed {r['seed']} — replay with --seed {r['seed']}")
    print(
        f"kill -9: {k['trials']} trials ({k['killed_mid_run']} killed mid-run) in {k['elapsed_s']:.1f} s; "
        f"acknowledged turns {k['acknowledged_turns']}, job commits {k['acknowledged_jobs']}; "
        f"lost {k['acknowledged_lost']}; quick_check/integrity_check/foreign_key_check failures "
        f"{k['quick_check_failures']}/{k['integrity_check_failures']}/{k['foreign_key_failures']}; "
        f"open turns after recovery {k['open_turns_after_recovery']}; jobs unfinished after drain "
        f"{k['jobs_unfinished_after_drain']} (of {k['jobs_total']}); duplicate items {k['duplicate_items']}"
    )
    for w in r["writers"]:
        print(
            f"{w['processes']} writers × {w['commits_per_process']} turns: busy errors {w['busy_errors']}, "
            f"other errors {w['other_errors']}, commit p50 {w['p50_ms']:.2f} ms, p99 {w['p99_ms']:.2f} ms, "
            f"max {w['max_ms']:.1f} ms; turns kept {w['turns_in_db']}, duplicate seqs {w['duplicate_seqs']}"
        )
    c = r["deferred_control"]
    print(f"negative control (deferred read-then-write, busy_timeout 20 ms): busy errors {c['busy_errors']} "
          f"of {c['processes'] * c['commits_per_process']} attempts")  # fmt: skip
    for name, w in r["wal"].items():
        print(f"WAL {name}: max {_mb(w['wal_max_bytes'])} over {w['commits']} turns ({w['reads']} reads)")
    print(f"WAL bound {_mb(r['wal_bound_bytes'])} for short readers (gaps or back to back); all checks ok: {r['ok']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="CI-sized runs (about a minute)")
    size.add_argument("--full", action="store_true", help="≥ 1,000 kill -9 trials, 16 writers, long WAL runs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=int, default=None, help="replay a run (default: a fresh, printed seed)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    started = time.perf_counter()
    report = run("quick" if args.quick else "full" if args.full else "default", seed)
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        render(report)
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
