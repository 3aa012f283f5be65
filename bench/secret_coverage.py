"""Redaction coverage (issue 10 item 6): recall per secret family and the false-positive rate.

The labelled corpus is `tests/cloud/secret_corpus.py` (≥ 150 fake literals over ≥ 30 families,
written from the providers' documented formats and built at runtime; ≥ 100 benign look-alikes).
Targets: recall ≥ 99 % on every declared family, false positives ≤ 2 %.
`tests/cloud/test_secret_coverage.py` enforces the same targets.

    python bench/secret_coverage.py [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cloud.secret_corpus import build, score

RECALL_TARGET = 0.99
FP_TARGET = 0.02


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    corpus = build()
    result = score(corpus)
    worst = min(caught / total for caught, total in result.recall.values())
    figures = {
        "families": len(result.recall),
        "literals": result.literals,
        "cases": len(corpus.secrets),
        "benign": result.benign_total,
        "recall_per_family": {name: round(caught / total, 4) for name, (caught, total) in result.recall.items()},
        "worst_family_recall": round(worst, 4),
        "false_positives": result.false_positives,
        "false_positive_rate": round(result.fp_rate, 4),
        "targets_met": worst >= RECALL_TARGET and result.fp_rate <= FP_TARGET,
    }
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
    else:
        print(
            f"{figures['families']} families, {figures['literals']} literals in {figures['cases']} contexts, "
            f"{figures['benign']} benign look-alikes"
        )
        for name, (caught, total) in sorted(result.recall.items()):
            print(f"  {name:34s} {caught:3d}/{total:<3d} recall {caught / total:7.2%}")
        print(f"worst family recall {worst:.2%} (target ≥ {RECALL_TARGET:.0%})")
        print(
            f"false positives {len(result.false_positives)}/{result.benign_total} = {result.fp_rate:.2%} "
            f"(target ≤ {FP_TARGET:.0%}): {result.false_positives}"
        )
        print("targets met" if figures["targets_met"] else "TARGETS MISSED")
    sys.exit(0 if figures["targets_met"] else 1)


if __name__ == "__main__":
    main()
