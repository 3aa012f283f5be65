"""What a memory is about, learned from data: one subject per memory and one test of "same subject".

Two parts, both read from `subject_model.json` (trained by `scripts/train_subjects.py` on the gold
`subject` strings of the realistic dev part; the package only reads the weights):

- `SubjectModel.same_subject(new, old)`: the probability that a new statement is about what an
  earlier memory is about, whatever words or language it uses — a logistic regression over a few
  features of the pair: how much of their index keys they share (weighted by how rare each key is
  in the training statements), the thesaurus concepts they share (Chinese and English words meet
  there), the names and numbers they share, their kinds, and whether the new one reads as a switch,
  a correction or a retirement (the lexicon's word classes). A new preference or decision above the
  threshold replaces the memory; a statement below it leaves the memory alone. The values each side
  sets (`values.py`) are features too: a value of one type changed marks a revision.
- `SubjectModel.name(text)`: a short lowercase English subject for a statement — the gold subject
  whose words the statement's keys vote for most, when the vote is clear; else the statement's own
  head words (English keys first, then the English thesaurus members of its Chinese words).

Features use the one tokenizer and thesaurus of `memory/index.py` (`text_keys`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.index import text_keys
from autopatch_j.memory.speech_model import logistic
from autopatch_j.memory.values import values, words_besides_values

if TYPE_CHECKING:
    from autopatch_j.memory.lexicon import Lexicon

MODEL_FILE = "subject_model.json"
FORMAT = 1
#: The most head words a name made from the statement's own keys has.
_NAME_WORDS = 3


@dataclass(frozen=True, slots=True)
class Statement:
    """What the pair features read of one side: its text, its kind and its word classes."""

    text: str
    kind: str
    switch: bool = False
    correction: bool = False
    retirement: bool = False


def statement_of(lexicon: Lexicon, text: str, kind: str) -> Statement:
    """`text` as the subject model reads it, its word classes from `lexicon` (training reads it so too)."""
    return Statement(
        text=text,
        kind=kind,
        switch=lexicon.is_switch(text),
        correction=lexicon.is_correction(text),
        retirement=lexicon.retires(text),
    )


@lru_cache(maxsize=4096)
def _keys(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """The text's own index keys, and the keys the thesaurus adds."""
    own = text_keys(text)
    every = text_keys(text, thesaurus=True)
    return frozenset(own), frozenset(every[len(own) :])


def pair_features(new: Statement, old: Statement, idf: dict[str, float], default_idf: float) -> dict[str, float]:
    """The features of "`new` is about what `old` is about"."""
    own_n, thes_n = _keys(new.text)
    own_o, thes_o = _keys(old.text)

    def weight(keys: frozenset[str]) -> float:
        return sum(idf.get(k, default_idf) for k in keys)

    shared = own_n & own_o
    concept_n, concept_o = own_n | thes_n, own_o | thes_o
    concepts = concept_n & concept_o
    union = own_n | own_o
    names = {k for k in shared if k.isascii() and len(k) >= 3 and not k.isdigit()}
    numbers = {k for k in shared if k.isdigit()}
    cjk = {k for k in shared if not k.isascii()}
    rarest = max((idf.get(k, default_idf) for k in concepts), default=0.0)
    feats = {
        "shared_weight": weight(shared) / max(1.0, weight(union)),
        "concept_weight": weight(concepts) / max(1.0, weight(concept_n | concept_o)),
        "shared_log": math.log1p(weight(shared)),
        "concepts_log": math.log1p(weight(concepts)),
        "rarest_shared": rarest / max(1.0, default_idf),
        "new_covered": weight(concepts) / max(1.0, weight(concept_n)),
        "old_covered": weight(concepts) / max(1.0, weight(concept_o)),
        "names": min(3.0, float(len(names))),
        "numbers": min(2.0, float(len(numbers))),
        "cjk": min(4.0, float(len(cjk))),
        "nothing_shared": float(not concepts),
        "same_kind": float(new.kind == old.kind),
        "old_discussion": float(old.kind == "discussion_context"),
        "new_discussion": float(new.kind == "discussion_context"),
        "switch": float(new.switch),
        "correction": float(new.correction),
        "retirement": float(new.retirement),
    }
    feats.update(value_features(new.text, old.text))
    feats["switch_x_shared"] = feats["switch"] * feats["concept_weight"]
    feats["retirement_x_shared"] = feats["retirement"] * feats["concept_weight"]
    feats["discussion_x_shared"] = feats["old_discussion"] * feats["concept_weight"]
    return feats


def value_features(new: str, old: str) -> dict[str, float]:
    """What the two values say (`values.py`): one type in both, a value of it changed — a revision's
    mark, the stronger the less else the new statement says — and one value in both."""
    new_values, old_values = values(new), values(old)
    types = {kind for kind, _ in new_values} & {kind for kind, _ in old_values}
    changed = any({v for k, v in new_values if k == t} - {v for k, v in old_values if k == t} for t in types)
    return {
        "value_type_shared": float(bool(types)),
        "value_changed": float(changed),
        "value_changed_terse": float(changed) / (1.0 + words_besides_values(new)) if changed else 0.0,
        "value_same": float(bool(new_values & old_values)),
    }


@dataclass(frozen=True, slots=True, eq=False)
class SubjectModel:
    bias: float
    weights: dict[str, float]
    threshold: float
    idf: dict[str, float]
    default_idf: float  # a key the table lacks (seen in fewer than two training statements): rarest
    votes: dict[str, dict[str, float]]  # key -> subject -> weight
    min_vote: float
    trained_on: dict[str, str]

    def same_subject(self, new: Statement, old: Statement) -> float:
        feats = pair_features(new, old, self.idf, self.default_idf)
        return logistic(self.bias, self.weights, feats)

    def is_same(self, new: Statement, old: Statement) -> bool:
        return self.same_subject(new, old) >= self.threshold

    def voted(self, text: str) -> str:
        """The gold subject the keys of `text` vote for, when the vote is clear; else ""."""
        own, thesaurus = _keys(text)
        tally: dict[str, float] = {}
        for key in own | thesaurus:
            for subject, w in self.votes.get(key, {}).items():
                tally[subject] = tally.get(subject, 0.0) + w
        if tally:
            best = max(sorted(tally), key=lambda s: tally[s])
            if tally[best] >= self.min_vote:
                return best
        return ""

    def name(self, text: str, *, vote: bool = True) -> str:
        """A short lowercase English subject for `text` ("" when it has no content word): the voted
        one, else (and with `vote` False) its head words."""
        voted = self.voted(text) if vote else ""
        if voted:
            return voted
        own, thesaurus = _keys(text)
        ranked = sorted(own, key=lambda k: (-self.idf.get(k, self.default_idf), k))
        english = [k for k in ranked if k.isascii() and not k.isdigit() and len(k) >= 2]
        english += sorted(k for k in thesaurus if k.isascii() and " " not in k and len(k) >= 3)
        words = list(dict.fromkeys(english))[:_NAME_WORDS] or ranked[:_NAME_WORDS]
        return " ".join(words)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SubjectModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The subject model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        pair = data["pair"]
        naming = data["naming"]
        return cls(
            bias=float(pair["bias"]),
            weights={str(k): float(v) for k, v in pair["weights"].items()},
            threshold=float(pair["threshold"]),
            idf={str(k): float(v) for k, v in data["idf"].items()},
            default_idf=float(data["default_idf"]),
            votes={str(k): {str(s): float(w) for s, w in v.items()} for k, v in naming["votes"].items()},
            min_vote=float(naming["min_vote"]),
            trained_on={str(k): str(v) for k, v in data["trained_on"].items()},
        )


@lru_cache(maxsize=1)
def default_subject_model() -> SubjectModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return SubjectModel.from_data(json.loads(text))
