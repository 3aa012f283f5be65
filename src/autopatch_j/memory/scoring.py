"""The candidates' sums of the process's copy (postings_cache.py), computed as the ranking statement of
search.py computes them: per candidate the terms it holds, their values and weights summed in term
order, with SQLite's own summation (plain addition before 3.43, Kahan-Babuska-Neumaier from 3.43), so
a score equals the statement's bit for bit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence, Set


def kbn_sum(values: list[float]) -> float:
    """SQLite's `sum()` of reals from 3.43 on: Kahan-Babuska-Neumaier summation."""
    total = err = 0.0
    for value in values:
        t = total + value
        err += (total - t) + value if abs(total) > abs(value) else (value - t) + total
        total = t
    return total + err


def qualifying(
    candidates: Set[int],
    values: list[Mapping[int, float]],
    weights: Sequence[float],
    *,
    min_terms: int,
    min_share: float,
) -> dict[int, tuple[float, float, int]]:
    """Per candidate holding `min_terms` terms whose weights reach `min_share`, its score, share and
    terms held: the terms' best values (`values`, per term the candidates or more that hold it) and
    weights, each sum in term order as the statement sums them."""
    if len(values) == 1:  # one term: its weight is every holder's share
        if min_terms > 1 or weights[0] < min_share:
            return {}
        held_by, weight = values[0], weights[0]
        return {item_id: (held_by[item_id], weight, 1) for item_id in candidates if item_id in held_by}
    if COMPENSATED:
        return _compensated(candidates, values, weights, min_terms=min_terms, min_share=min_share)
    if len(values) == 2:
        return _two_terms(candidates, values, weights, min_terms=min_terms, min_share=min_share)
    terms = tuple(zip(values, weights, strict=True))
    found: dict[int, tuple[float, float, int]] = {}
    for item_id in candidates:  # the statement's sums, left to right in term order (before 3.43)
        score = share = 0.0
        held = 0
        for held_by, weight in terms:
            value = held_by.get(item_id)
            if value is not None:
                score += value
                share += weight
                held += 1
        if held and held >= min_terms and share >= min_share:
            found[item_id] = (score, share, held)
    return found


def _two_terms(
    candidates: Set[int],
    values: list[Mapping[int, float]],
    weights: Sequence[float],
    *,
    min_terms: int,
    min_share: float,
) -> dict[int, tuple[float, float, int]]:
    """`qualifying`'s plain sums for a query of two terms: per candidate the one or two terms it holds,
    added left to right from 0.0 as the statement adds them (the three outcomes' shares known ahead);
    when neither term alone reaches the floor, only the candidates both terms hold (a set intersection)."""
    first, second = values[0].get, values[1].get
    w0, w1 = weights
    found: dict[int, tuple[float, float, int]] = {}
    both = 0.0 + w0 + w1  # the share of a holder of both terms
    both_ok = min_terms <= 2 and both >= min_share
    first_ok = min_terms <= 1 and 0.0 + w0 >= min_share  # a holder of the first term only
    second_ok = min_terms <= 1 and 0.0 + w1 >= min_share  # of the second only
    if not (first_ok or second_ok):  # only a holder of both qualifies: the candidates both hold, found in C
        held = values[1].keys() & (values[0].keys() & candidates) if both_ok else set()
        return {item_id: (0.0 + values[0][item_id] + values[1][item_id], both, 2) for item_id in held}
    for item_id in candidates:
        a, b = first(item_id), second(item_id)
        if a is not None:
            if b is not None:
                if both_ok:
                    found[item_id] = (0.0 + a + b, both, 2)
            elif first_ok:
                found[item_id] = (0.0 + a, 0.0 + w0, 1)
        elif b is not None and second_ok:
            found[item_id] = (0.0 + b, 0.0 + w1, 1)
    return found


def _compensated(
    candidates: Iterable[int],
    values: list[Mapping[int, float]],
    weights: Sequence[float],
    *,
    min_terms: int,
    min_share: float,
) -> dict[int, tuple[float, float, int]]:
    """`qualifying`'s sums as SQLite sums from 3.43 on (Kahan-Babuska-Neumaier)."""
    found: dict[int, tuple[float, float, int]] = {}
    terms = tuple(zip(values, weights, strict=True))
    for item_id in candidates:
        held = [(held_by[item_id], weight) for held_by, weight in terms if item_id in held_by]
        if not held or len(held) < min_terms:
            continue
        share = kbn_sum([weight for _, weight in held])
        if share >= min_share:
            found[item_id] = (kbn_sum([value for value, _ in held]), share, len(held))
    return found


#: Whether SQLite's `sum()` compensates (from 3.43 on), so scores equal the statement's bit for bit.
COMPENSATED = sqlite3.sqlite_version_info >= (3, 43, 0)


_LOWEST = float("-inf")
_NONE: Mapping[int, int] = {}


def best_products(
    weights: Mapping[str, Mapping[int, int]], candidates: set[int] | None, alternatives: Sequence[tuple[str, float]]
) -> dict[int, float]:
    """Per item holding a key of `alternatives` (among `candidates` when given), its best `weight ×
    posting weight` over those keys, each key with its own weight (`weights`: per key, each holder's
    posting weight)."""
    best: dict[int, float] = {}
    for key, weight in alternatives:
        held = weights.get(key, _NONE)
        for item_id in held.keys() if candidates is None else candidates & held.keys():
            value = weight * held[item_id]
            if value > best.get(item_id, _LOWEST):
                best[item_id] = value
    return best


def best_postings(weights: Mapping[str, Mapping[int, int]], keys: tuple[str, ...]) -> dict[int, int]:
    """Per item holding one of `keys`, its best posting weight (`weights`: per key, each holder's)."""
    best: dict[int, int] = {}
    for key in keys:
        for item_id, weight in weights.get(key, _NONE).items():
            if weight > best.get(item_id, 0):
                best[item_id] = weight
    return best
