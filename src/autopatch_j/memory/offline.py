"""The offline `RulesExtractor`: both stages deterministically, from the lexicon and small trained models.

Stage 1: pasted material is dropped (`structure.py`), each item of a list is read on its own and the
line introducing the list is none (`lists.py`); each prose sentence the sentence reader (`reader.py`)
reads as a preference or decision and that passes the hard gates (`Lexicon.passes_gates`) becomes a
candidate of the reader's kind quoting it, one it reads as discussion becomes discussion context
(`read_with_model=False`: the lexicon's markers decide); a user turn that is only a short confirmation
— or an assent repeating the proposal's own words ("Yep, cap it at 100.") — right after an assistant
answer with a proposal sentence, becomes a `project_decision` quoting both (a `user_preference` when
the assistant promised standing conduct, `Lexicon.proposal_kind`); comparing options is discussion.
Sentences of one turn that state the same subject form one candidate quoting each of them, and so do
two statements of one kind joined by a semicolon and a sentence extending the one before it ("That
applies to every answer."). A correction or restatement ("说错了，是 3 秒，不是 30 秒。", "Scratch that.
…", "Let me restate that: …") takes the kind of the statement in view that it corrects; one that
names nothing of it quotes it too, and one with nothing in view to correct is no statement (unless
it names the switch itself: "之前说用 MySQL，现在改成 PostgreSQL。"); a correction marker spanning
sentences ("Actually, I know Kotlin by now. Skip the basics instead.") makes one statement of them.
A sentence that only says a group settled the one before it ("… Team decision.", "…。组里都同意了。")
makes that one a project decision quoting both. The compaction is a bounded rolling digest of the
turns.

Stage 2: candidates are grouped by normalized subject ("python_version", "answer_order" …); within
one batch the latest statement of a subject wins and earlier ones are rejected; a candidate whose
normalized content equals a related memory is rejected as a duplicate; one whose subject matches a
related memory of the same kind supersedes it (discussion context is revised instead); a switch
without a known subject ("改用 Vue，不用 React 了") supersedes the latest related memory of its kind that
names the same thing (by English stem or number; a correction: by any content word), or replaces an
earlier candidate of the batch that does (a switch never replaces a statement of its own turn), and
keeps the topic of what it replaces — its keywords and thesaurus concepts — not the names and values
it retired; anything else is created. Kinds follow the lexicon's kind rule
(`Lexicon.kind_hint`, docs/pipeline.md). Titles, aliases and keywords come from the subject table
(Chinese and English) and the content's own words.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from autopatch_j.llm.contracts import (
    CandidateOut,
    ConsolidationOutput,
    ExtractionOutput,
    OperationOut,
    SourceOut,
)
from autopatch_j.memory.assent import AssentReader
from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest, RelatedItem, said
from autopatch_j.memory.lexicon import Lexicon, Subject, default_lexicon
from autopatch_j.memory.lists import one_per_item, walk
from autopatch_j.memory.presentation import default_presentation, written_in_chinese
from autopatch_j.memory.reader import RETIREMENT as RETIREMENT_READ
from autopatch_j.memory.reader import STATEMENTS, ReaderModel, admits, default_reader_model, discusses, turn_features
from autopatch_j.memory.records import Candidate, MemoryKind, SourceRole, Turn
from autopatch_j.memory.replacement import Replacement, names_in, stemmed
from autopatch_j.memory.sentences import names_a_thing, split_sentences
from autopatch_j.memory.structure import prose_request, quotes_raw
from autopatch_j.memory.subjects import SubjectModel, default_subject_model
from autopatch_j.memory.supersede import RETIREMENT, SubjectReader
from autopatch_j.memory.terms import normalize
from autopatch_j.memory.validation import MAX_CANDIDATES, MAX_COMPACTION_CHARS, MAX_CONTENT_CHARS, MAX_SOURCES

#: Whether a `RulesExtractor` reads sentences with the trained reader unless told otherwise (the
#: lexicon-first reading is kept for comparison runs).
READER_PRIMARY = True
_DIGEST_CHARS = 160
_TITLE_CHARS = 60
_KIND_LABELS = {
    MemoryKind.USER_PREFERENCE: ("用户偏好", "user preference"),
    MemoryKind.PROJECT_DECISION: ("项目决定", "project decision"),
    MemoryKind.DISCUSSION_CONTEXT: ("讨论上下文", "discussion context"),
}


class RulesExtractor:
    name = "rules"

    def __init__(
        self,
        *,
        lexicon: Lexicon | None = None,
        subjects: SubjectModel | None = None,
        reader: ReaderModel | None = None,
        read_with_model: bool | None = None,
    ) -> None:
        self.lexicon = lexicon or default_lexicon()
        # With `read_with_model` the sentence reader (`reader.py`) decides what each prose sentence is;
        # without it the lexicon's markers and the binary speech model do. Default: READER_PRIMARY.
        self._reader = reader
        self.read_with_model = READER_PRIMARY if read_with_model is None else read_with_model
        self.replacement = Replacement(self.lexicon)
        self.subjects = SubjectReader(self.lexicon, subjects or default_subject_model())
        self.assent = AssentReader(self.lexicon)
        self.presentation = default_presentation()

    # -- Stage 1 ---------------------------------------------------------------------------------

    def extract(self, request: ExtractionRequest) -> ExtractionOutput:
        raw = request
        request = prose_request(request)  # structure before words: pasted material is never read
        candidates: list[CandidateOut] = []
        retiring: set[tuple[int, str]] = set()  # (turn id, sentence) the reader reads as a retirement
        # What a correction at the start of the batch corrects may be the turn just before it; that
        # turn was extracted by the previous batch, so it is read again only when a correction asks.
        prior = request.prior_turn
        prior_statements = functools.cache(
            lambda: self._statements(prior, list, None, self._readings(raw, prior)) if prior else []
        )
        for turn in request.turns:
            previous = request.predecessor(turn)
            assent = self.assent.read(turn, previous)
            rest: Turn | None = turn
            if assent is not None:  # what an assent decides; the rest of its turn is read as any other
                candidates.append(assent.candidate)
                rest = assent.rest
            if rest is not None:
                readings = self._readings(raw, rest)
                retiring.update((rest.id, s) for s, reading in (readings or {}).items() if reading == RETIREMENT_READ)
                candidates.extend(
                    self._statements(rest, lambda: [*prior_statements(), *candidates], previous, readings)
                )
        named = [self.subjects.named(c) for c in candidates if quotes_raw(c.sources, raw)]
        candidates = one_per_item(named, raw, self.subjects.one_per_subject, bounds=(MAX_SOURCES, MAX_CONTENT_CHARS))
        # A sentence that only drops a standing rule is no statement; Stage 2 retires what it is about.
        candidates = [
            c for c in self.subjects.retirements(request.turns, candidates, retiring) if quotes_raw(c.sources, raw)
        ]
        # More than one output may hold would be rejected whole and retried forever: keep the latest.
        return ExtractionOutput(compaction=self._compaction(raw), candidates=candidates[-MAX_CANDIDATES:])

    def _readings(self, raw: ExtractionRequest, turn: Turn) -> dict[str, str] | None:
        """What the reader makes of each prose sentence of `turn`, by sentence (read in its whole RAW
        turn, so a part of the turn handed to `_statements` finds its sentences); None: the lexicon
        reads them."""
        if not self.read_with_model:
            return None
        model = self._reader or default_reader_model()
        original = raw.turn(turn.id) or turn
        before = raw.predecessor(original)
        pairs = turn_features(original.user_text, (before.assistant_text or "") if before else "", self.lexicon)
        readings: dict[str, str] = {}
        for sentence, feats in pairs:
            readings.setdefault(sentence, model.read(feats))
        return readings

    def _statements(
        self,
        turn: Turn,
        earlier: Callable[[], list[CandidateOut]],
        previous: Turn | None,
        readings: dict[str, str] | None,
    ) -> list[CandidateOut]:
        """The statements of one user turn; `earlier()` gives the statements in view before it (asked for
        only by a correction), `previous` is the turn just before it (what a correction may correct),
        `readings` what the reader made of each of its sentences (None: the lexicon's markers decide)."""
        found: list[CandidateOut] = []  # the statements of the current list item (or of the prose)
        done: list[CandidateOut] = []  # those of the items and prose before it
        clause_of: CandidateOut | None = None  # the statement a sentence ending in ";" started
        sentences = split_sentences(turn.user_text)
        for n, written, sentence, new_item in walk(turn.user_text, sentences):
            # a sentence the reader did not read (not one of the turn's prose sentences) is the lexicon's
            reading = readings.get(written) if readings is not None else None
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
                and not self.lexicon.statement_in_turn(turn.user_text, sentence)
                and (
                    joins.kind == "discussion_context"
                    or (self.lexicon.passes_gates(sentence) and not self.lexicon.names_an_owner(sentence))
                )
                and _fits(joins, sentence)
            ):
                # "我在权衡缓存层：Redis …；Caffeine …": a comparison goes on past its semicolon, and so
                # does a rule ("All request logs are JSON lines on stdout; nothing goes to local files.")
                found[-1] = _joined(joins, sentence, source)
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
                continue
            if (
                found
                and found[-1].kind != "discussion_context"
                # a statement of another kind is its own, unless it only extends ("这条也适用于…")
                and (reading in (None, found[-1].kind, "none") or self.lexicon.is_extension(sentence))
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
            spanned = "" if found else self._correction_span(turn.user_text, sentences[:n], sentence)
            if spanned:
                sentence, source = spanned, [SourceOut(turn_id=turn.id, role="user", quote=spanned)]
            if (
                not found
                and n + 1 < len(sentences)
                and self.lexicon.reads_as_statement(sentence)
                and self._correction_span(turn.user_text, sentences[: n + 1], sentences[n + 1])
            ):
                continue  # "Actually, I know Rust by now. Pitch it higher instead.": the span states it
            if admits(self.lexicon, turn.user_text, sentence, reading) or (
                continues and self.lexicon.passes_gates(sentence)
            ):
                read_kind = reading if reading in STATEMENTS else None
                judged = self._judge(turn, sentence, subject, lambda: [*earlier(), *done, *found], previous, read_kind)
                if judged is None:
                    continue
                kind, unnamed = judged
                same = next(
                    (c for c in reversed(found) if subject and c.subject == subject.key and c.kind == kind), None
                )
                # "stop sending whole files; from now on just send the diff": one statement; a rule of
                # its own on another topic after a rule that retires nothing is another one
                # ("讲算法先给复杂度；给我的脚本一律别用 eval"); a clause naming no owner of its own takes the
                # kind of the one it continues ("we're requiring JSON logs …; plain-text lines won't pass
                # review anymore.")
                if (
                    same is None
                    and joins is not None
                    and joins is found[-1]
                    and self._goes_on(joins, kind, subject, sentence)
                ):
                    same = joins
                if same is None and self._continues(found, kind, subject, sentence):
                    same = found[-1]  # "… all integration tests to Testcontainers. No more shared … for tests."
                if same is not None and _fits(same, sentence):  # one turn, one subject: one statement quoting each
                    merged = _joined(same, sentence, source)
                    found[found.index(same)] = merged
                    clause_of = merged if sentence.endswith((";", "；")) else None
                    continue
                content = sentence
                if unnamed is not None and len(unnamed.sources) < MAX_SOURCES:
                    # "更正一下：是 3 秒。" names nothing of what it corrects: it quotes that statement too,
                    # as its evidence and to be found by its words (Stage 2 looks related items up by every
                    # quote), while its content states only the correction.
                    source = [*(src for src in unnamed.sources if src.role == "user"), *source]
                found.append(
                    CandidateOut(kind=kind, content=content, subject=subject.key if subject else "", sources=source)  # type: ignore[arg-type]
                )
                clause_of = found[-1] if sentence.endswith((";", "；")) else None
            elif discusses(self.lexicon, sentence, reading):
                found.append(
                    CandidateOut(kind="discussion_context", content=sentence, subject="discussion", sources=source)
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
                kind=kind,  # type: ignore[arg-type]
                content=f"{before} {sentence}",
                subject=subject.key if subject else "",
                sources=[SourceOut(turn_id=turn.id, role="user", quote=before), source],
            )
        )

    def _correction_span(self, turn_text: str, before: list[str], sentence: str) -> str:
        """The text from the turn's first sentence through `sentence` when a correction marker spans
        them and no single one of them is a correction ("Actually, … . … instead."), the sentences
        before it formed nothing, and the span passes the gates; else ""."""
        if not before or any(self.lexicon.is_correction(s) for s in (*before, sentence)):
            return ""
        start = turn_text.find(before[0])
        span = turn_text[start : turn_text.find(sentence, start) + len(sentence)]
        if len(span) > MAX_CONTENT_CHARS or not self.lexicon.is_correction(span):
            return ""
        return span if self.lexicon.passes_gates(span) else ""

    def _goes_on(self, statement: CandidateOut, kind: str, subject: Subject | None, sentence: str) -> bool:
        """`sentence`, after the ";" that ended `statement`, is part of it: of the same kind, unless it is
        a rule of its own on another topic; of any kind, when it names no subject and no owner of its
        own ("… from today on; unsigned ones won't get merged anymore.")."""
        if subject is None and not self.lexicon.names_an_owner(sentence):
            return True
        if statement.kind != kind:
            return False
        return (
            not self.lexicon.is_explicit(sentence)
            or self.lexicon.reads_as_statement(statement.content)  # no marker before ";", its marker after
            or self.lexicon.is_switch(sentence)
            or self.lexicon.is_switch(statement.content)
            or self._shares_stem(sentence, statement.content)
        )

    def _continues(self, found: list[CandidateOut], kind: str, subject: Subject | None, sentence: str) -> bool:
        """A statement of the same kind right after another in its turn, with no subject of either,
        naming a thing the other names or completing a correction that only retires, is part of it
        (one rule said in two sentences)."""
        if not found or subject is not None:
            return False
        last = found[-1]
        if last.kind != kind or kind == "discussion_context" or last.subject:
            return False
        # "想了下还是不要逐行了，太吵。以后只在关键地方写注释就行。": a correction that only retires is
        # completed by the rule after it.
        if self.lexicon.is_correction(last.content) and self.lexicon.retires(last.content):
            return True
        return bool(names_in(self.lexicon.anchor_tokens(last.content)) & names_in(self.lexicon.anchor_tokens(sentence)))

    def _gives_reason(self, turn_text: str, sentence: str) -> bool:
        """A sentence explicit only by its revision marker, before the switch that marker carries over
        to ("Change of heart — GitBook's pricing is nuts. Docs go on Read the Docs instead."), gives the
        reason; the switch is the statement."""
        if not self.lexicon.is_correction(sentence) or self.lexicon.explicit_beyond_correction(sentence):
            return False
        if self.lexicon.is_switch(self.lexicon.without_corrections(sentence)):
            return False
        later = split_sentences(turn_text[turn_text.find(sentence) + len(sentence) :])
        return any(self.lexicon.is_switch(s) and self.lexicon.opens_correction(turn_text, s) for s in later)

    def _restates_only_a_value(self, correction: str, statement: CandidateOut) -> bool:
        """Every word of `correction` but its markers and numbers is a word of `statement`, and it
        gives a number: it names nothing of its own but the value."""
        words = stemmed(self.lexicon.anchor_tokens(self.lexicon.without_corrections(correction)))
        named = {w for w in words if not w.isdigit()}
        return len(named) < len(words) and named <= stemmed(self.lexicon.anchor_tokens(statement.content))

    def _shares_stem(self, a: str, b: str) -> bool:
        return bool(stemmed(self.lexicon.anchor_tokens(a)) & stemmed(self.lexicon.anchor_tokens(b)))

    def _extends(self, sentence: str, statement: CandidateOut, before: str) -> bool:
        """`sentence` is part of `statement`: it extends its scope ("That applies to every answer."), or
        it comes right after it, corrects nothing and either points back to it ("Make that a habit.",
        "We're enforcing that starting this sprint.") or states on its words alone, with no marker,
        how the rule goes on ("…; no log files on disk.")."""
        if not self.lexicon.passes_gates(sentence) or not _fits(statement, sentence):
            return False
        if self.lexicon.is_extension(sentence):
            return True
        if not before or statement.sources[-1].quote != before or self.lexicon.is_correction(sentence):
            return False
        return self.lexicon.points_back(sentence) or self.lexicon.reads_as_statement(sentence)

    def _judge(
        self,
        turn: Turn,
        sentence: str,
        subject: Subject | None,
        earlier: Callable[[], list[CandidateOut]],
        previous: Turn | None,
        read_kind: str | None = None,
    ) -> tuple[str, CandidateOut | None] | None:
        """The statement's kind and, for a correction that names nothing of what it corrects, the
        statement it corrects; None when it is no statement after all. A correction ("说错了，是 3 秒，不是
        30 秒。", "Let me restate that: …") corrects the latest earlier preference or decision in view
        that it shares a word with, else one of the turn just before it, and takes its kind when it
        names no subject of its own; a sentence that is explicit only by its correction marker and
        corrects nothing in view ("Scratch that, I was wrong about the stack trace.") is no statement."""
        kind = read_kind or self.lexicon.statement_kind(sentence, subject)
        if self._gives_reason(turn.user_text, sentence):
            return None
        if not (
            self.lexicon.is_correction(sentence)
            or self.lexicon.is_affirmation(sentence)
            or self.lexicon.opens_correction(turn.user_text, sentence)
        ):
            return kind, None
        words = stemmed(self.lexicon.anchor_tokens(sentence))
        statements = [c for c in earlier() if c.kind != "discussion_context"]
        sharing = [c for c in statements if words & stemmed(self.lexicon.anchor_tokens(c.content))]
        # Sharing only the number it retires ("是 50 条，不是 500") names nothing of the topic: the
        # correction quotes the statement it corrects, as when it shares nothing.
        topical = [
            c for c in sharing if {w for w in words if not w.isdigit()} & stemmed(self.lexicon.anchor_tokens(c.content))
        ]
        if topical:  # a subject's kind is its usual one; what the correction corrects knows better
            same = subject is None or topical[-1].subject == subject.key
            # Restating only the new value ("啊不对，我记错了，保留 30 天。" after "日志默认保留 7 天"): the
            # correction quotes the statement it corrects, whose words it leans on.
            restated = self.lexicon.is_correction(sentence) and self._restates_only_a_value(sentence, topical[-1])
            return (topical[-1].kind if same else kind), (topical[-1] if restated else None)
        if sharing and self.lexicon.is_correction(sentence):
            return (kind if subject is not None else sharing[-1].kind), sharing[-1]
        just_before = [c for c in statements if previous is not None and c.sources[-1].turn_id == previous.id]
        if just_before and self.lexicon.is_correction(sentence):
            return (kind if subject is not None else just_before[-1].kind), just_before[-1]
        # Only a correction needs something in view to correct; one that names what it switches
        # ("之前说用 MySQL，现在改成 PostgreSQL。") states the new rule on its own.
        if self.lexicon.explicit_beyond_correction(sentence) or (
            self.lexicon.is_switch(self.lexicon.without_corrections(sentence)) and names_a_thing(sentence)
        ):
            return kind, None
        return None

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
        title, aliases, keywords = self._metadata(content, candidate.kind, subject, chinese=chinese)
        dropped = self.replacement.dropped(candidate.content, content)
        if replaces:  # replacing earlier statements of this batch, it keeps the words they were found by
            old_words = sorted(
                {w for text in replaces for w in self.lexicon.anchor_tokens(text)}, key=self.lexicon.keyword_order
            )
            keywords = _bounded([*self.replacement.topic(old_words, replaces, content, dropped), *keywords])
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
        keywords = _bounded([*topic, *keywords])
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
                and (correction or not _same_turn(earlier, later))
            )
        return replaced

    def _switched_from(self, candidate: Candidate, same_kind: list[RelatedItem]) -> RelatedItem | None:
        """The related memory a switch ("改用 Vue，不用 React 了") replaces: the latest one naming a
        thing (a Latin word of ≥ 3 letters) the new statement names too."""
        if not self._replaces(candidate.content):
            return None
        sharing = [r for r in same_kind if self.replacement.shares_name(said(candidate), r.item.content)]
        return max(sharing, key=lambda r: r.item.memory_id, default=None)

    def _replaces(self, content: str) -> bool:
        return self.lexicon.is_switch(content) or self.lexicon.is_correction(content)

    def _subject(self, candidate: Candidate) -> Subject | None:
        return next((s for s in self.lexicon.subjects if s.key == candidate.subject), None)

    def _metadata(
        self, content: str, kind: MemoryKind, subject: Subject | None, *, chinese: bool
    ) -> tuple[str, list[str], list[str]]:
        label_zh, label_en = _KIND_LABELS[kind]
        words = sorted(self.lexicon.anchor_tokens(content), key=self.lexicon.keyword_order)
        if subject is not None:
            # in the language the user wrote in (`chinese`); the other one stays among the aliases
            title = subject.title_zh if chinese else subject.title_en
            aliases = [subject.title_zh, subject.title_en, subject.key.replace("_", " ")]
            keywords = [*subject.keywords, *words]
        else:
            title = _clip(content, _TITLE_CHARS)
            aliases = [label_zh, label_en]
            keywords = words or [label_en]
        return title, _bounded(aliases), _bounded(keywords)


def _joined(candidate: CandidateOut, sentence: str, source: list[SourceOut]) -> CandidateOut:
    """`candidate` continued by `sentence` of its turn: one statement quoting each."""
    return candidate.model_copy(
        update={"content": f"{candidate.content} {sentence}", "sources": [*candidate.sources, *source]}
    )


def _same_turn(earlier: Candidate, later: Candidate) -> bool:
    return bool({s.turn_id for s in earlier.sources} & {s.turn_id for s in later.sources})


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
