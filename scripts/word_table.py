"""What the word-table builders share (`build_bilingual.py`, `build_families.py`,
`build_word_frequencies.py`): build the table's text, write it, report its rows — or say which
development packages the build needs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def write_table(build: Callable[[], str], out: Path, *, rows: str, needs: str) -> int:
    """Write `build()`'s text to `out` and print how many `rows` it holds (lines that are not `#`
    headers); exit status 1 with one sentence when a package the build imports is missing."""
    try:
        text = build()
    except ModuleNotFoundError:
        print(f"this script needs {needs}", file=sys.stderr)
        return 1
    out.write_text(text, encoding="utf-8")
    count = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    print(f"{count} {rows} → {out}")
    return 0
