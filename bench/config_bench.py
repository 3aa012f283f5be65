"""Configuration (issue 16): what reading the LLM settings once costs a fresh process.

Each sample is a fresh interpreter that first imports what the `ask`/REPL path has already imported
(the `openai` SDK, hence pydantic), then times the first `load_llm_settings` call — the one read at
the entry point, which imports pydantic-settings and builds the settings class. Three cases:
configured by the environment, configured by `.autopatch-j/config.toml`, and nothing configured
(answered without loading pydantic-settings). Beside them, measured in the same run and interleaved
so machine noise hits all alike: the wall time of `python -c pass`.

    python bench/config_bench.py [--runs 9] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CASE = """
import sys, time
from pathlib import Path
import openai
from autopatch_j.llm.config import load_llm_settings
env = {env!r}
start = time.perf_counter()
settings = load_llm_settings(env, Path({file!r}))
print(time.perf_counter() - start, settings is not None, "pydantic_settings" in sys.modules)
"""


def _sample(code: str) -> tuple[float, bool, bool]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, configured, loaded = done.stdout.split()
    return float(seconds), configured == "True", loaded == "True"


def _pass() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "config.toml"
        file.write_text('api_key = "k"\nmodel = "m"\nmax_output_tokens = 64\n', encoding="utf-8")
        missing = Path(tmp) / "missing.toml"
        environ = {"AUTOPATCH_LLM_API_KEY": "k", "AUTOPATCH_LLM_MODEL": "m"}
        cases = {
            "environment": CASE.format(env=environ, file=str(missing)),
            "config.toml": CASE.format(env={}, file=str(file)),
            "nothing configured": CASE.format(env={}, file=str(missing)),
        }
        samples: dict[str, list[float]] = {name: [] for name in [*cases, "python -c pass"]}
        loads: dict[str, bool] = {}
        for _ in range(args.runs):
            samples["python -c pass"].append(_pass())
            for name, code in cases.items():
                seconds, _configured, loaded = _sample(code)
                samples[name].append(seconds)
                loads[name] = loaded
    medians = {name: statistics.median(values) for name, values in samples.items()}
    baseline = medians["python -c pass"]
    if args.json:
        print(json.dumps({"median_ms": {k: round(v * 1000, 2) for k, v in medians.items()}, "loads": loads}))
        return
    print(f"first load_llm_settings in a fresh process (openai already imported), median of {args.runs}:")
    for name, value in medians.items():
        note = "" if name == "python -c pass" else f"  pydantic-settings loaded: {loads[name]}"
        print(f"  {name:20s} {value * 1000:8.1f} ms  ({value / baseline:5.2f}x python -c pass){note}")


if __name__ == "__main__":
    main()
