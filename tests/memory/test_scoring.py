"""The copy's candidate sums (scoring.py): the same qualifying candidates, scores and shares as a plain
per-candidate sum in term order, however they are found."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from autopatch_j.memory import scoring


def _plain(
    candidates: set[int], values: list[dict[int, float]], weights: list[float], min_terms: int, min_share: float
) -> dict[int, tuple[float, float, int]]:
    found = {}
    for item_id in candidates:
        score = share = 0.0
        held = 0
        for held_by, weight in zip(values, weights, strict=True):
            if item_id in held_by:
                score += held_by[item_id]
                share += weight
                held += 1
        if held and held >= min_terms and share >= min_share:
            found[item_id] = (score, share, held)
    return found


class _Lookups(dict[int, float]):
    """A term's values that count the per-candidate lookups made of them in Python."""

    calls = 0

    def get(self, key: int, default: object = None) -> object:  # type: ignore[override]
        type(self).calls += 1
        return super().get(key, default)


def test_two_terms_that_only_qualify_together_are_not_looked_up_per_candidate() -> None:
    """When neither term alone reaches the floor, only the candidates both hold are scored: found as
    the intersection of the candidates with the two terms' holders, not by a lookup per candidate."""
    first = _Lookups({n: 1.5 * n for n in range(0, 60, 2)})
    second = _Lookups({n: 0.25 * n for n in range(0, 60, 3)})
    _Lookups.calls = 0
    found = scoring.qualifying(set(range(64)), [first, second], [2.0, 1.0], min_terms=1, min_share=2.5)
    assert found == _plain(set(range(64)), [dict(first), dict(second)], [2.0, 1.0], 1, 2.5)
    assert sorted(found) == list(range(0, 60, 6))
    assert _Lookups.calls == 0


_values = st.dictionaries(st.integers(0, 40), st.floats(0.5, 30.0, allow_nan=False), max_size=30)


@given(
    candidates=st.sets(st.integers(0, 50), max_size=40),
    values=st.lists(_values, min_size=1, max_size=4),
    weights=st.lists(st.floats(0.1, 10.0, allow_nan=False), min_size=4, max_size=4),
    min_terms=st.integers(1, 3),
    floor=st.floats(0.0, 1.0),
)
def test_qualifying_equals_the_plain_sum_in_term_order(
    candidates: set[int], values: list[dict[int, float]], weights: list[float], min_terms: int, floor: float
) -> None:
    weights = weights[: len(values)]
    min_share = floor * sum(weights)
    found = scoring.qualifying(candidates, values, weights, min_terms=min_terms, min_share=min_share)
    if scoring.COMPENSATED:  # SQLite from 3.43 sums with compensation: the shares may differ in the last bit
        assert set(found) == set(_plain(candidates, values, weights, min_terms, min_share))
    else:
        assert found == _plain(candidates, values, weights, min_terms, min_share)
