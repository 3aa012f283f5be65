"""A follow-up that only points back to the rule the user stated in the turn before it ("exactly like that
every time", "对 以后都这样") says that rule again: it is no memory of its own (Stage 2 rejects it).

Read by structure: the follow-up points back (`Lexicon.points_back`), sets no value (`values.py`), and
names at most one index word (`index.text_keys`, its correction and affirmation markers blanked) that the
rule's quotes and content do not hold; the rule is the latest preference or decision whose user quotes
end in the turn right before the follow-up's first user turn. A follow-up naming two new words ("do that
for the ios app too", "same for the staging cluster") extends the rule to something else, and one that
switches, corrects or takes back revises it: both are left to the subject and revision models. An
assent quoting the assistant's proposal ("yep do that") adopts that proposal and is never a restatement.
"""

from __future__ import annotations

from collections.abc import Set

from autopatch_j.memory.batches import RelatedItem, rule_stated_in
from autopatch_j.memory.index import text_keys
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import Candidate, MemoryKind, SourceRole
from autopatch_j.memory.values import values

#: How many index words a follow-up may name that the rule it points back to does not hold.
NEW_WORDS = 1


def restated(
    lexicon: Lexicon, candidate: Candidate, related: tuple[RelatedItem, ...], taken: Set[int]
) -> RelatedItem | None:
    """The rule `candidate` only says again by pointing back to it, if any (see the module)."""
    if candidate.kind is MemoryKind.DISCUSSION_CONTEXT or any(s.role is not SourceRole.USER for s in candidate.sources):
        return None  # an assent quoting the proposal it adopts ("yep do that") states that proposal
    said = " ".join(s.quote for s in candidate.sources if s.role is SourceRole.USER)
    turns = [s.turn_id for s in candidate.sources if s.role is SourceRole.USER]
    if (
        not said
        or len(set(turns)) != 1
        or not lexicon.points_back(said)
        or values(said)
        or lexicon.is_switch(said)
        or lexicon.is_correction(said)
        or lexicon.retires(said)
    ):
        return None
    rule = rule_stated_in(related, taken, turns[0] - 1)
    if rule is None:
        return None
    held = set(text_keys(" ".join([*(s.quote for s in rule.sources), rule.item.content])))
    new = set(text_keys(lexicon.without_corrections(said))) - held
    return rule if len(new) <= NEW_WORDS else None
