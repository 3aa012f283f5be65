"""`scripts/build_bilingual.py`, `scripts/build_families.py` and `scripts/build_word_frequencies.py`:
each packaged word table is exactly what its script writes, in the key order search bisects. The tools
they read are the `tables` extra, part of the `test` install (pyproject.toml), so this never skips."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "src" / "autopatch_j" / "memory" / "text"


@pytest.mark.parametrize(
    ("script", "table"),
    [
        ("build_bilingual", "bilingual.txt"),
        ("build_families", "families.txt"),
        ("build_word_frequencies", "frequencies.txt"),
    ],
)
def test_the_packaged_word_table_is_the_scripts_output(script: str, table: str) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        module = importlib.import_module(script)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert module.build() == (TABLES / table).read_text(encoding="utf-8")
