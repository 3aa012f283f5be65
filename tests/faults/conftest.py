"""Crash and fault suite settings: a logged, overridable seed and the short (CI) / full mode switch.

- `AUTOPATCH_FAULT_SEED=N` replays a run; otherwise a fresh seed is drawn and printed (`-s` shows it,
  and every failure message repeats it).
- Short mode (default, CI): ≥ 200 kill -9 trials, 8 writers, the WAL bound at CI size.
- Full mode: `AUTOPATCH_FAULT_FULL=1 pytest tests/faults -m slow` — ≥ 1,000 trials, 16 writers,
  longer WAL runs. `AUTOPATCH_FAULT_TRIALS=N` overrides the kill -9 trial count of either mode.
"""

from __future__ import annotations

import os
import random

import pytest

FULL = os.environ.get("AUTOPATCH_FAULT_FULL", "").strip().lower() in {"1", "true", "yes", "on"}


def trials(default: int) -> int:
    raw = os.environ.get("AUTOPATCH_FAULT_TRIALS", "").strip()
    return int(raw) if raw.isdigit() else default


@pytest.fixture
def fault_seed(request: pytest.FixtureRequest) -> int:
    raw = os.environ.get("AUTOPATCH_FAULT_SEED", "").strip()
    seed = int(raw) if raw.isdigit() else random.SystemRandom().randrange(1, 2**31)
    print(f"\n[faults] {request.node.name}: AUTOPATCH_FAULT_SEED={seed}")
    request.node.user_properties.append(("fault_seed", seed))
    return seed


full_only = pytest.mark.skipif(not FULL, reason="full fault mode: set AUTOPATCH_FAULT_FULL=1 (and -m slow)")
