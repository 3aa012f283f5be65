"""History stays out of the code: no issue numbers or review-round ordinals in `src/`'s Python.

Comments and docstrings state today's contract; the story of how it came to be is in CHANGELOG.md
and docs/ (docs/quality.md for the corpus parts). Requirement IDs (M-13, C-40, H-2) may stay. A
task's rounds in the cloud are part of its contract, so "the first round" or "round 1" of a task is
not history; ordinal rounds from the second on are.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "autopatch_j"

_ORDINALS = (
    "second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|"
    "fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty-[a-z]+|thirtieth|thirty-[a-z]+"
)
HISTORY = re.compile(
    r"\bissues?[ -]?#?\d+"  # issue 17, issues 9.4, issue-16, issue #3
    rf"|\b(?:{_ORDINALS}|\d+(?:st|nd|rd|th)) rounds?\b"  # twentieth round, 21st round
    r"|\bround'?s rules\b"  # the third round's rules
    r"|\b(?:PR|pull request) ?#\d+",
    re.IGNORECASE,
)


def history_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every line of `text` that names an issue or a review round."""
    return [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if HISTORY.search(line)]


def test_src_names_no_issue_or_round() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line}"
        for path in sorted(SRC.rglob("*.py"))
        for n, line in history_lines(path.read_text(encoding="utf-8"))
    ]
    assert not found, "history in the code (move it to CHANGELOG.md or docs/):\n" + "\n".join(found)


def test_the_pattern_catches_history_and_spares_contracts() -> None:
    text = "\n".join(
        [
            '"""Bounded requests (issue 17): a deadline."""',  # 1
            "DEFAULT = 520  # ≥ 500 utterances (issue 11, item 3)",  # 2
            "X = 1  # twentieth round, `h20-*`",  # 3
            "# on the third round's rules",  # 4
            "# the issue-16 rules",  # 5
            "# measured in the 21st round",  # 6
            "# (M-52, issues 9.11)",  # 7
            '"""Injecting memories into the first round of a task (C-30 … C-32)."""',
            "payer_id: int  # the task's owner for round 1",
            "# requirement IDs stay: M-13, C-40, H-2; an issue tracker is fine without a number",
            "surround = 3  # around 20 rounds of retries",
        ]
    )
    assert [n for n, _ in history_lines(text)] == [1, 2, 3, 4, 5, 6, 7]
