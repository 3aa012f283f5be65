"""The statements of one user turn (the offline extractor's Stage 1): from its prose sentences to
candidate memories.

Each prose sentence the sentence reader (`reader.py`) reads as a preference or decision, and is sure
of or that passes the hard gates (`reader.admits`), becomes a candidate of the reader's kind quoting it,
one it reads as discussion becomes discussion context (without readings the lexicon's markers
decide); comparing options is discussion, quoting the question it weighs when one comes right before
it in the turn, and going on past a semicolon. Each item of a list is a statement of its own
(`lists.walk`). Every other sentence is a candidate of its own: whether two statements of one turn
are one memory — a rule and its detail or reason, or two rules side by side — is the joining
model's to say (`joining.py`, applied by `supersede.SubjectReader.one_per_statement`). Only what a
sentence says about the one before it joins here: a sentence extending it ("That applies to every
answer.") or pointing back to it ("Make that a habit."), a rule completing a correction that only
retires, and a sentence that only says a group settled the one before it ("… Team decision.",
"…。组里都同意了。"), which makes that one a project decision quoting both. What a correction
corrects is `corrections.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable

from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.corrections import CorrectionReader
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.lists import walk
from autopatch_j.memory.reader import STATEMENTS, Reading, admits, discusses
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.validation import MAX_CONTENT_CHARS, MAX_SOURCES


class StatementReader:
    """The statement rules over one lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon
        self.corrections = CorrectionReader(lexicon)

    def read(
        self,
        turn: Turn,
        earlier: Callable[[], list[CandidateOut]],
        previous: Turn | None,
        readings: dict[str, Reading] | None,
    ) -> list[CandidateOut]:
        """The statements of one user turn; `earlier()` gives the statements in view before it (asked for
        only by a correction), `previous` is the turn just before it (what a correction may correct),
        `readings` what the reader made of each of its sentences (None: the lexicon's markers decide)."""
        found: list[CandidateOut] = []  # the statements of the current list item (or of the prose)
        done: list[CandidateOut] = []  # those of the items and prose before it
        clause_of: CandidateOut | None = None  # the statement a sentence ending in ";" started
        # a change of mind that corrects nothing in view, quoted by the rule said right after it
        unsaid: str | None = None
        sentences = split_sentences(turn.user_text)
        for n, written, sentence, new_item in walk(turn.user_text, sentences):
            # a sentence the reader did not read (not one of the turn's prose sentences) is the lexicon's
            reading = readings.get(written) if readings is not None else None
            label = reading.label if reading is not None else None
            if new_item:  # each item of a list is a statement of its own
                clause_of = None
                done.extend(found)
                found.clear()
            if n and sentences[n - 1].endswith((";", "；")) and self.lexicon.is_temporary(sentences[n - 1]):
                continue  # "For this refactor only, skip the type hints; we'll add them back afterwards."
            source = [SourceOut(turn_id=turn.id, role="user", quote=sentence)]
            ratified = self.lexicon.ratified_kind(sentence)
            if ratified is not None:
                # "… Team decision.", "…。组里都同意了。", "… That's how I like it.": the sentence before
                # it is a statement of that kind; on its own (nothing before it in the turn) it states nothing.
                if n:
                    self._ratify(turn, sentences[n - 1], sentence, ratified, found)
                clause_of = None
                continue
            subject = self.lexicon.subject_of(sentence)
            joins, clause_of = clause_of, None
            if not self.lexicon.anchor_tokens(sentence):
                continue  # nothing but speech acts ("Sure, do that from now on."): no content to keep
            if (
                joins is not None
                and joins is found[-1]
                and joins.kind == "discussion_context"
                and not self.lexicon.statement_in_turn(turn.user_text, sentence)
                and _fits(joins, sentence)
            ):
                # "我在权衡缓存层：Redis …；Caffeine …": a comparison goes on past its semicolon (whether a
                # rule goes on past one is the joining model's to say)
                found[-1] = _joined(joins, sentence, source)
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
                continue
            if (
                found
                and found[-1].kind != "discussion_context"
                # a statement of another kind is its own, unless it only extends ("这条也适用于…")
                and (label in (None, found[-1].kind, "none") or self.lexicon.is_extension(sentence))
                and self._extends(sentence, found[-1], sentences[n - 1] if n else "")
            ):
                # "… in every reply. That goes for all your answers.": one statement quoting both
                found[-1] = _joined(found[-1], sentence, source)
                continue
            # A switch continuing a statement after ";" ("no more Friday deploys; we ship on Tuesdays
            # instead.") is part of it.
            continues = joins is not None and joins is found[-1] and self.lexicon.is_switch(sentence)
            # "Actually, I know Kotlin well by now. Skip the basics instead.": a correction spanning the
            # turn's sentences is one statement quoting them all.
            spanned = "" if found else self.corrections.span(turn.user_text, sentences[:n], sentence)
            if spanned:
                sentence, source = spanned, [SourceOut(turn_id=turn.id, role="user", quote=spanned)]
            if (
                not found
                and n + 1 < len(sentences)
                and self.lexicon.reads_as_statement(sentence)
                and self.corrections.span(turn.user_text, sentences[: n + 1], sentences[n + 1])
            ):
                continue  # "Actually, I know Rust by now. Pitch it higher instead.": the span states it
            if admits(self.lexicon, turn.user_text, sentence, reading) or (
                continues and self.lexicon.passes_gates(sentence)
            ):
                read_kind = label if label in STATEMENTS else None
                judged = self.corrections.judge(
                    turn, sentence, subject, lambda: [*earlier(), *done, *found], previous, read_kind
                )
                if judged is None:
                    unsaid = sentence if self.lexicon.is_correction(sentence) else None
                    continue
                kind, unnamed = judged
                if subject is None and self._completes(found, kind, sentence):
                    merged = _joined(found[-1], sentence, source)
                    found[-1] = merged
                    clause_of = merged if sentence.endswith((";", "；")) else None
                    continue
                content = sentence
                # "Sorry, I change my mind: code first is hard to read. Explanation first, then code.": the
                # rule quotes the change of mind before it, whose words name what it replaces (Stage 2
                # reads them for the rule it revises)
                if (
                    unsaid is not None
                    and n
                    and sentences[n - 1] == unsaid
                    and not new_item
                    and len(unsaid) + 1 + len(content) <= MAX_CONTENT_CHARS
                ):
                    content = f"{unsaid} {content}"
                    source = [SourceOut(turn_id=turn.id, role="user", quote=unsaid), *source]
                unsaid = None
                if unnamed is not None and len(unnamed.sources) < MAX_SOURCES:
                    # "更正一下：是 3 秒。" names nothing of what it corrects: it quotes that statement too,
                    # as its evidence and to be found by its words (Stage 2 looks related items up by every
                    # quote), while its content states only the correction.
                    source = [*(src for src in unnamed.sources if src.role == "user"), *source]
                found.append(
                    CandidateOut(
                        kind=MemoryKind(kind), content=content, subject=subject.key if subject else "", sources=source
                    )
                )
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
            elif discusses(self.lexicon, sentence, reading):
                content = sentence
                asked = sentences[n - 1] if n and not new_item else ""
                if (
                    asked.rstrip().endswith(("?", "？"))
                    and len(asked) + 1 + len(sentence) <= MAX_CONTENT_CHARS
                    and not any(src.quote == asked for c in (*done, *found) for src in c.sources)
                ):
                    # "FastAPI 还是 Flask？我们在比较这两个方案。": the comparison holds the question it weighs
                    content = f"{asked} {sentence}"
                    source = [SourceOut(turn_id=turn.id, role="user", quote=asked), *source]
                found.append(
                    CandidateOut(
                        kind=MemoryKind.DISCUSSION_CONTEXT, content=content, subject="discussion", sources=source
                    )
                )
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
        return [*done, *found]

    def _ratify(self, turn: Turn, before: str, sentence: str, kind: str, found: list[CandidateOut]) -> None:
        """Make `before` (the sentence just before the ratification `sentence` in `turn`) a statement of
        `kind` quoting both: the statement it already formed, or a new one when it passes the gates on
        its own words ("Config values … are kept in AWS Parameter Store. That's the team standard.")."""
        source = SourceOut(turn_id=turn.id, role="user", quote=sentence)
        last = found[-1] if found and found[-1].sources[-1].quote == before else None
        if last is not None and last.kind != "discussion_context":
            if _fits(last, sentence):
                found[-1] = _joined(last, sentence, [source]).model_copy(update={"kind": kind})
            return
        if not self.lexicon.anchor_tokens(before) or not self.lexicon.passes_gates(before):
            return
        if last is not None:
            found.pop()  # a comparison the group then settled is no longer a discussion
        subject = self.lexicon.subject_of(before)
        found.append(
            CandidateOut(
                kind=MemoryKind(kind),
                content=f"{before} {sentence}",
                subject=subject.key if subject else "",
                sources=[SourceOut(turn_id=turn.id, role="user", quote=before), source],
            )
        )

    def _completes(self, found: list[CandidateOut], kind: str, sentence: str) -> bool:
        """`sentence` (no subject of the lexicon's table) completes the statement before it in its turn:
        that one is a correction of the same kind, with no subject either, that only retires, and the
        rule after it says what holds instead ("想了下还是不要逐行了，太吵。以后只在关键地方写注释就行。")."""
        if not found or kind == "discussion_context":
            return False
        last = found[-1]
        return (
            last.kind == kind
            and not last.subject
            and self.lexicon.is_correction(last.content)
            and bool(self.lexicon.retires(last.content))
            and _fits(last, sentence)
        )

    def _extends(self, sentence: str, statement: CandidateOut, before: str) -> bool:
        """`sentence` is part of `statement`: it extends its scope ("That applies to every answer."), or
        it comes right after it, corrects nothing and points back to it ("Make that a habit.", "We're
        enforcing that starting this sprint.")."""
        if not self.lexicon.passes_gates(sentence) or not _fits(statement, sentence):
            return False
        if self.lexicon.is_extension(sentence):
            return True
        if not before or statement.sources[-1].quote != before or self.lexicon.is_correction(sentence):
            return False
        return self.lexicon.points_back(sentence)


def _joined(candidate: CandidateOut, sentence: str, source: list[SourceOut]) -> CandidateOut:
    """`candidate` continued by `sentence` of its turn: one statement quoting each."""
    return candidate.model_copy(
        update={"content": f"{candidate.content} {sentence}", "sources": [*candidate.sources, *source]}
    )


def _fits(candidate: CandidateOut, sentence: str) -> bool:
    """A sentence joins a candidate only while the result stays within the validator's limits; past
    them it starts a new candidate."""
    return len(candidate.sources) < MAX_SOURCES and len(candidate.content) + 1 + len(sentence) <= MAX_CONTENT_CHARS
