"""The rule a terse value revises when no rule holds a value of its own type (Stage 2).

"先改 12" after "每個 pod max 20 寫在 config 裡", "make it 7 days" after "daily 3am, keep 14": the new
value is a bare count, or a typed value (a duration, a size) where the rule wrote a bare count. A
bare number may be a count or an id, so it is not matched by type across the store
(`supersede.SubjectReader._value_revised`); it is read against the subject under discussion only:

- the statement says little but its values (`values.slots`; at most `TERSE_VALUE_WORDS` words besides
  them, a Chinese character counting half) and asks nothing;
- the rule is the latest preference or decision of the related memories — the one changed last — and
  the user stated it at most `DISCUSSION_TURNS` turns before the statement (a report or an answer in
  between is still the same discussion);
- that rule holds a bare count (`values.slots` kind `count`) and no value the statement gives (a value
  it repeats names the old one, it is no revision); a typed new value takes the place only of a count
  with no word after it ("keep 14"), not of one counting a thing ("重试 3 次");
- the statement names no thing the rule does not name (`names`, an identifier such as "ga4"), and it
  is on no other subject of the lexicon's table (`differ`).
"""

from __future__ import annotations

from collections.abc import Callable, Set

from autopatch_j.memory.batches import RelatedItem
from autopatch_j.memory.index import text_keys
from autopatch_j.memory.records import Candidate, MemoryKind, SourceRole
from autopatch_j.memory.values import slots, values, words_around, words_beside_slots

#: The most a terse value says besides its values (`values.words_beside_slots`).
TERSE_VALUE_WORDS = 3.0
#: How many turns before the statement the rule it revises may have been stated.
DISCUSSION_TURNS = 3
_QUESTION = ("?", "？")


def latest_count_rule(
    candidate: Candidate,
    said: str,
    related: tuple[RelatedItem, ...],
    taken: Set[int],
    *,
    stored: Callable[[RelatedItem], str],
    names_beyond: Callable[[str, str], bool],
    differ: Callable[[str, str], bool],
) -> RelatedItem | None:
    """The latest rule of `related` that `candidate` (what its user said: `said`) revises by a terse
    value when that rule holds a bare count, or None. `stored` gives what a related memory's user
    said; `names_beyond(new, old)` whether `new` names a thing `old` does not (`names_beyond`)."""
    new = slots(said)
    if not new or any(mark in said for mark in _QUESTION) or words_beside_slots(said) > TERSE_VALUE_WORDS:
        return None
    turns = [s.turn_id for s in candidate.sources if s.role is SourceRole.USER]
    rules = [r for r in related if r.item.kind is not MemoryKind.DISCUSSION_CONTEXT]
    latest = max(rules, key=lambda r: r.item.memory_id, default=None)
    if latest is None or latest.item.memory_id in taken or not turns:
        return None
    stated = [s.turn_id for s in latest.sources if s.role is SourceRole.USER]
    if not stated or not 0 < min(turns) - max(stated) <= DISCUSSION_TURNS:
        return None
    old = stored(latest)
    theirs = slots(old)
    # a typed value takes the place of a bare count only ("keep 14" → "7 days"), not of one counting a
    # thing ("重试 3 次" is no duration)
    typed = any(s.kind != "count" for s in new)
    counts = [s for s in theirs if s.kind == "count" and not (typed and words_around(old, s)[1])]
    if not counts or {s.value for s in new} & {s.value for s in theirs}:
        return None
    if names_beyond(said, old) or differ(said, old):
        return None
    return latest


def names_beyond(new: str, old: str) -> bool:
    """`new` names a thing (`is_name`) that `old` does not."""
    return not {key for key in text_keys(new) if is_name(key)} <= set(text_keys(old))


def is_name(key: str) -> bool:
    """A key naming a thing by letters and digits ("ga4", "k8s") or a code identifier joining words with
    an underscore ("so_sndtimeo", "max_conn"), not a value ("int64", "45s")."""
    lettered = any(ch.isalpha() for ch in key)
    joined = "_" in key.strip("_")
    return lettered and (joined or any(ch.isdigit() for ch in key)) and not values(key)
