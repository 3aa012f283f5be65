"""Pipeline benchmark: turns per second through extraction + consolidation (M-40 … M-46).

Two extractors over the same generated zh/en conversation, each in a fresh real Memory database:

* `canned-llm` — the `LLMExtractor` against a zero-latency canned provider whose answers are valid
  JSON computed from the request (one candidate per explicit user turn, one `create` per candidate
  with a 16-character title, one alias and one keyword, as a model's short titles would be),
  so the figure is the pipeline's own overhead: claims, stage inputs, the JSON contract, the
  validators, the fenced commits, retrieval terms;
* `rules` — the offline `RulesExtractor` (the embedded default);
* `rules-reader` — the same with Stage 1 read by the trained sentence reader (`memory/reader.py`).

Turns are admitted first (not timed); the timed part is draining every job (`drain`, batches of 4,
consolidations serialized). The baseline, measured in the same run, is admission alone (begin +
complete per turn) — the ratio says how the pipeline compares with just storing the turns.
Prints medians over `--rounds` rounds.

    python bench/pipeline_bench.py [--quick] [--json] [--turns N] [--rounds R] [--seed S] [--scratch DIR]

`--scratch /dev/shm` puts the databases on a RAM disk: the figure is then CPU-bound (the pipeline's
own cost), without the disk, which on a shared machine dominates and moves with the load (the
load average is printed with the results).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import ChatRequest, Purpose
from autopatch_j.memory.drain import drain
from autopatch_j.memory.extractor import Extractor, LLMExtractor
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.records import Intent

STATEMENTS = [
    "以后回答先给结论，再展开细节。",
    "项目统一使用 Python 3.{n}+。",
    "From now on, answer in English for topic {n}.",
    "Let's use ruff rule set {n} for formatting.",
    "我们决定模块 {n} 改用 pytest 写测试。",
    "Never use wildcard imports in package {n}.",
]
CHATTER = [
    "这个函数 f{n} 是做什么的？",
    "这次简单说一下就行：模块 {n} 怎么用？",
    "pom.xml 里现在配置的是 Java 1{n}",
    "How does the cache in service {n} work?",
]


def conversation(turns: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out = []
    for i in range(turns):
        pool = STATEMENTS if rng.random() < 0.5 else CHATTER
        out.append((rng.choice(pool).format(n=i), f"好的，第 {i} 轮的回答。 Answer {i}."))
    return out


def canned_llm() -> CannedProvider:
    """Zero latency: answers computed from the request payload, always valid."""

    def answer(request: ChatRequest) -> str:
        payload = json.loads(request.messages[-1].content or "{}")
        if request.purpose is Purpose.EXTRACTION:
            candidates = []
            for turn in payload["turns"]:
                text = turn["user"]
                if any(marker in text for marker in ("以后", "统一", "From now on", "Let's use", "决定", "Never use")):
                    kind = "user_preference" if ("回答" in text or "answer" in text) else "project_decision"
                    candidates.append({"kind": kind, "content": text, "subject": "", "sources": [
                        {"turn_id": turn["turn_id"], "role": "user", "quote": text}]})  # fmt: skip
            return json.dumps({"compaction": f"{len(payload['turns'])} turns", "candidates": candidates})
        operations = [
            {"op": "create", "candidate_ids": [c["id"]], "title": c["content"][:16], "aliases": ["alias"],
             "keywords": ["keyword"], "content": c["content"]}
            for c in payload["candidates"]
        ]  # fmt: skip
        return json.dumps({"operations": operations}, ensure_ascii=False)

    return CannedProvider(default=answer)


def fresh_manager(scratch: Path, name: str) -> MemoryManager:
    root = scratch / name
    root.mkdir()
    manager = MemoryManager(root=root, owner=f"bench-{name}")
    assert manager.open().ok
    return manager


def admit(manager: MemoryManager, exchanges: list[tuple[str, str]]) -> float:
    start = time.perf_counter()
    for user, assistant in exchanges:
        ticket = manager.begin_turn(user, Intent.GENERAL_CHAT)
        manager.complete_turn(ticket, assistant)
    return time.perf_counter() - start


def run_round(
    scratch: Path, name: str, exchanges: list[tuple[str, str]], make: Callable[[], Extractor]
) -> dict[str, Any]:
    manager = fresh_manager(scratch, name)
    admit_s = admit(manager, exchanges)
    pipeline = Pipeline.for_manager(manager, extractor=make(), heartbeat_seconds=None)
    start = time.perf_counter()
    report = drain(pipeline, budget_s=None)
    drain_s = time.perf_counter() - start
    assert not report.errors and not report.left, report.to_dict()
    return {
        "turns_per_s": len(exchanges) / drain_s,
        "admission_turns_per_s": len(exchanges) / admit_s,
        "jobs": report.jobs_run,
        "candidates": report.candidates,
        "memories": len(manager.list_items()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer turns and rounds")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--turns", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--scratch", type=Path, default=None, help="directory for the databases")
    args = parser.parse_args(argv)
    turns = args.turns or (120 if args.quick else 400)
    rounds = args.rounds or (1 if args.quick else 3)
    exchanges = conversation(turns, args.seed)
    extractors: dict[str, Callable[[], Extractor]] = {
        "canned-llm": lambda: LLMExtractor(provider=canned_llm()),
        "rules": RulesExtractor,
        "rules-reader": lambda: RulesExtractor(read_with_model=True),
    }
    results: dict[str, Any] = {"turns": turns, "rounds": rounds, "seed": args.seed, "extractors": {}}
    results["load_average_before"] = round(os.getloadavg()[0], 2)
    with tempfile.TemporaryDirectory(prefix="pipeline-bench-", dir=args.scratch) as tmp:
        scratch = Path(tmp)
        for name, make in extractors.items():
            samples = [run_round(scratch, f"{name}-{r}", exchanges, make) for r in range(rounds)]
            median = statistics.median(s["turns_per_s"] for s in samples)
            baseline = statistics.median(s["admission_turns_per_s"] for s in samples)
            results["extractors"][name] = {
                "median_turns_per_s": round(median, 1),
                "admission_baseline_turns_per_s": round(baseline, 1),
                "pipeline_vs_admission": round(median / baseline, 2),
                "jobs": samples[0]["jobs"],
                "candidates": samples[0]["candidates"],
                "memories": samples[0]["memories"],
            }
    results["load_average_after"] = round(os.getloadavg()[0], 2)
    results["scratch"] = str(args.scratch or tempfile.gettempdir())
    if args.json:
        print(json.dumps(results, indent=2, sort_keys=True))
    else:
        print(
            f"pipeline bench: {turns} turns, {rounds} round(s), seed {args.seed} (medians), databases under "
            f"{results['scratch']}, load average {results['load_average_before']} → {results['load_average_after']}"
        )
        for name, r in results["extractors"].items():
            print(
                f"  {name:<11} {r['median_turns_per_s']:>8.1f} turns/s through extraction + consolidation "
                f"(admission alone {r['admission_baseline_turns_per_s']:.1f} turns/s, ratio "
                f"{r['pipeline_vs_admission']:.2f}); {r['jobs']} jobs, {r['candidates']} candidates, "
                f"{r['memories']} memories"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
