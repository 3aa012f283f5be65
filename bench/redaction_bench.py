"""Redaction time on adversarial input, 1k → 1M characters (issue 10 item 4).

Each input is one that made a backtracking rule quadratic (long `[\\w.-]` runs, CJK, keyword chains,
`a=a=…`, unclosed quotes, escape runs, …). For every size the median of `--runs` timings is printed,
with the growth ratio to the previous size (×10 more input: a ratio near 10 is linear, near 100 would
be quadratic) and, as a baseline measured in the same run, `str.replace` over the same text.

    python bench/redaction_bench.py [--quick] [--json] [--runs N]
    python bench/redaction_bench.py --corpora [--runs N]

`--corpora` instead times the redaction of real texts — each secrets set directly under `eval/secrets/`
and every string (≥ 8 characters) of the realistic agent sessions in `eval/realistic/` outside
`heldout/` (the sets no one has measured yet stay unread) — in ms per MB
(median of `--runs`), with `str.lower()` over the same texts in the same run as the baseline. To time
another checkout's rules with this script, put its `src` first: `PYTHONPATH=OTHER/src python …`.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cloud.redaction_inputs import (
    NEW_FORMS,
    NEW_JUDGE,
    NEW_LAYOUTS,
    NEW_PATHS,
    NEW_PLACEMENTS,
    NEW_SHAPES,
    NEW_SINKS,
    QUADRATIC_BEFORE,
)

from autopatch_j.cloud.redaction import redact
from autopatch_j.quality.realistic import json_strings

INPUTS: dict[str, Callable[[int], str]] = {
    **QUADRATIC_BEFORE,
    **NEW_FORMS,
    **NEW_SHAPES,
    **NEW_PATHS,
    **NEW_JUDGE,
    **NEW_LAYOUTS,
    **NEW_SINKS,
    **NEW_PLACEMENTS,
    "mixed agent output": lambda n: ('{"type":"agent_message","text":"token=abc \\n ghp_x sk-y"} ' * n)[:n],
}


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


ROOT = Path(__file__).resolve().parents[1]


def corpora() -> dict[str, list[str]]:
    """The texts of each secrets set and of the realistic sessions."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "eval" / "secrets").glob("*/secrets.json.gz")):
        doc = json.loads(gzip.decompress(path.read_bytes()))
        found[path.parent.name] = [case["text"] for case in doc["secrets"] + doc["lookalikes"]]
    realistic = ROOT / "eval" / "realistic"
    parts = sorted(path for path in realistic.iterdir() if path.is_dir() and path.name != "heldout")
    found["realistic"] = [text for part in parts for text in json_strings(part)]
    return found


def _each(fn: Callable[[str], str], texts: list[str]) -> None:
    for text in texts:
        fn(text)


def time_corpora(runs: int) -> dict[str, dict[str, float]]:
    figures = {}
    for name, texts in corpora().items():
        size = sum(len(text.encode()) for text in texts)
        ours = median_seconds(functools.partial(_each, redact, texts), runs)
        base = median_seconds(functools.partial(_each, str.lower, texts), runs)
        figures[name] = {
            "texts": len(texts),
            "bytes": size,
            "redact_ms_per_mb": round(ours / size * 1e9, 1),
            "lower_ms_per_mb": round(base / size * 1e9, 3),
            "ratio_to_lower": round(ours / base),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1k → 100k only")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--corpora", action="store_true", help="time the secrets sets and realistic sessions")
    args = parser.parse_args()
    if args.corpora:
        timed = time_corpora(args.runs)
        if args.json:
            print(json.dumps(timed, indent=2))
            return
        print(f"redaction of real texts, median of {args.runs} (ms per MB; str.lower over the same texts)")
        for name, row in timed.items():
            print(
                f"{name:10s} {row['texts']:>6} texts {row['bytes']:>10,} B  redact {row['redact_ms_per_mb']:>8.1f}"
                f"  lower {row['lower_ms_per_mb']:>7.3f}  ×{row['ratio_to_lower']:,.0f}"
            )
        return
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
