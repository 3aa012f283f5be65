"""Halves of a secrets set (`eval/secrets/…/secrets.json.gz`), split by family.

Half A holds every other family in name order (the first, the third …) and the look-alikes whose id
ends in an odd number; half B the rest. One half can be tuned or trained on while the other stays a
check nothing was fitted to (`bench/secret_heldout.py --half`, `scripts/train_secret_judge.py`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

Half = Literal["A", "B"]


def _number(case_id: str) -> int:
    """The number an id ends with (`l-007`, `s3-L007` → 7)."""
    digits = re.search(r"[0-9]+\Z", case_id)
    return int(digits.group()) if digits else 0


def half(doc: dict[str, Any], which: Half) -> dict[str, Any]:
    """The secrets and look-alikes of `doc` in half `which`."""
    families = sorted({case["family"] for case in doc["secrets"]})
    first = set(families[0::2])
    want_a = which == "A"
    return {
        "secrets": [c for c in doc["secrets"] if (c["family"] in first) == want_a],
        "lookalikes": [c for c in doc["lookalikes"] if (_number(c["id"]) % 2 == 1) == want_a],
    }
