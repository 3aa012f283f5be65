"""Whether two statements of one user turn are one memory, learned from data.

A user often states one rule in several sentences: the rule, then its detail or its reason ("never
unwrap() in firmware code. expect with a message, or propagate the error"; "定了，串口魔术字。魔术字用
8 字节 …，500ms 窗口"); and as often several rules side by side ("行宽 120；禁止 import xxx.*。"). The
joining model reads a pair — an earlier statement's last sentence and the next statement of the same
turn and kind — and says whether the second continues the first. It is a logistic regression over
`join_features`: how the two are laid out in the turn (the sentences and line breaks between them,
how the first ends, whether the second is a list item), the first words of each and the last word of
the first, their lengths, the index keys and thesaurus concepts they share, the subject model's
same-subject probability and its voted subjects, and the lexicon's classes of the second (a switch,
a correction, a speech act of its own, a word pointing back, an aside stating no rule, an
extension).

The weights are `joining_model.json`, trained by `scripts/train_joining.py` on the realistic
sessions' gold (pairs of sentences of one user turn that quote a gold memory each: one memory or
two); the package only reads them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.speech_model import logistic
from autopatch_j.memory.structure import parse
from autopatch_j.memory.subjects import SubjectModel, _keys, statement_of
from autopatch_j.memory.text import tokens

MODEL_FILE = "joining_model.json"
FORMAT = 1

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|[\u4e00-\u9fff]")
_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)、])\s")


def first_word(text: str) -> str:
    """The first English word (lowercased) or the first two Chinese characters of `text`; "#" when none."""
    found = _WORD.search(text)
    if found is None:
        return "#"
    word = found.group(0)
    return text[found.start() : found.start() + 2] if "\u4e00" <= word <= "\u9fff" else word.lower()


def last_word(text: str) -> str:
    words = _WORD.findall(text)
    return words[-1].lower() if words else "#"


def _length_bucket(n: int) -> str:
    return "1" if n <= 2 else "2" if n <= 5 else "3" if n <= 10 else "4" if n <= 20 else "5"


def _ending(text: str) -> str:
    end = text.rstrip()[-1:]
    return "w" if end.isalnum() else end or "#"


@lru_cache(maxsize=256)
def prose_sentences(text: str) -> tuple[tuple[int, int], ...]:
    """The spans in `text` of its prose sentences, in order."""
    spans: list[tuple[int, int]] = []
    at = 0
    for sentence in split_sentences(parse(text).prose()):
        start = text.find(sentence, at)
        if start < 0:
            continue
        spans.append((start, start + len(sentence)))
        at = start + len(sentence)
    return tuple(spans)


def _sentences_between(text: str, start: int, end: int) -> int:
    return sum(1 for s, e in prose_sentences(text) if s >= start and e <= end)


def join_features(
    text: str, earlier: str, later: str, kinds: tuple[str, str], subjects: SubjectModel, lexicon: Lexicon
) -> dict[str, float]:
    """The features of the pair (`earlier`, `later`): two quotes of the user turn `text`, `later`
    after `earlier`, of the statement kinds `kinds`."""
    first_at = text.find(earlier)
    later_at = text.find(later, first_at + len(earlier)) if first_at >= 0 else -1
    if later_at < 0:
        later_at = text.find(later)
    gap_start = first_at + len(earlier) if first_at >= 0 else 0
    between = text[gap_start:later_at] if later_at >= gap_start else ""
    breaks = min(between.count("\n"), 2)
    gap = min(_sentences_between(text, gap_start, later_at), 2) if later_at >= gap_start else 2
    earlier_len = sum(1 for _ in tokens(earlier))
    later_len = sum(1 for _ in tokens(later))
    own_a, thesaurus_a = _keys(earlier)
    own_b, thesaurus_b = _keys(later)
    every_a, every_b = own_a | thesaurus_a, own_b | thesaurus_b
    features: dict[str, float] = {
        "breaks": float(breaks),
        f"breaks={breaks}": 1.0,
        f"gap={gap}": 1.0,
        f"end={_ending(earlier)}": 1.0,
        f"later_first={first_word(later)}": 1.0,
        f"earlier_first={first_word(earlier)}": 1.0,
        f"earlier_last={last_word(earlier)}": 1.0,
        f"earlier_len={_length_bucket(earlier_len)}": 1.0,
        f"later_len={_length_bucket(later_len)}": 1.0,
        "share": len(own_a & own_b) / max(1, min(len(own_a), len(own_b))),
        "concepts": len(every_a & every_b) / max(1, min(len(every_a), len(every_b))),
        "same_subject": subjects.same_subject(
            statement_of(lexicon, later, kinds[1]), statement_of(lexicon, earlier, kinds[0])
        ),
        "same_kind": float(kinds[0] == kinds[1]),
        "switch": float(lexicon.is_switch(later)),
        "points_back": float(lexicon.points_back(later)),
        "explicit": float(bool(lexicon.is_explicit(later))),
        "aside": float(lexicon.is_aside(later)),
        "extension": float(bool(lexicon.is_extension(later))),
        "correction": float(lexicon.is_correction(later)),
        "han": float(any("\u4e00" <= ch <= "\u9fff" for ch in later)),
        "item": float(bool(_ITEM.match(later))),
        "question": float("?" in later or "？" in later),
        "digit": float(any(ch.isdigit() for ch in later)),
        "earlier_short": float(earlier_len <= 3),
    }
    voted_a, voted_b = subjects.voted(earlier), subjects.voted(later)
    if voted_a and voted_b:
        features["voted_same" if voted_a == voted_b else "voted_different"] = 1.0
    return features


@dataclass(frozen=True, slots=True)
class JoiningModel:
    """The trained weights: `joins` is true when the probability reaches `threshold`."""

    bias: float
    weights: dict[str, float]
    threshold: float

    def probability(self, features: dict[str, float]) -> float:
        return logistic(self.bias, self.weights, features)

    def joins(self, features: dict[str, float]) -> bool:
        return self.probability(features) >= self.threshold

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> JoiningModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The joining model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        return cls(
            bias=float(data["bias"]),
            weights={str(k): float(v) for k, v in data["weights"].items()},
            threshold=float(data["threshold"]),
        )


@lru_cache(maxsize=1)
def default_joining_model() -> JoiningModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return JoiningModel.from_data(json.loads(text))
