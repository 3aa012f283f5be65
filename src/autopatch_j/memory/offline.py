"""The offline `RulesExtractor`: both stages deterministically from the lexicon, no model needed.

Stage 1: in every user turn of the batch, each sentence with an explicit speech act that is not
temporary, not a question, not speculation and not a current code fact becomes a candidate quoting
that sentence (kind from the subject table, else from the kind hints); a user turn that is only a
short confirmation, right after an assistant answer with a proposal sentence, becomes a
`project_decision` quoting both the proposal and the confirmation (a `user_preference` when the
assistant promised standing conduct of its own, `Lexicon.proposal_kind`); a user sentence comparing
options becomes `discussion_context`. Sentences of one turn that state the same subject form one
candidate quoting each of them, and so do two statements of one kind joined by a semicolon. The
compaction is a bounded rolling digest of the turns.

Stage 2: candidates are grouped by normalized subject ("python_version", "answer_order" …); within
one batch the latest statement of a subject wins and earlier ones are rejected; a candidate whose
normalized content equals a related memory is rejected as a duplicate; one whose subject matches a
related memory of the same kind supersedes it (discussion context is revised instead); a switch
without a known subject ("改用 Vue，不用 React 了") supersedes the latest related memory of its kind that
names the same thing (by English stem), or replaces an earlier candidate of the batch that does, and
keeps the keywords of what it replaces; anything else is created. Kinds follow the lexicon's kind rule
(`Lexicon.kind_hint`, docs/pipeline.md). Titles, aliases and keywords come from the subject table
(Chinese and English) and the content's own words.
"""

from __future__ import annotations

import re

from autopatch_j.llm.contracts import (
    CandidateOut,
    ConsolidationOutput,
    ExtractionOutput,
    OperationOut,
    SourceOut,
)
from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest, RelatedItem
from autopatch_j.memory.lexicon import Lexicon, Subject, default_lexicon
from autopatch_j.memory.records import Candidate, MemoryKind, Turn
from autopatch_j.memory.terms import normalize
from autopatch_j.memory.validation import MAX_CANDIDATES, MAX_COMPACTION_CHARS, MAX_CONTENT_CHARS, MAX_SOURCES
from autopatch_j.memory.words import stem

_SENTENCE = re.compile(r"[^。！？!?；;\n]+?(?:[。！？!?；;]+|\.(?=\s|$)|\n|$)")
_DIGEST_CHARS = 160
_TITLE_CHARS = 60
_OWN_KEYWORDS = 10  # a supersede keeps this many of its own keywords before those of what it replaces
_KIND_LABELS = {
    MemoryKind.USER_PREFERENCE: ("用户偏好", "user preference"),
    MemoryKind.PROJECT_DECISION: ("项目决定", "project decision"),
    MemoryKind.DISCUSSION_CONTEXT: ("讨论上下文", "discussion context"),
}


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`, each an exact substring (stripped), in order."""
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


class RulesExtractor:
    name = "rules"

    def __init__(self, *, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or default_lexicon()

    # -- Stage 1 ---------------------------------------------------------------------------------

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        candidates: list[CandidateOut] = []
        for turn in request.turns:
            confirmed = self._confirmation(turn, request.predecessor(turn))
            if confirmed is not None:
                candidates.append(confirmed)
            else:
                candidates.extend(self._statements(turn))
        # More than one output may hold would be rejected whole and retried forever: keep the latest.
        return ExtractionOutput(compaction=self._compaction(request), candidates=candidates[-MAX_CANDIDATES:])

    def _statements(self, turn: Turn) -> list[CandidateOut]:
        found: list[CandidateOut] = []
        clause_of: CandidateOut | None = None  # the statement a sentence ending in ";" started
        for sentence in split_sentences(turn.user_text):
            source = [SourceOut(turn_id=turn.id, role="user", quote=sentence)]
            subject = self.lexicon.subject_of(sentence)
            joins, clause_of = clause_of, None
            if not self.lexicon.anchor_tokens(sentence):
                continue  # nothing but speech acts ("Sure, do that from now on."): no content to keep
            if self.lexicon.supports_statement(sentence):
                kind = self.lexicon.statement_kind(sentence, subject)
                same = next(
                    (c for c in reversed(found) if subject and c.subject == subject.key and c.kind == kind), None
                )
                if same is None and joins is not None and joins.kind == kind and joins is found[-1]:
                    same = joins  # "stop sending whole files; from now on just send the diff": one statement
                if same is not None and _fits(same, sentence):  # one turn, one subject: one statement quoting each
                    merged = same.model_copy(
                        update={"content": f"{same.content} {sentence}", "sources": [*same.sources, *source]}
                    )
                    found[found.index(same)] = merged
                    clause_of = merged if sentence.endswith((";", "；")) else None
                    continue
                found.append(
                    CandidateOut(kind=kind, content=sentence, subject=subject.key if subject else "", sources=source)  # type: ignore[arg-type]
                )
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
            elif self.lexicon.is_discussion(sentence) and not self.lexicon.is_code_fact(sentence):
                found.append(
                    CandidateOut(kind="discussion_context", content=sentence, subject="discussion", sources=source)
                )
        return found

    def _confirmation(self, turn: Turn, previous: Turn | None) -> CandidateOut | None:
        if previous is None or not previous.assistant_text or not self.lexicon.is_confirmation(turn.user_text):
            return None
        proposals = [
            s
            for s in split_sentences(previous.assistant_text)
            if self.lexicon.has_proposal_signal(s) and self.lexicon.anchor_tokens(s)
        ]
        if not proposals:
            return None
        # The proposal with the most content words (the later one on a tie) is the one confirmed.
        proposal = max(reversed(proposals), key=lambda s: len(self.lexicon.anchor_tokens(s)))
        subject = self.lexicon.subject_of(proposal)
        return CandidateOut(
            kind=self.lexicon.proposal_kind(proposal),  # type: ignore[arg-type]
            content=proposal,
            subject=subject.key if subject else "",
            sources=[
                SourceOut(turn_id=previous.id, role="assistant", quote=proposal),
                SourceOut(turn_id=turn.id, role="user", quote=turn.user_text.strip()),
            ],
        )

    def _compaction(self, request: ExtractionRequest) -> str:
        lines = [line for line in request.compaction.splitlines() if line.strip()]
        for turn in request.turns:
            lines.append(f"[{turn.seq}] user: {_digest(turn.user_text)}")
            if turn.assistant_text:
                lines.append(f"[{turn.seq}] assistant: {_digest(turn.assistant_text)}")
        while lines and len("\n".join(lines)) > MAX_COMPACTION_CHARS:
            lines.pop(0)
        return "\n".join(lines)

    # -- Stage 2 ---------------------------------------------------------------------------------

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        operations: list[OperationOut] = []
        latest: dict[tuple[str, str], Candidate] = {}
        for candidate in request.candidates:
            if candidate.subject and candidate.kind is not MemoryKind.DISCUSSION_CONTEXT:
                latest[(candidate.kind.value, candidate.subject)] = candidate
        replaced = self._switched_in_batch(request.candidates)
        taken: set[int] = set()
        for candidate in request.candidates:
            key = (candidate.kind.value, candidate.subject)
            if (key in latest and latest[key].id != candidate.id) or candidate.id in replaced:
                operations.append(OperationOut(op="reject", candidate_ids=[candidate.id]))
                continue
            earlier = [c.content for c in request.candidates if replaced.get(c.id) == candidate.id]
            operations.append(self._operation(candidate, request.related, taken, earlier))
        return ConsolidationOutput(operations=operations)

    def _operation(
        self, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int], replaces: list[str]
    ) -> OperationOut:
        same_kind = [r for r in related if r.item.kind is candidate.kind and r.item.memory_id not in taken]
        content_key = normalize(candidate.content)
        if any(normalize(r.item.content) == content_key for r in same_kind):
            return OperationOut(op="reject", candidate_ids=[candidate.id])
        subject = self._subject(candidate)
        title, aliases, keywords = self._metadata(candidate, subject)
        if replaces:  # a switch replacing an earlier statement of this batch keeps the words it was found by
            old_words = sorted(
                {w for text in replaces for w in self.lexicon.anchor_tokens(text)}, key=lambda w: (-len(w), w)
            )
            keywords = _bounded([*keywords[:_OWN_KEYWORDS], *old_words, *keywords[_OWN_KEYWORDS:]])
        target = None
        if candidate.subject:
            target = next((r for r in same_kind if candidate.subject in r.subjects), None)
        if target is None and candidate.kind is not MemoryKind.DISCUSSION_CONTEXT:
            target = self._switched_from(candidate, same_kind)
        if target is None:
            return OperationOut(
                op="create",
                candidate_ids=[candidate.id],
                title=title,
                aliases=aliases,
                keywords=keywords,
                content=candidate.content,
            )
        taken.add(target.item.memory_id)
        # What it replaces was found by these words: the replacement keeps them ("状态管理" stays findable).
        keywords = _bounded([*keywords[:_OWN_KEYWORDS], *target.item.keywords, *keywords[_OWN_KEYWORDS:]])
        return OperationOut(
            op="revise" if candidate.kind is MemoryKind.DISCUSSION_CONTEXT else "supersede",
            candidate_ids=[candidate.id],
            target_memory_id=target.item.memory_id,
            title=title,
            aliases=aliases,
            keywords=keywords,
            content=candidate.content,
        )

    def _switched_in_batch(self, candidates: tuple[Candidate, ...]) -> dict[int, int]:
        """Candidate id → id of the later switch of the same batch that replaces it ("Use Log4j2." …
        "We're reversing the Log4j2 call: Logback it is."): same kind, a shared name."""
        replaced: dict[int, int] = {}
        for n, later in enumerate(candidates):
            if later.kind is MemoryKind.DISCUSSION_CONTEXT or not self.lexicon.is_switch(later.content):
                continue
            names = _names(self.lexicon.anchor_tokens(later.content))
            replaced.update(
                (earlier.id, later.id)
                for earlier in candidates[:n]
                if earlier.kind is later.kind and names & _names(self.lexicon.anchor_tokens(earlier.content))
            )
        return replaced

    def _switched_from(self, candidate: Candidate, same_kind: list[RelatedItem]) -> RelatedItem | None:
        """The related memory a switch ("改用 Vue，不用 React 了") replaces: the latest one naming a
        thing (a Latin word of ≥ 3 letters) the new statement names too."""
        if not self.lexicon.is_switch(candidate.content):
            return None
        names = _names(self.lexicon.anchor_tokens(candidate.content))
        sharing = [r for r in same_kind if names & _names(self.lexicon.anchor_tokens(r.item.content))]
        return max(sharing, key=lambda r: r.item.memory_id, default=None)

    def _subject(self, candidate: Candidate) -> Subject | None:
        return next((s for s in self.lexicon.subjects if s.key == candidate.subject), None)

    def _metadata(self, candidate: Candidate, subject: Subject | None) -> tuple[str, list[str], list[str]]:
        label_zh, label_en = _KIND_LABELS[candidate.kind]
        words = sorted(self.lexicon.anchor_tokens(candidate.content), key=lambda w: (-len(w), w))
        if subject is not None:
            title = f"{subject.title_zh} / {subject.title_en}"
            aliases = [subject.title_zh, subject.title_en, subject.key.replace("_", " ")]
            keywords = [*subject.keywords, *words]
        else:
            title = _clip(candidate.content, _TITLE_CHARS)
            aliases = [label_zh, label_en]
            keywords = words or [label_en]
        return title, _bounded(aliases), _bounded(keywords)


def _names(tokens: frozenset[str]) -> set[str]:
    """The things a statement names, by English stem ("files" and "file" are one name): Latin words
    of at least three letters."""
    return {stem(t) for t in tokens if len(t) >= 3 and t.isascii()}


def _digest(text: str) -> str:
    return _clip(" ".join(text.split()), _DIGEST_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(values: list[str], limit: int = 16) -> list[str]:
    cleaned = [v.strip()[:160] for v in values if v.strip()]
    return list(dict.fromkeys(cleaned))[:limit]


def _fits(candidate: CandidateOut, sentence: str) -> bool:
    """A same-subject sentence joins a candidate only while the result stays within the validator's
    limits; past them it starts a new candidate (Stage 2 keeps the latest statement of a subject)."""
    return len(candidate.sources) < MAX_SOURCES and len(candidate.content) + 1 + len(sentence) <= MAX_CONTENT_CHARS
