"""A one-term query's candidates in ranking order, kept per term in a small store's copy.

In a copy holding a small store whole (postings_cache.py: every posting, every posted item's row,
each term's `weight × posting weight` per holder), the ranking statement of a query of one term
compares candidates that all hold that term and carry the same share and one term held: its order
is the products', then `updated_at DESC, memory_id DESC`, whatever the query's text, thread or limit.
So the candidates of a term's keys — the `cap` newest items of each — are sorted once per stamp,
with what the scope check and the qualifier read of each (`Holder`), and a search of that term walks
them best first until `limit` answer, instead of scoring and sorting every candidate again.
Candidates that no search's scope holds (no row, retired, never active) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

#: A candidate of a term, best first: its item id, whether every scope holds it (an active
#: preference or decision), the thread whose scope holds it (an active discussion, else None), its
#: indexed keys, and whether its title holds a CJK character (the language it is written in).
Holder = tuple[int, bool, int | None, int, bool]
#: An item row as the copy keeps it: (in every scope, thread, updated_at, hit row, indexed keys,
#: whether its title holds a CJK character).
ItemRow = tuple[bool, int | None, float, tuple[object, ...], int, bool]


def candidates_of(newest: Mapping[str, Sequence[int]], driver_keys: Sequence[str], cap: int) -> set[int]:
    """The candidates of a query: the `cap` newest holders of each of `driver_keys` (`newest`: per
    key, its holders newest first)."""
    candidates: set[int] = set()
    for key in driver_keys:
        candidates.update(newest.get(key, ())[:cap])
    return candidates


def ordered_holders(
    *, values: Mapping[int, float], candidates: set[int], items: Mapping[int, ItemRow | None]
) -> list[Holder]:
    """The `candidates` of one term (`candidates_of`) that some scope holds, ordered as the ranking
    statement orders a one-term query's hits: product (`values`: every candidate's), `updated_at`,
    memory id, item id, all descending. `items` holds every candidate's row (None: no row)."""
    ranked: list[tuple[float, float, int, int, ItemRow]] = []
    for item_id in candidates:
        known = items.get(item_id)
        if known is not None and (known[0] or known[1] is not None):  # else in no search's scope
            ranked.append((values[item_id], known[2], known[3][0], item_id, known))  # type: ignore[arg-type]
    ranked.sort(reverse=True)  # the item ids differ, so the rows are never compared
    return [(item_id, known[0], known[1], known[4], known[5]) for *_, item_id, known in ranked]


def first_answers(
    holders: Sequence[Holder],
    *,
    share: float,
    answers: Callable[[float, int, int, bool], bool],
    query_cjk: bool,
    thread_id: int,
    limit: int,
) -> list[int]:
    """The item ids of the first `limit` holders, best first, in scope of `thread_id` that answer a
    one-term query whose term weighs `share` (the qualifier's decision, as the ranking statement takes
    it)."""
    found: list[int] = []
    for item_id, every, thread, keys, title_cjk in holders:
        if (every or thread == thread_id) and answers(share, 1, keys, title_cjk != query_cjk):
            found.append(item_id)
            if len(found) == limit:
                break
    return found
