"""The operation each candidate of a consolidation batch becomes (the offline extractor's Stage 2).

Candidates are grouped by normalized subject ("python_version", "answer_order" …); within one batch
the latest statement of a subject wins and earlier ones are rejected; a candidate whose normalized
content equals a related memory is rejected as a duplicate, and so is a follow-up that only points
back to the rule stated in the turn before it (`restatements.py`); one whose subject matches a related
memory of the same kind supersedes it (discussion context is revised instead); a switch without a
known subject ("改用 Vue，不用 React 了") supersedes the latest related memory of its kind that names the
same thing (by English stem or number; a correction: by any content word), or replaces an earlier
candidate of the batch that does (a switch never replaces a statement of its own turn), and keeps the
topic of what it replaces — its keywords and thesaurus concepts — not the names and values it
retired; a retirement candidate retires the memory it is about (`supersede.py`); nothing replaces a
memory on another subject of the lexicon's table (`SubjectReader.differ`); anything else is created.
Titles, aliases and keywords are `metadata.py`'s.
"""

from __future__ import annotations

from autopatch_j.memory.batches import ConsolidationRequest, RelatedItem, said
from autopatch_j.memory.contracts import ConsolidationOutput, OperationOut
from autopatch_j.memory.lexicon import Lexicon, Subject
from autopatch_j.memory.metadata import bounded, metadata
from autopatch_j.memory.presentation import Presentation, written_in_chinese
from autopatch_j.memory.records import Candidate, MemoryKind, SourceRole
from autopatch_j.memory.replacement import Replacement
from autopatch_j.memory.restatements import restated
from autopatch_j.memory.supersede import RETIREMENT, SubjectReader
from autopatch_j.memory.terms import normalize


class OperationRules:
    """The Stage-2 rules over one lexicon, its replacement rules, subject reader and presentation."""

    def __init__(
        self, lexicon: Lexicon, *, replacement: Replacement, subjects: SubjectReader, presentation: Presentation
    ) -> None:
        self.lexicon = lexicon
        self.replacement = replacement
        self.subjects = subjects
        self.presentation = presentation

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        """One operation per candidate of `request`, in the candidates' order."""
        operations: list[OperationOut] = []
        latest: dict[tuple[str, str], Candidate] = {}
        for candidate in request.candidates:
            if candidate.subject not in ("", RETIREMENT) and candidate.kind is not MemoryKind.DISCUSSION_CONTEXT:
                latest[(candidate.kind.value, candidate.subject)] = candidate
        replaced = self._switched_in_batch(request.candidates)
        replaced.update(self.subjects.retired_in_batch(request.candidates))
        for candidate in request.candidates:  # the latest statement of a subject replaces the earlier ones
            key = (candidate.kind.value, candidate.subject)
            if key in latest and latest[key].id != candidate.id:
                replaced.setdefault(candidate.id, latest[key].id)
        taken: set[int] = set()
        named: set[str] = set()  # subjects of the memories this batch creates
        for candidate in request.candidates:
            if candidate.id in replaced:
                operations.append(OperationOut(op="reject", candidate_ids=[candidate.id]))
                continue
            earlier = [c.content for c in request.candidates if replaced.get(c.id) == candidate.id]
            operations.append(self._operation(candidate, request.related, taken, earlier, named))
        return ConsolidationOutput(operations=operations)

    def _operation(
        self,
        candidate: Candidate,
        related: tuple[RelatedItem, ...],
        taken: set[int],
        replaces: list[str],
        named: set[str],
    ) -> OperationOut:
        same_kind = [r for r in related if r.item.kind is candidate.kind and r.item.memory_id not in taken]
        content_key = normalize(candidate.content)
        if any(normalize(r.item.content) == content_key for r in same_kind):
            return OperationOut(op="reject", candidate_ids=[candidate.id])
        if restated(self.lexicon, candidate, related, taken) is not None:
            return OperationOut(op="reject", candidate_ids=[candidate.id])  # "exactly like that every time"
        subject = self._subject(candidate)
        if self.subjects.retires(candidate):
            # "forget the tabs idea": the memory it names stops being active, nothing takes its place
            dropped_item = self.subjects.target(candidate, related, taken)
            if dropped_item is not None:
                taken.add(dropped_item.item.memory_id)
                return OperationOut(
                    op="retire", candidate_ids=[candidate.id], target_memory_id=dropped_item.item.memory_id
                )
            if self.subjects.takes_back(candidate):  # retiring nothing stored, it is no memory of its own
                return OperationOut(op="reject", candidate_ids=[candidate.id])
        target = self.subjects.target(candidate, related, taken)
        if target is None and (subject is not None or candidate.kind is MemoryKind.DISCUSSION_CONTEXT):
            target = next((r for r in same_kind if candidate.subject in r.subjects), None)
        if target is None and candidate.kind is not MemoryKind.DISCUSSION_CONTEXT:
            target = self._switched_from(candidate, same_kind)
        replaced = [*replaces, *([target.item.content] if target is not None else [])]
        content = self.presentation.content(self.replacement.stated(candidate.content, replaced))
        chinese = written_in_chinese(s.quote for s in candidate.sources if s.role is SourceRole.USER)
        title, aliases, keywords = metadata(self.lexicon, content, candidate.kind, subject, chinese=chinese)
        dropped = self.replacement.dropped(candidate.content, content)
        if replaces:  # replacing earlier statements of this batch, it keeps the words they were found by
            old_words = sorted(
                {w for text in replaces for w in self.lexicon.anchor_tokens(text)}, key=self.lexicon.keyword_order
            )
            keywords = bounded([*self.replacement.topic(old_words, replaces, content, dropped), *keywords])
        if target is None:
            return OperationOut(
                op="create",
                candidate_ids=[candidate.id],
                title=title,
                aliases=aliases,
                keywords=keywords,
                content=content,
                subject=self.subjects.free_subject(
                    candidate, content, related, taken, named, lexical=subject is not None
                ),
            )
        taken.add(target.item.memory_id)
        # What it replaces was found by these words: the replacement keeps them ("状态管理" stays findable).
        # The replacement's own words are in its content (indexed as content terms); what only the
        # metadata can keep findable is the replaced memory's topic: it goes first.
        topic = self.replacement.topic(list(target.item.keywords), [target.item.content], content, dropped)
        keywords = bounded([*topic, *keywords])
        return OperationOut(
            op="revise" if candidate.kind is MemoryKind.DISCUSSION_CONTEXT else "supersede",
            candidate_ids=[candidate.id],
            target_memory_id=target.item.memory_id,
            title=title,
            aliases=aliases,
            keywords=keywords,
            content=content,
            subject=self.subjects.free_subject(candidate, content, related, taken, named, lexical=subject is not None),
        )

    def _switched_in_batch(self, candidates: tuple[Candidate, ...]) -> dict[int, int]:
        """Candidate id → id of the later switch of the same batch that replaces it ("Use Log4j2." …
        "We're reversing the Log4j2 call: Logback it is."): same kind, a shared name."""
        replaced: dict[int, int] = {}
        for n, later in enumerate(candidates):
            if later.kind is MemoryKind.DISCUSSION_CONTEXT or not self._replaces(later.content):
                continue
            # Within one turn a switch continues the statement before it ("… moving all integration
            # tests to Testcontainers. No more shared staging database for tests."); only a correction
            # replaces what the same turn said.
            correction = self.lexicon.is_correction(later.content)
            replaced.update(
                (earlier.id, later.id)
                for earlier in candidates[:n]
                if earlier.kind is later.kind
                and self.replacement.shares_name(said(later), earlier.content)
                and not self.subjects.differ(said(later), said(earlier))
                and (correction or not _same_turn(earlier, later))
            )
        return replaced

    def _switched_from(self, candidate: Candidate, same_kind: list[RelatedItem]) -> RelatedItem | None:
        """The related memory a switch ("改用 Vue，不用 React 了") replaces: the latest one naming a
        thing (a Latin word of ≥ 3 letters) the new statement names too."""
        if not self._replaces(candidate.content):
            return None
        sharing = [
            r
            for r in same_kind
            if self.replacement.shares_name(said(candidate), r.item.content)
            and not self.subjects.differ(said(candidate), r.item.content)
        ]
        return max(sharing, key=lambda r: r.item.memory_id, default=None)

    def _replaces(self, content: str) -> bool:
        return self.lexicon.is_switch(content) or self.lexicon.is_correction(content)

    def _subject(self, candidate: Candidate) -> Subject | None:
        return next((s for s in self.lexicon.subjects if s.key == candidate.subject), None)


def _same_turn(earlier: Candidate, later: Candidate) -> bool:
    return bool({s.turn_id for s in earlier.sources} & {s.turn_id for s in later.sources})
