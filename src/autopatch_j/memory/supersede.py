"""What the offline extractor does with subjects: one statement per subject and turn, a subject for
every memory, the memory a new statement replaces or retires.

The subject model (`subjects.py`) says whether two statements are about one thing; this module
applies it to the offline extractor's candidates and to the related active memories of Stage 2:

- statements of one turn and kind about one subject are one statement quoting each;
- a preference or decision without a subject of the lexicon's table is named by the model;
- a new preference or decision replaces the active memory it is most likely about (above the
  model's threshold): of either kind, or the comparison it settles;
- a statement that only drops something ("forget the tabs idea", "proxy 不上了") retires the memory
  it names and nothing else — a one-off request or a rule on another subject is not about it;
- a new memory is stored under a subject no other active memory holds.
"""

from __future__ import annotations

from autopatch_j.llm.contracts import CandidateOut
from autopatch_j.memory.batches import RelatedItem
from autopatch_j.memory.consolidation import subject_key
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import Candidate, MemoryKind
from autopatch_j.memory.sentences import fold
from autopatch_j.memory.subjects import Statement, SubjectModel
from autopatch_j.memory.validation import MAX_CONTENT_CHARS, MAX_SOURCES


def statement_of(lexicon: Lexicon, text: str, kind: str) -> Statement:
    """`text` as the subject model reads it, its word classes from `lexicon` (training reads it so too)."""
    return Statement(
        text=text,
        kind=kind,
        switch=lexicon.is_switch(text),
        correction=lexicon.is_correction(text),
        retirement=lexicon.retires(text),
    )


class SubjectReader:
    def __init__(self, lexicon: Lexicon, model: SubjectModel) -> None:
        self.lexicon = lexicon
        self.model = model

    def statement(self, text: str, kind: str) -> Statement:
        return statement_of(self.lexicon, text, kind)

    # -- Stage 1 ---------------------------------------------------------------------------------

    def one_per_subject(self, candidates: list[CandidateOut]) -> list[CandidateOut]:
        """Statements of one turn and kind that the model reads as one subject are one statement
        quoting each ("we support 3.11 and 3.12 only. drop 3.10 everywhere")."""
        merged: list[CandidateOut] = []
        for candidate in candidates:
            last = merged[-1] if merged else None
            if (
                last is not None
                and last.kind == candidate.kind != "discussion_context"
                and _user_turns(last) == _user_turns(candidate)
                and len(last.sources) + len(candidate.sources) <= MAX_SOURCES
                and len(last.content) + 1 + len(candidate.content) <= MAX_CONTENT_CHARS
                and self.model.is_same(
                    self.statement(_quoted(candidate), candidate.kind), self.statement(_quoted(last), last.kind)
                )
            ):
                merged[-1] = last.model_copy(
                    update={
                        "content": f"{last.content} {candidate.content}",
                        "sources": [*last.sources, *candidate.sources],
                    }
                )
            else:
                merged.append(candidate)
        return merged

    def named(self, candidate: CandidateOut) -> CandidateOut:
        """A preference or decision without a subject of the lexicon's table gets the model's name."""
        if candidate.subject or candidate.kind == "discussion_context":
            return candidate
        name = self.model.name(_quoted(candidate))
        return candidate.model_copy(update={"subject": name}) if name else candidate

    # -- Stage 2 ---------------------------------------------------------------------------------

    def retires(self, candidate: Candidate) -> bool:
        """The candidate only drops something and adopts nothing ("算了 proxy 不上了")."""
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return False
        said = _said(candidate)
        # a switch or a new rule in the same words ("Drop that idea: the session store goes in Postgres
        # from now on.") adopts something: it replaces, it does not only retire
        return (
            self.lexicon.retires(said)
            and not self.lexicon.is_switch(said)
            and not self.lexicon.speech_acts.search(fold(said))
        )

    def target(self, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int]) -> RelatedItem | None:
        """The active memory a new preference or decision is about: the likeliest above the model's
        threshold, of either kind, or the comparison it settles."""
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return None
        new = self.statement(_said(candidate), candidate.kind.value)
        best: tuple[float, int] | None = None
        found = None
        for r in related:
            if r.item.memory_id in taken:
                continue
            old = Statement(" ".join(s.quote for s in r.sources) or r.item.content, r.item.kind.value)
            p = self.model.same_subject(new, old)
            if p >= self.model.threshold and (best is None or (p, r.item.memory_id) > best):
                best, found = (p, r.item.memory_id), r
        return found

    def free_subject(
        self,
        candidate: Candidate,
        content: str,
        related: tuple[RelatedItem, ...],
        taken: set[int],
        named: set[str],
        *,
        lexical: bool,
    ) -> str:
        """The subject a new memory stating `content` is stored under: its candidate's subject of the
        lexicon's table (`lexical`), else the model's name for the content (never for what it
        retired) — unless an active memory it does not replace, or one created before it in the batch
        (`named`, which it joins), is already stored under it (then its own head words are added)."""
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return ""
        name = subject_key(candidate.subject if lexical else self.model.name(content))
        held = named | {
            subject_key(s)
            for r in related
            if r.item.memory_id not in taken and r.item.kind is not MemoryKind.DISCUSSION_CONTEXT
            for s in r.subjects
        }
        if not name or name not in held:
            free = name
        else:
            words = subject_key(self.model.name(content, vote=False))
            free = subject_key(f"{name} {words}") if words and words != name else ""
            if not free or free in held:
                free = subject_key(f"{name} {candidate.id}")
        named.add(free)
        return free


def _said(candidate: Candidate) -> str:
    return " ".join(s.quote for s in candidate.sources) or candidate.content


def _quoted(candidate: CandidateOut) -> str:
    return " ".join(s.quote for s in candidate.sources)


def _user_turns(candidate: CandidateOut) -> set[int]:
    return {s.turn_id for s in candidate.sources if s.role == "user"}
