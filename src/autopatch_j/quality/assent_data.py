"""The choices the assent model (`memory/assent_choice.py`) learns from, with their features.

Realistic sessions, turn by turn as the offline extractor sees them (pasted material cut,
`structure.prose_request`): a user turn the assent reader reads as an assent to the answer before it
(`AssentReader.reply`; one that quotes the answer is left out, its quote decides) is an example,
each sentence of that answer a candidate:

- a **choice** when a gold memory quotes both that answer and that user turn: a candidate is chosen
  when it overlaps an assistant quote of such a memory (an example where none does is left out: the
  gold quotes what the extractor does not read, a pasted block);
- **nothing chosen** when no gold memory quotes that user turn where the assent is, in any state
  (a bare "ok" to "Want me to fix those?": a one-off action, no memory);
- left out otherwise (a gold memory quoting only the user's words there: the user's own statement) —
  except after an answer with no proposal signal, closing question or options offered (`Reply.reading`
  "unsignalled"), where it is nothing chosen: the sentence reader reads the user's own statement.

The labelled fixes (`eval/corpus/assent_fixes.json`, our own wording) add choices of one answer and
one reply each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from autopatch_j.memory.assent import AssentReader, Reply, floored
from autopatch_j.memory.assent_choice import AssentReading, candidates, choice_features
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import Intent, Turn, TurnStatus
from autopatch_j.memory.structure import parse
from autopatch_j.quality.realistic import Session

#: The assent model's labelled fixes in the corpus folder (`eval/corpus/`).
ASSENT_FIXES = "assent_fixes.json"


class _Fix(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    answer: str
    reply: str
    chosen: tuple[str, ...]


class _Fixes(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    purpose: str
    choices: tuple[_Fix, ...]


@dataclass(frozen=True, slots=True)
class AssentExample:
    """One assent: its candidates' features and whether the gold chose each (all False: nothing);
    `floored`: the model's floor applies to it (`assent.floored`: a bare assent, or any assent to an
    answer with no signal); `reading`: `assent.Reply.reading`."""

    author: str
    session: str
    turn: int
    bare: bool
    floored: bool
    reading: AssentReading
    features: tuple[dict[str, float], ...]
    chosen: tuple[bool, ...]
    sentences: tuple[str, ...]
    proposals: tuple[str, ...]
    words: str

    @property
    def chooses(self) -> bool:
        return any(self.chosen)


def _turn(n: int, user: str, assistant: str) -> Turn:
    return Turn(
        id=n + 1,
        thread_id=1,
        seq=n + 1,
        intent=Intent.GENERAL_CHAT,
        status=TurnStatus.COMPLETED,
        user_text=user,
        assistant_text=assistant,
        error=None,
        created_at=0.0,
        updated_at=0.0,
    )


def _overlaps(text: str, a: str, b: str) -> bool:
    at, bt = text.find(a), text.find(b)
    return at >= 0 and bt >= 0 and at < bt + len(b) and bt < at + len(a)


def _example(
    author: str, session: str, n: int, answer: str, reply: Reply, chosen: tuple[bool, ...], lexicon: Lexicon
) -> AssentExample:
    found = candidates(answer, lexicon)
    return AssentExample(
        author=author,
        session=session,
        turn=n,
        bare=reply.own is None,
        floored=floored(reply.own is None, reply.reading),
        reading=reply.reading,
        features=tuple(choice_features(answer, reply.words, reply.own is None, lexicon, reading=reply.reading)),
        chosen=chosen,
        sentences=tuple(c.text for c in found),
        proposals=tuple(reply.proposals),
        words=reply.words,
    )


def fix_examples(path: Path, lexicon: Lexicon) -> list[AssentExample]:
    """The labelled fixes of `path` (author "fixes"); a fix the assent reader reads no assent in, or
    whose chosen sentence is no candidate, raises ValueError (pydantic's error for another shape)."""
    fixes = _Fixes.model_validate(json.loads(path.read_text(encoding="utf-8")))
    reader = AssentReader(lexicon)
    out: list[AssentExample] = []
    for n, fix in enumerate(fixes.choices):
        answer = parse(fix.answer).prose(keep_reports=True)
        reply = reader.reply(_turn(1, parse(fix.reply).prose(), fix.answer), _turn(0, "?", answer))
        if reply is None or reply.quoted:
            raise ValueError(f"{path.name}: no assent read in {fix.reply!r}")
        texts = [c.text for c in candidates(answer, lexicon)]
        if any(c not in texts for c in fix.chosen):
            raise ValueError(f"{path.name}: {fix.chosen!r} are not all sentences of the answer: {texts!r}")
        out.append(_example("fixes", f"fix-{n}", 1, answer, reply, tuple(t in fix.chosen for t in texts), lexicon))
    return out


def session_examples(session: Session, author: str, lexicon: Lexicon) -> list[AssentExample]:
    """The assent examples of one realistic session (see the module docstring)."""
    reader = AssentReader(lexicon)
    out: list[AssentExample] = []
    for n in range(1, len(session.turns)):
        raw_answer, raw_user = session.turns[n - 1].assistant, session.turns[n].user
        previous = _turn(n - 1, parse(session.turns[n - 1].user).prose(), parse(raw_answer).prose(keep_reports=True))
        reply = reader.reply(_turn(n, parse(raw_user, raw_answer).prose(), raw_answer), previous)
        if reply is None or reply.quoted:
            continue
        answer = previous.assistant_text or ""
        gold = [
            q.quote
            for memory in session.memories
            if any(q.role == "user" and q.turn == n for q in memory.sources)
            for q in memory.sources
            if q.role == "assistant" and q.turn == n - 1
        ]
        user_quoted = any(
            q.role == "user" and q.turn == n and _overlaps(raw_user, q.quote, reply.quote)
            for memory in session.memories
            for q in memory.sources
        )
        found = candidates(answer, lexicon)
        chosen = tuple(any(_overlaps(raw_answer, c.text, g) for g in gold) for c in found)
        own_statement = not gold and user_quoted and reply.reading != "unsignalled"
        if (gold and not any(chosen)) or own_statement or not found:
            continue
        out.append(_example(author, session.id, n, answer, reply, chosen, lexicon))
    return out
