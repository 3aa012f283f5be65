"""Redaction on a held-out secrets set written by an author who never saw the rules.

The file (JSON) holds `secrets` — each with `family`, `form` (plain, json_escaped, url_encoded,
wrapped, quoted, zh_labelled), the realistic `text` it sits in and `must_not_contain`, the exact
substrings that must not survive redaction — and `lookalikes`, texts that hold no secret and must
come back unchanged. A secret is caught when none of its `must_not_contain` pieces is left in
`redact(text)`; a look-alike is a false positive when `redact(text) != text`.

Prints recall per form and per family, the false-positive rate, and the time per MB of the whole
set against `str.lower()` over the same text in the same run.

    python bench/secret_heldout.py FILE [--half A|B] [--weights JUDGE.json] [--json]

FILE is a set such as `eval/secrets/s1/secrets.json.gz`.

`--half A` keeps every other family (sorted by name, starting with the first) and the look-alikes
with an odd id number, `--half B` the rest: tune on one half, score the other once, to estimate
how tuning carries to an author the rules have not seen. `--weights` scores the rules with another
secret judge than the shipped one (one trained without this author: `python
scripts/train_secret_judge.py --hold-out sN --out JUDGE.json`, the leave-one-author-out estimate).

The set is kept gzipped in the repository so that no file holds provider-format literals in clear.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.secret_judge import SecretJudge
from autopatch_j.quality.secret_halves import half

RECALL_TARGET = 0.99
FP_TARGET = 0.02


def redactor(judge: SecretJudge | None) -> Any:
    """`redact` with the given judge (the shipped one when None)."""
    return functools.partial(redact, judge=judge)


def score(doc: dict[str, Any], judge: SecretJudge | None = None) -> dict[str, Any]:
    redact = redactor(judge)
    by_form: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    missed: list[str] = []
    for case in doc["secrets"]:
        out = redact(case["text"])
        caught = not any(piece in out for piece in case["must_not_contain"])
        for table, key in ((by_form, case["form"]), (by_family, case["family"])):
            table[key][0] += caught
            table[key][1] += 1
        if not caught:
            missed.append(case["id"])
    false_positives = [case["id"] for case in doc["lookalikes"] if redact(case["text"]) != case["text"]]
    texts = [c["text"] for c in doc["secrets"]] + [c["text"] for c in doc["lookalikes"]]
    size = sum(len(t.encode()) for t in texts)
    ours, base = [], []
    for _ in range(5):
        start = time.perf_counter()
        for t in texts:
            redact(t)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        for t in texts:
            t.lower()
        base.append(time.perf_counter() - start)
    worst_form = min(c / t for c, t in by_form.values())
    fp_rate = len(false_positives) / max(1, len(doc["lookalikes"]))
    return {
        "secrets": len(doc["secrets"]),
        "lookalikes": len(doc["lookalikes"]),
        "recall_per_form": {k: f"{c}/{t}" for k, (c, t) in sorted(by_form.items())},
        "recall_per_family": {k: f"{c}/{t}" for k, (c, t) in sorted(by_family.items())},
        "worst_form_recall": round(worst_form, 4),
        "missed": missed,
        "false_positives": false_positives,
        "false_positive_rate": round(fp_rate, 4),
        "bytes": size,
        "redact_ms_per_mb_median": round(statistics.median(ours) / size * 1e9, 1),
        "lower_ms_per_mb_median": round(statistics.median(base) / size * 1e9, 3),
        "targets_met": worst_form >= RECALL_TARGET and fp_rate <= FP_TARGET,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path, help="the held-out secrets JSON (optionally .gz)")
    parser.add_argument("--half", choices=("A", "B"), help="score one half of the set (see above)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--weights", type=Path, help="a secret judge's weights JSON instead of the shipped one")
    args = parser.parse_args()
    try:
        raw = args.file.read_bytes()
        doc = json.loads(gzip.decompress(raw) if args.file.suffix == ".gz" else raw)
    except (OSError, ValueError, EOFError) as exc:
        print(f"cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    try:
        judge = SecretJudge.from_json(args.weights.read_text(encoding="utf-8")) if args.weights else None
    except (OSError, ValueError) as exc:
        print(f"cannot read the judge's weights {args.weights}: {exc}", file=sys.stderr)
        return 2
    figures = score(half(doc, args.half) if args.half else doc, judge)
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return 0
    print(f"{figures['secrets']} secrets, {figures['lookalikes']} look-alikes ({figures['bytes']:,} bytes)")
    for form, frac in figures["recall_per_form"].items():
        print(f"  {form:<14} {frac}")
    f = figures
    print(f"worst form recall {f['worst_form_recall']:.3f} (target {RECALL_TARGET})")
    print(f"false positives {len(f['false_positives'])} = {f['false_positive_rate']:.3f} (target ≤ {FP_TARGET})")
    print(f"missed: {', '.join(f['missed']) or '-'}")
    print(f"false positives: {', '.join(f['false_positives']) or '-'}")
    print(f"redact {f['redact_ms_per_mb_median']} ms/MB vs str.lower {f['lower_ms_per_mb_median']} ms/MB (median of 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
