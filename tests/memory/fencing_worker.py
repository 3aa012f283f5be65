"""A real worker process for the fencing test: `python -m tests.memory.fencing_worker ROOT SEED`.

For every `go` line on stdin it runs one pipeline step with the offline extractor, wrapped so that
the extractor prints `ready` (the claim is held, no transaction is open) and then sleeps a seeded
100–200 ms — the window in which the parent SIGSTOPs it and clears Memory. It prints the step's
outcome as one JSON line. `quit` ends it.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest
from autopatch_j.memory.contracts import ConsolidationOutput, ExtractionOutput
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.offline import RulesExtractor
from autopatch_j.memory.pipeline import Pipeline


class PausingExtractor:
    name = "pausing"

    def __init__(self, rng: random.Random) -> None:
        self._rules = RulesExtractor()
        self._rng = rng

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        output = self._rules.extract(request)
        print("ready", flush=True)
        time.sleep(self._rng.uniform(0.1, 0.2))
        return output

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        return self._rules.consolidate(request)


def main() -> None:
    root, seed = Path(sys.argv[1]), int(sys.argv[2])
    manager = MemoryManager(root=root, owner=f"fencing-worker-{seed}")
    assert manager.open().ok
    pipeline = Pipeline.for_manager(manager, extractor=PausingExtractor(random.Random(seed)), heartbeat_seconds=None)
    for line in sys.stdin:
        if line.strip() == "quit":
            return
        result = pipeline.step(force=True)
        print(json.dumps({"outcome": None if result is None else result.outcome.value}), flush=True)


if __name__ == "__main__":
    main()
