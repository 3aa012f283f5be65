"""Redaction time on adversarial input, 1k → 1M characters (issue 10 item 4).

Each input is one that made a backtracking rule quadratic (long `[\\w.-]` runs, CJK, keyword chains,
`a=a=…`, unclosed quotes, escape runs, …). For every size the median of `--runs` timings is printed,
with the growth ratio to the previous size (×10 more input: a ratio near 10 is linear, near 100 would
be quadratic) and, as a baseline measured in the same run, `str.replace` over the same text.

    python bench/redaction_bench.py [--quick] [--json] [--runs N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cloud.redaction_inputs import NEW_FORMS, NEW_SHAPES, QUADRATIC_BEFORE

from autopatch_j.cloud.redaction import redact

INPUTS: dict[str, Callable[[int], str]] = {
    **QUADRATIC_BEFORE,
    **NEW_FORMS,
    **NEW_SHAPES,
    "mixed agent output": lambda n: ('{"type":"agent_message","text":"token=abc \\n ghp_x sk-y"} ' * n)[:n],
}


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k → 100k only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [1_000, 10_000, 100_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    figures: dict[str, dict[str, object]] = {}
    for name, make in INPUTS.items():
        rows = []
        for n in sizes:
            text = make(n)
            seconds = median_seconds(lambda text=text: redact(text), args.runs)
            baseline = median_seconds(lambda text=text: text.replace("\0", ""), args.runs)
            rows.append({"chars": n, "seconds": seconds, "baseline_seconds": baseline})
        for previous, row in itertools.pairwise(rows):
            row["growth_x10"] = row["seconds"] / previous["seconds"] if previous["seconds"] else None
        figures[name] = {"rows": rows, "growth_last_x10": rows[-1].get("growth_x10")}
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return
    print(f"redaction of adversarial input, median of {args.runs} (seconds; growth = time / time at 1/10 the size)")
    for name, data in figures.items():
        cells = []
        for row in data["rows"]:  # type: ignore[union-attr]
            growth = row.get("growth_x10")
            cells.append(f"{row['chars']:>9,}: {row['seconds']:.4f}" + (f" (×{growth:.1f})" if growth else ""))
        print(f"{name:22s} " + "  ".join(cells))
    worst = max(float(d["growth_last_x10"] or 0) for d in figures.values())
    print(f"worst growth for the last ×10 step: ×{worst:.1f} (linear ≈ ×10, quadratic ≈ ×100)")
    sys.exit(0)


if __name__ == "__main__":
    main()
