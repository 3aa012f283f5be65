"""The comparison a deferral puts off: the question the user asked in the turn before it.

A user weighs options in a question ("decimal(10,2) or integer cents?", "主键用 bigint 还是 varchar"),
the assistant answers, and the user puts the choice off in the next turn ("let me think, I'll ask
finance first", "两个先都留着") — a discussion that names neither option. The decision settling it later
names an option, seldom the deferral's words: Stage 2 would neither find the discussion among the
memories related to the decision (they share no term) nor read the two as one subject, and both would
stay active. So a discussion candidate that quotes no question of its own quotes first the questions
(`Lexicon.is_question`) of the user's turn right before its own that no candidate quotes: the
comparison it continues, which the decision's option names.

A user also weighs the options of the answer before by their labels ("1 vs 3. 1 gives real
timestamps when buffered offline, 3 is zero firmware work. thinking"), and settles it later by a label
too ("ok option 1. gateway writes epoch ms on every connect"). The discussion then holds none of the
options' words either; so a discussion whose user sentences point at two or more options of the answer
its turn follows (`options.options_in`, `ordinals.reply_pointers`) quotes those options' heads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.options import options_in
from autopatch_j.memory.ordinals import reply_pointers
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.validation import MAX_CONTENT_CHARS, MAX_SOURCES


def with_questions(
    candidates: Sequence[CandidateOut],
    request: ExtractionRequest,
    lexicon: Lexicon,
    read_as_memory: Callable[[Turn, str], bool] = lambda _turn, _sentence: False,
) -> list[CandidateOut]:
    """`candidates`, each discussion that quotes no question and only one user turn quoting first the
    questions of the user's turn right before that one (visible in `request`, prose only) that no
    candidate quotes (nor an earlier discussion took) and that are no memory of their own
    (`read_as_memory`: the sentence reader reads "在 A 和 B 之间纠结" as a discussion, stored when its turn
    was read), when they fit its bounds (MAX_SOURCES, MAX_CONTENT_CHARS). Read after the statements of
    a turn are joined (`one_per_statement`)."""
    quoted = {(s.turn_id, s.quote) for c in candidates for s in c.sources if s.role == "user"}
    out: list[CandidateOut] = []
    for candidate in candidates:
        out.append(candidate)
        if candidate.kind != MemoryKind.DISCUSSION_CONTEXT.value:
            continue
        users = [s for s in candidate.sources if s.role == "user"]
        turns = {s.turn_id for s in users}
        if len(turns) != 1 or any(lexicon.is_question(s.quote) for s in users):
            continue
        turn = request.turn(next(iter(turns)))
        before = request.predecessor(turn) if turn is not None else None
        if before is None:
            continue
        asked = [
            s
            for s in split_sentences(before.user_text)
            if lexicon.is_question(s)
            and not any(t == before.id and (s in q or q in s) for t, q in quoted)
            and not read_as_memory(before, s)
        ]
        content = " ".join([*asked, candidate.content])
        if not asked or len(candidate.sources) + len(asked) > MAX_SOURCES or len(content) > MAX_CONTENT_CHARS:
            continue
        sources = [SourceOut(turn_id=before.id, role="user", quote=q) for q in asked]
        quoted.update((before.id, q) for q in asked)
        out[-1] = candidate.model_copy(update={"content": content, "sources": [*sources, *candidate.sources]})
    return out


def with_options(candidates: Sequence[CandidateOut], request: ExtractionRequest) -> list[CandidateOut]:
    """`candidates`, each discussion quoting no assistant words whose user quotes point by ordinal at
    two or more options of the answer right before its latest user turn (visible in
    `request`; every ordinal named is an option of it) quoting first the head of each option named, when
    they fit its bounds (MAX_SOURCES, MAX_CONTENT_CHARS)."""
    out: list[CandidateOut] = []
    for candidate in candidates:
        out.append(candidate)
        if candidate.kind != MemoryKind.DISCUSSION_CONTEXT.value or any(s.role != "user" for s in candidate.sources):
            continue
        turn = request.turn(max(s.turn_id for s in candidate.sources))
        before = request.predecessor(turn) if turn is not None else None
        answer = (before.assistant_text or "") if before is not None else ""
        options = {o.ordinal: o for o in options_in(answer)} if answer else {}
        named = set().union(*(reply_pointers(s.quote) for s in candidate.sources))
        if before is None or len(named) < 2 or not named <= options.keys():
            continue
        heads = [answer[options[n].start : options[n].head_end].strip() for n in sorted(named)]
        content = " ".join([*heads, candidate.content])
        if len(candidate.sources) + len(heads) > MAX_SOURCES or len(content) > MAX_CONTENT_CHARS:
            continue
        sources = [SourceOut(turn_id=before.id, role="assistant", quote=q) for q in heads]
        out[-1] = candidate.model_copy(update={"content": content, "sources": [*sources, *candidate.sources]})
    return out
