"""The pairs the joining model (`memory/joining.py`) learns from, with their features.

Realistic sessions: in each user turn, its prose sentences (`joining.prose_sentences`) that overlap
the user quotes of exactly one gold memory; each such sentence paired with the next such sentence of
the turn, labelled one memory when both belong to the same gold memory. The labelled fixes
(`eval/corpus/joining_fixes.json`, our own wording) add pairs with the turn they sit in.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from autopatch_j.memory.joining import join_features, prose_sentences
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.subjects import SubjectModel
from autopatch_j.quality.realistic import Session

#: The joining model's labelled fixes in the corpus folder (`eval/corpus/`).
JOINING_FIXES = "joining_fixes.json"


@dataclass(frozen=True, slots=True)
class JoiningPair:
    author: str
    features: dict[str, float]
    one: bool


class _Fix(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    turn: str
    earlier: str
    later: str
    kind: Literal["user_preference", "project_decision", "discussion_context"]
    one: bool


class _Fixes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1]
    purpose: str
    pairs: tuple[_Fix, ...]


def session_pairs(session: Session, author: str, subjects: SubjectModel, lexicon: Lexicon) -> list[JoiningPair]:
    """The labelled pairs of one realistic session."""
    pairs: list[JoiningPair] = []
    for index, turn in enumerate(session.turns):
        text = turn.user
        quoted = [
            (memory.key, memory.kind, at, len(q.quote))
            for memory in session.memories
            for q in memory.sources
            if q.turn == index and q.role == "user" and (at := text.find(q.quote)) >= 0
        ]
        owned: list[tuple[str, str, str]] = []  # (sentence, gold key, kind)
        for start, end in prose_sentences(text):
            keys = {(key, kind) for key, kind, at, n in quoted if at < end and start < at + n}
            if len(keys) == 1:
                key, kind = keys.pop()
                owned.append((text[start:end], key, kind))
        for (a, key_a, kind_a), (b, key_b, kind_b) in itertools.pairwise(owned):
            features = join_features(text, a, b, (kind_a, kind_b), subjects, lexicon)
            pairs.append(JoiningPair(author, features, key_a == key_b))
    return pairs


def fix_pairs(path: Path, subjects: SubjectModel, lexicon: Lexicon) -> list[JoiningPair]:
    """The labelled fixes of `path` (author "fixes"); a file of another shape raises pydantic's error."""
    fixes = _Fixes.model_validate(json.loads(path.read_text(encoding="utf-8")))
    return [
        JoiningPair("fixes", join_features(f.turn, f.earlier, f.later, (f.kind, f.kind), subjects, lexicon), f.one)
        for f in fixes.pairs
    ]
