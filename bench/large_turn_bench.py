"""What one large turn costs the pipeline (issue 9.9): admission + the offline (rules) drain of one turn.

For each size — a short baseline turn, 10k, 50k and MAX_TURN_CHARS (100k) characters of realistic
zh/en chat in which every sentence is an explicit statement (the rules extractor's worst case) —
a fresh Memory admits the turn and drains it with the `RulesExtractor` (extraction + consolidation).
Prints the median over `--rounds` and the ratio to the baseline measured in the same run, the
outcome of the drain (a large turn must succeed, not go to retry), and the time to refuse a 20 MB
message (checked before anything is stored).

Where the time goes (cProfile, 200k characters before the fix): 98 % in the rules extractor's
per-sentence lexicon checks (~0.4 ms per sentence, regex searches after NFKC folding), linear in the
text; the output then had 8,000 candidates, over the 32 a batch may hold, so validation rejected it
whole and the job went to retry with the same cost every attempt. Admission, validation and
consolidation are negligible beside it.

    python bench/large_turn_bench.py [--rounds R] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from autopatch_j.memory.admission import MAX_TURN_CHARS
from autopatch_j.memory.drain import drain
from autopatch_j.memory.errors import InvalidInputError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.records import Intent

SENTENCE = "以后回答先给结论，再写细节。From now on, always run the tests before committing. "
SIZES = {"baseline (60 chars)": 60, "10k": 10_000, "50k": 50_000, "100k (the limit)": MAX_TURN_CHARS}


def _text(chars: int) -> str:
    return (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]


def one_turn(chars: int) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as scratch:
        manager = MemoryManager(root=Path(scratch))
        manager.open()
        start = time.perf_counter()
        ticket = manager.begin_turn(_text(chars), Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, "好的。")
        report = drain(Pipeline.for_manager(manager, extractor=RulesExtractor()), budget_s=None)
        elapsed = time.perf_counter() - start
        manager.close()
        outcomes = ",".join(step.outcome.value for step in report.steps)
        return elapsed, outcomes


def refuse_20mb() -> float:
    with tempfile.TemporaryDirectory() as scratch:
        manager = MemoryManager(root=Path(scratch))
        manager.open()
        text = _text(20_000_000)
        start = time.perf_counter()
        try:
            manager.begin_turn(text, Intent.GENERAL_CHAT)
        except InvalidInputError:
            pass
        else:
            raise SystemExit("a 20 MB message was admitted")
        elapsed = time.perf_counter() - start
        manager.close()
        return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for label, chars in SIZES.items():
        runs = [one_turn(chars) for _ in range(args.rounds)]
        results[label] = {"median_s": statistics.median(t for t, _ in runs), "outcomes": runs[0][1]}
    base = results["baseline (60 chars)"]["median_s"]
    for entry in results.values():
        entry["ratio"] = entry["median_s"] / base
    refused = statistics.median(refuse_20mb() for _ in range(args.rounds))
    if args.json:
        print(json.dumps({"sizes": results, "refuse_20mb_s": refused}, indent=2))
        return
    print(f"{'turn size':<20} {'median':>10} {'x baseline':>11}  drain outcomes")
    for label, entry in results.items():
        print(f"{label:<20} {entry['median_s'] * 1000:>8.1f}ms {entry['ratio']:>10.1f}x  {entry['outcomes']}")
    print(f"refuse a 20 MB message: {refused * 1000:.1f} ms (nothing stored)")


if __name__ == "__main__":
    main()
