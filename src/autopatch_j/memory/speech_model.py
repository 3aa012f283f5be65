"""A learned reading of explicit speech: two linear models over a sentence's words.

The lexicon recognizes a preference or decision by its markers ("以后", "from now on", "团队决定") and
each new author brings markers no list holds ("定下来了：项目只支持 Node 20 LTS", "All services log in
structured JSON to stdout"). This model reads the same question from the words of the sentence
itself, weighted by a logistic regression trained on the dev part of the quality corpus
(`scripts/train_speech_model.py`; every user sentence labelled by whether a gold preference or
decision quotes it):

- `states(text)`: the sentence states a standing preference or decision (probability ≥ the
  threshold chosen on out-of-fold predictions);
- `decision_probability(text)`: of a statement, how likely it is the project's rather than the user's.

It only adds to what counts as explicit speech; the hard gates (temporary, undecided, speculative,
a current code fact) stay the lexicon's and apply to everything it admits. Features are Latin word
stems and their neighbours, CJK character 1–3-grams and punctuation — no word list. The weights ship
as package data (`speech_model.json`), loaded on first use; scoring is a dot product.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.sentences import CJK, fold
from autopatch_j.memory.words import stem

MODEL_FILE = "speech_model.json"
FORMAT = 1
_TOKEN = re.compile(f"[{CJK}]+|[a-z0-9][a-z0-9_.+#'-]*|[?？!！:：;；,，—]")
_CJK_RUN = re.compile(f"[{CJK}]+")
_DIGITS = re.compile(r"\d+")


def features(text: str) -> dict[str, float]:
    """The sparse features of one sentence: `w:` Latin stems (digits folded to 0), `c:` CJK character
    1-, 2- and 3-grams, `p:` punctuation, `b:` neighbouring tokens (a CJK run is one `<zh>` token)."""
    counts: dict[str, float] = {}

    def add(key: str) -> None:
        counts[key] = counts.get(key, 0.0) + 1.0

    tokens: list[str] = []
    for match in _TOKEN.finditer(fold(text)):
        token = match.group()
        if _CJK_RUN.fullmatch(token):
            for n in (1, 2, 3):
                for i in range(len(token) - n + 1):
                    add("c:" + token[i : i + n])
            tokens.append("<zh>")
        elif token[0].isalnum():
            word = stem(_DIGITS.sub("0", token).strip("'.-"))
            tokens.append(word)
            add("w:" + word)
        else:
            tokens.append(token)
            add("p:" + token)
    for left, right in zip(["^", *tokens], [*tokens, "$"], strict=True):
        add(f"b:{left} {right}")
    return counts


def logistic(bias: float, weights: Mapping[str, float], features: Mapping[str, float]) -> float:
    """The probability a logistic regression gives: `bias` plus the weights of the features present."""
    score = bias + sum(weights.get(key, 0.0) * value for key, value in features.items())
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, score))))


@dataclass(frozen=True, slots=True, eq=False)
class LinearModel:
    """A logistic regression: bias plus the weights of the features present."""

    bias: float
    weights: dict[str, float]

    def probability(self, feats: dict[str, float]) -> float:
        return logistic(self.bias, self.weights, feats)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> LinearModel:
        return cls(bias=float(data["bias"]), weights=dict(data["weights"]))


@dataclass(frozen=True, slots=True, eq=False)
class SpeechModel:
    """The statement model, its threshold, and the kind model; `trained_on` names the corpus files
    (with their sha256) the weights were fitted on."""

    statement: LinearModel
    kind: LinearModel
    threshold: float
    trained_on: dict[str, str]

    def statement_probability(self, text: str) -> float:
        return _probability(self.statement, text)

    def states(self, text: str) -> bool:
        return self.statement_probability(text) >= self.threshold

    def decision_probability(self, text: str) -> float:
        return _probability(self.kind, text)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> SpeechModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The speech model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        return cls(
            statement=LinearModel.from_data(data["statement"]),
            kind=LinearModel.from_data(data["kind"]),
            threshold=float(data["threshold"]),
            trained_on={str(k): str(v) for k, v in data["trained_on"].items()},
        )


@lru_cache(maxsize=8192)
def _probability(model: LinearModel, text: str) -> float:
    return model.probability(features(text))


def clear_scores() -> None:
    """Forget the cached scores (a benchmark times a cold reading)."""
    _probability.cache_clear()


@lru_cache(maxsize=1)
def default_speech_model() -> SpeechModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return SpeechModel.from_data(json.loads(text))
