"""The revision model's labelled fixes: `eval/corpus/revision_fixes.json`, pairs of our own wording.

Each pair is an `earlier` preference or decision and a `later` one said after it, each of its kind,
and whether the later one revises the earlier one (a new value on the same subject) or states a rule
of its own beside it. `scripts/train_revisions.py` puts them in every fold's training and in the fit,
never in a fold's evaluation.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.subjects import Statement, SubjectModel, statement_of

REVISION_FIXES = "revision_fixes.json"

#: (new statement, earlier statement, the subject model's probability for the pair, revises?)
RevisionExample = tuple[Statement, Statement, float, int]


class _Fix(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    earlier: str
    later: str
    earlier_kind: MemoryKind
    later_kind: MemoryKind
    revises: bool


class _Fixes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    purpose: str
    pairs: tuple[_Fix, ...]


def read_fixes(path: Path, lexicon: Lexicon, subjects: SubjectModel) -> list[RevisionExample]:
    """The labelled pairs of `path`, scored by `subjects`; a file of another shape raises pydantic's error."""
    fixes = _Fixes.model_validate_json(path.read_text("utf-8"))
    rows: list[RevisionExample] = []
    for fix in fixes.pairs:
        new = statement_of(lexicon, fix.later, fix.later_kind.value)
        old = statement_of(lexicon, fix.earlier, fix.earlier_kind.value)
        rows.append((new, old, subjects.same_subject(new, old), int(fix.revises)))
    return rows
