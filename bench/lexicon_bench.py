"""Lexicon cost: load, first-use compile and per-sentence judgement of the bundled lexicon (issue 11).

The offline extractor and the validators share one lexicon per process; its categories compile on
first use. Each run loads the lexicon afresh (with the `re` cache purged) — the bundled one with the
bundled speech model (`speech_model.json`, round 20), as `default_lexicon()` does — judges a few
sentences (which compiles every category the extraction path touches and reads each sentence with
the model), then times the judgements warm (the model's score cache cleared). With `--baseline FILE`
(e.g. lexicon v2 from git: `git show f5a85c1:src/autopatch_j/memory/lexicon.json`) the same is
measured for that file, without a model, in the same run, interleaved, and ratios are printed.

    python bench/lexicon_bench.py [--runs N] [--baseline FILE] [--json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import time
from importlib import resources
from pathlib import Path
from typing import Any

from autopatch_j.memory.lexicon import LEXICON_FILE, Lexicon
from autopatch_j.memory.speech_model import MODEL_FILE, SpeechModel, clear_scores

SENTENCES = (
    "团队决定改用 Gradle 构建。",
    "From now on, answer first and explain after.",
    "这个函数负责解析配置文件。",
    "Should we switch to Poetry?",
    "OK, let's do that.",
    "pom.xml 里现在配置的是 Java 17",
)


def _judge(lexicon: Lexicon) -> None:
    for sentence in SENTENCES:
        lexicon.supports_statement(sentence)
        lexicon.kind_hint(sentence)
        lexicon.is_confirmation(sentence)
        lexicon.has_proposal_signal(sentence)
        lexicon.anchor_tokens(sentence)
        lexicon.is_discussion(sentence)
        lexicon.is_switch(sentence)
        lexicon.statement_in_turn(sentence, sentence)


def _once(text: str, speech: str | None) -> tuple[float, float, float]:
    re.purge()
    clear_scores()
    started = time.perf_counter()
    lexicon = Lexicon.from_data(json.loads(text))
    if speech is not None:
        model = SpeechModel.from_data(json.loads(speech))
        lexicon = dataclasses.replace(lexicon, speech=lambda: model)
    loaded = time.perf_counter()
    _judge(lexicon)
    first = time.perf_counter()
    clear_scores()
    _judge(lexicon)
    warm = time.perf_counter()
    return (loaded - started) * 1e3, (first - loaded) * 1e3, (warm - first) * 1e6 / len(SENTENCES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    package = resources.files("autopatch_j.memory")
    texts = {"bundled": package.joinpath(LEXICON_FILE).read_text(encoding="utf-8")}
    speech = {"bundled": package.joinpath(MODEL_FILE).read_text(encoding="utf-8"), "baseline": None}
    if args.baseline is not None:
        texts["baseline"] = args.baseline.read_text(encoding="utf-8")
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in texts}
    for _ in range(max(1, args.runs)):
        for name, text in texts.items():
            samples[name].append(_once(text, speech[name]))
    result: dict[str, Any] = {}
    for name, runs in samples.items():
        result[name] = {
            "version": json.loads(texts[name])["version"],
            "load_ms": round(statistics.median(r[0] for r in runs), 2),
            "first_use_compile_ms": round(statistics.median(r[1] for r in runs), 2),
            "warm_us_per_sentence": round(statistics.median(r[2] for r in runs), 1),
        }
    if "baseline" in result:
        base, now = result["baseline"], result["bundled"]
        result["ratios"] = {
            "load+first_use": round(
                (now["load_ms"] + now["first_use_compile_ms"]) / (base["load_ms"] + base["first_use_compile_ms"]), 2
            ),
            "warm_per_sentence": round(now["warm_us_per_sentence"] / base["warm_us_per_sentence"], 2),
        }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for name, figures in result.items():
        print(f"{name}: {figures}")


if __name__ == "__main__":
    main()
