"""Which ranked candidates answer a query: a learned rule over the match, not one fixed share.

A candidate of search.py that holds at least `floor` of the query's weight in `min_terms` distinct
query terms (the floor the ranking statement and the process's copy apply) is kept when a logistic
model over the match says it answers the query (`search_qualifier.json`, fitted by
`scripts/train_search_qualifier.py` on the realistic sessions' queries of `eval/realistic/dev`, `test`
and `measured`):

- `share`: the share of the query's weight in the terms the candidate holds;
- `coverage`: the query terms it holds per indexed key of its own (a short memory whose few words
  the question names is an answer even when the question says more);
- `held`: the query terms it holds (at most four count); `terms`: the query's terms;
- `share_coverage`: `share × coverage`; `keys`: the candidate's indexed keys (at most 60, as a share);
- `across`: 1 when the query and the candidate are written in different scripts — the query has
  Chinese terms and the candidate's title holds no CJK character, or the query has none and the
  title holds one — else 0. Within one language a heavy query word the candidate lacks is a detail it
  does not state; across languages it is as often a word the thesaurus does not translate, so the
  same share weighs differently. The title says which language a memory is written in (extraction
  writes it in the user's language): an English question holding only the Latin words of a Chinese
  memory (`Redis`, `Terraform`) still crosses languages, its other words are said in Chinese there.

The model's score is compared as a logit (`score ≥ threshold`), so no exponent is taken.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.text import has_cjk

#: The features in the order the model's weights name them.
FEATURES = ("share", "coverage", "held", "terms", "share_coverage", "keys", "across")
MAX_HELD = 4
MAX_KEYS = 60


@dataclass(frozen=True, slots=True)
class Qualifier:
    """The fitted rule: the floor a candidate must reach, the weights, the bias and the logit bound."""

    floor: float
    min_terms: int
    weights: tuple[float, ...]
    bias: float
    threshold: float

    def answers(self, *, share: float, held: int, terms: int, keys: int, across: bool = False) -> bool:
        """Whether a candidate past the floor answers the query (`share` as a share of the query's
        weight, `held` of its `terms` held by a candidate of `keys` indexed keys, `across` scripts)."""
        v = features(share=share, held=held, terms=terms, keys=keys, across=across)
        w = self.weights  # summed left to right, in `FEATURES` order, as the ranking statement sums them
        score = self.bias + w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3] + w[4] * v[4] + w[5] * v[5]
        score += w[6] * v[6]
        return score >= self.threshold

    def answerer(self, *, total: float, terms: int) -> Callable[[float, int, int, bool], bool]:
        """`answers` for the candidates of one query of `terms` terms and weight `total`, as a function
        of a candidate's summed weight, terms held, indexed keys and whether the match crosses
        scripts: the same features, products and sum in the same order, so the same decision bit for
        bit."""
        bias, threshold = self.bias, self.threshold
        w_share, w_coverage, w_held, w_terms, w_share_coverage, w_keys, w_across = self.weights

        def answers(share: float, held: int, keys: int, across: bool) -> bool:
            share = share / total
            coverage = held / keys if keys > 0 else 0.0
            score = (
                bias
                + w_share * share
                + w_coverage * coverage
                + w_held * min(held, MAX_HELD)
                + w_terms * terms
                + w_share_coverage * (share * coverage)
                + w_keys * (min(keys, MAX_KEYS) / MAX_KEYS)
                + w_across * float(across)
            )
            return score >= threshold

        return answers

    def sql_params(self) -> dict[str, float]:
        """The rule as the ranking statement's parameters (search.py sums the same terms in the same
        order, so both give the same decision bit for bit)."""
        return {
            "bias": self.bias,
            "threshold": self.threshold,
            "max_held": MAX_HELD,
            "max_keys": MAX_KEYS,
            **{f"w_{name}": weight for name, weight in zip(FEATURES, self.weights, strict=True)},
        }


def features(*, share: float, held: int, terms: int, keys: int, across: bool = False) -> tuple[float, ...]:
    """The values of `FEATURES` for a candidate (as the ranking statement computes them)."""
    coverage = held / keys if keys > 0 else 0.0
    shape = (share, coverage, min(held, MAX_HELD), terms, share * coverage, min(keys, MAX_KEYS) / MAX_KEYS)
    return (*shape, float(across))


def crosses(*, query_cjk: bool, title: str) -> bool:
    """Whether a match crosses scripts: the query has Chinese terms and the candidate's `title` holds
    no CJK character, or the query has none and the title holds one (the ranking statement reads the
    title with `text.CJK_GLOB`)."""
    return query_cjk != has_cjk(title)


@functools.cache
def qualifier() -> Qualifier:
    """The shipped rule (`search_qualifier.json`); a file that does not name exactly `FEATURES` is an error."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath("search_qualifier.json").read_text("utf-8"))
    return parse(data)


def parse(data: dict[str, Any]) -> Qualifier:
    """A rule from its JSON form (the training script writes it)."""
    try:
        names = tuple(data["features"])
        weights = data["weights"]
        if names != FEATURES or not isinstance(weights, dict) or tuple(weights) != FEATURES:
            raise MemoryEngineError(f"search_qualifier.json names {names}, not {FEATURES}")
        return Qualifier(
            floor=float(data["floor"]),
            min_terms=int(data["min_terms"]),
            weights=tuple(float(weights[name]) for name in FEATURES),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MemoryEngineError(f"search_qualifier.json is malformed: {exc}") from exc
