"""Load time of the shipped models, each in fresh processes, beside an empty interpreter.

    nice python bench/model_load_bench.py [--runs 7]

Prints the median over `--runs` fresh processes of: the interpreter's start (`python -c pass`, whole
process), loading the speech model, the sentence reader and the joining model (time inside the
process, after the imports), and the reader/speech ratio of the same run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

LOADS = {
    "speech model": "from autopatch_j.memory.speech_model import default_speech_model as load",
    "sentence reader": "from autopatch_j.memory.reader import default_reader_model as load",
    "joining model": "from autopatch_j.memory.joining import default_joining_model as load",
}
TIMED = "\nimport time\nt = time.perf_counter()\nload()\nprint((time.perf_counter() - t) * 1000)\n"


def _empty_ms() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return (time.perf_counter() - start) * 1000


def _load_ms(code: str) -> float:
    done = subprocess.run([sys.executable, "-c", code + TIMED], check=True, capture_output=True, text=True)
    return float(done.stdout.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    figures = {"python -c pass (whole process)": statistics.median(_empty_ms() for _ in range(args.runs))}
    for name, code in LOADS.items():
        figures[name] = statistics.median(_load_ms(code) for _ in range(args.runs))
    for name, ms in figures.items():
        print(f"{name:32} {ms:8.1f} ms (median of {args.runs})")
    print(f"reader / speech model: {figures['sentence reader'] / figures['speech model']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
