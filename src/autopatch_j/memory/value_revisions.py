"""A terse value change: a short turn that gives only a new value for the value a rule just set.

"20 was too much, make it 15" after "the connection pool size for the claims api is 20.", "ok min 2
then" after "autoscaling … is min 1 max 3.", "改成 3 次吧" after "失败最多重试 5 次": the sentence reader
reads such a turn as no statement (it states no rule of its own), so it is read here by structure:

- the turn's shape: no statement was read in it, it asks nothing (no question mark), it says at most
  VALUE_TURN_WORDS words besides its values (`values.words_beside_slots`) and holds a value
  (`values.slots`: a duration, a size, a share, a version, a count) the rule does not hold;
- its position: the rule is the latest preference or decision in view before the turn (the turn just
  before the batch and the batch's earlier turns) — a rule on another subject said in between is the
  latest, and a terse value then revises it or nothing; an answer to the assistant's question (the
  answer just before the turn ends in a question mark) is no revision;
- the slot it changes: each new value replaces the rule's value of the same kind whose label (the
  word before it) the turn names ("min" of "min 1 max 3"), else the rule's only value of that kind;
  a value the turn repeats from the rule ("20 was too much") names the old value, it is not new;
  a value followed by a word the rule does not hold, with no word before it that the rule holds,
  counts another thing ("3 retries per job" after "… holds 20 connections") and revises nothing.

The result is a candidate of the rule's kind and subject whose content is the rule with the new
value(s), quoting the rule and the terse turn: Stage 2 reads it as a new statement on the rule's
subject and supersedes the rule's memory (`supersede.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.values import Slot, slots, words_around, words_beside_slots

#: The most a terse value change says besides its values (`values.words_beside_slots`).
VALUE_TURN_WORDS = 6.0
_RULES = (MemoryKind.USER_PREFERENCE, MemoryKind.PROJECT_DECISION)
_QUESTION = ("?", "？")


def value_revision(
    turn: Turn, previous: Turn | None, earlier: Callable[[], Sequence[CandidateOut]]
) -> CandidateOut | None:
    """The revision `turn` makes of the latest rule in `earlier()` by a new value alone, or None.
    `turn` read no statement; `previous` is the turn just before it (whose answer may ask a question)."""
    said = turn.user_text.strip()
    if not terse_value(said):
        return None
    new = slots(said)
    if previous is not None and (previous.assistant_text or "").rstrip().endswith(_QUESTION):
        return None  # "how many retries?" → "3" answers the question
    rule = next(
        (c for c in reversed(earlier()) if c.kind in _RULES and all(s.turn_id != turn.id for s in c.sources)),
        None,
    )
    if rule is None:
        return None
    content = _revised(rule.content, said, new)
    if content is None:
        return None
    quotes = [s for s in rule.sources if s.role == "user"]
    return CandidateOut(
        kind=rule.kind,
        content=content,
        subject=rule.subject,
        sources=[*quotes, SourceOut(turn_id=turn.id, role="user", quote=said)],
    )


def terse_value(said: str) -> bool:
    """Whether `said` has the shape of a terse value change: a value, no question, at most
    VALUE_TURN_WORDS words besides its values."""
    return (
        bool(slots(said))
        and not any(mark in said for mark in _QUESTION)
        and words_beside_slots(said) <= VALUE_TURN_WORDS
    )


def _revised(rule: str, said: str, new: tuple[Slot, ...]) -> str | None:
    """`rule` with each value of `new` in the slot it changes, or None when a new value has no slot
    of its kind in the rule or two values would change one slot."""
    old = slots(rule)
    words = {s.label for s in new} | set(said.lower().split())
    changes: dict[Slot, Slot] = {}
    lowered = rule.lower()
    for value in new:
        same_kind = [s for s in old if s.kind == value.kind]
        if any(s.value == value.value for s in same_kind):
            continue  # "20 was too much": the old value named
        before, after = words_around(said, value)
        if after and after not in lowered and not any(word in lowered for word in before):
            return None  # "3 retries per job" counts another thing than "20 connections"
        named = [s for s in same_kind if s.label and s.label in words]
        target = named[0] if len(named) == 1 else same_kind[0] if len(same_kind) == 1 else None
        if target is None or target in changes:
            return None
        changes[target] = value
    if not changes:
        return None
    text = rule
    for slot in sorted(changes, key=lambda s: s.start, reverse=True):
        text = text[: slot.start] + said[changes[slot].start : changes[slot].end] + text[slot.end :]
    return text
