"""What the offline extractor does with subjects: one statement per rule and turn, a subject for
every memory, the memory a new statement replaces or retires.

The subject model (`subjects.py`) says whether two statements are about one thing; this module
applies it to the offline extractor's candidates and to the related active memories of Stage 2:

- statements of one turn and kind that the joining model (`joining.py`) reads as one are one
  statement quoting each;
- a preference or decision without a subject of the lexicon's table is named by the model;
- a statement never replaces or retires a memory on another subject: when both name subjects of the
  lexicon's table and no subject is named by both ("answer in English when I write in English" and
  "先给结论": answer language and answer order), nothing below is asked (`differ`);
- a new preference or decision replaces the active memory it is most likely about, of either kind,
  or the comparison it settles, when the subject model's probability is above its threshold or the
  revision model (`revisions.py`) reads the statement as revising it ("换 delete+insert。" after "策略
  用 merge" shares no word with it) — an open comparison of the thread the subject model puts above
  its threshold comes before a rule it is likelier about (an option of that comparison stored as a
  rule of its own); a statement that only takes a rule back, when the subject model's
  probability is above its threshold; failing that, an active rule
  naming an alternative of a tool it names (`alternatives.py`: "还是换成 zerolog 吧" after "日志统一用
  zap") — one of its own kind first, then the likeliest, then the latest, so a preference that names
  the old tool in passing is not taken for the decision — in a batch too, an earlier statement of
  another turn;
- failing those, a statement that says little but a value ("make it 45s", "改 1.5s": at most
  TERSE_WORDS words besides its values) revises the latest related rule holding a value of its type with
  another value (`values.py`) — Stage 2 relates the rules changed last for this (`batches.py`); a
  bare count, or a value of a type no rule holds, revises the rule under discussion when it holds a
  count (`value_targets.py`);
- a sentence that only drops a standing rule and was read as no statement — the sentence reader
  read it as a retirement ("emoji 那条算了"), or the lexicon's retiring correction names it ("forget
  the staging-first rule", "别再管那个限制了") — becomes a *retirement* candidate (subject
  `RETIREMENT`): Stage 2 retires the active memory it is about, read in that memory's kind, or
  rejects it — it never becomes a memory of its own;
- a statement that only drops something ("forget the tabs idea", "proxy 不上了": every clause with
  content retires) retires the memory it names and nothing else — a one-off request or a rule on
  another subject is not about it; one that names nothing of its own ("ok scrap that.", "算了，不要了。")
  retires the preference or decision the user stated in the turn right before it, or nothing;
- a new memory is stored under a subject no other active memory holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import replace

from autopatch_j.memory.alternatives import Alternatives, default_alternatives
from autopatch_j.memory.batches import RelatedItem, builds_on, rule_stated_in
from autopatch_j.memory.consolidation import subject_key
from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.joining import JoiningModel, default_joining_model, join_features
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.ordinals import item_label
from autopatch_j.memory.records import Candidate, MemoryKind, SourceRole, Turn
from autopatch_j.memory.revisions import RevisionModel, default_revision_model
from autopatch_j.memory.sentences import clauses, fold, split_sentences
from autopatch_j.memory.subjects import Statement, SubjectModel, statement_of
from autopatch_j.memory.takebacks import (
    beside_statements,
    joined_with_another,
    named_rule,
    named_words,
    names_unstored,
)
from autopatch_j.memory.validation import MAX_CONTENT_CHARS, MAX_SOURCES
from autopatch_j.memory.validation import RETIREMENT as RETIREMENT
from autopatch_j.memory.value_targets import latest_count_rule, names_beyond
from autopatch_j.memory.values import values, words_besides_values

# "so" opening a clause joins it to what came before: a connective, not a word pointing back.
_OPENING_SO = re.compile(r"^\W*(?:and\s+)?so\b\W*", re.IGNORECASE)

#: The most words besides its values a statement that revises a value by the value alone has.
TERSE_WORDS = 3
#: How many texts' table subjects a reader keeps before it forgets them all (a long-lived process).
NAMED_KEPT = 4096


class SubjectReader:
    def __init__(
        self,
        lexicon: Lexicon,
        model: SubjectModel,
        alternatives: Alternatives | None = None,
        joining: JoiningModel | None = None,
        revisions: RevisionModel | None = None,
    ) -> None:
        self.lexicon = lexicon
        self.model = model
        self.joining = joining or default_joining_model()
        self._alternatives = alternatives
        self._revisions = revisions
        self._subjects_named: dict[str, frozenset[str]] = {}

    @property
    def revisions(self) -> RevisionModel:
        """The revision model (the package's unless one was given), read on first use."""
        if self._revisions is None:
            self._revisions = default_revision_model()
        return self._revisions

    @property
    def alternatives(self) -> Alternatives:
        """The table of tools by concept (the package's unless one was given), read on first use."""
        if self._alternatives is None:
            self._alternatives = default_alternatives()
        return self._alternatives

    def statement(self, text: str, kind: str) -> Statement:
        return statement_of(self.lexicon, text, kind)

    # -- Stage 1 ---------------------------------------------------------------------------------

    def one_per_statement(self, candidates: list[CandidateOut], texts: Mapping[int, str]) -> list[CandidateOut]:
        """Statements of one turn and kind that the joining model reads as one are one statement quoting
        each — a rule and its detail or reason ("never unwrap() in firmware code. expect with a
        message, or propagate the error"), the sentences of one comparison (its options, its worries,
        "let me think about it"), which the decision settling it retires whole; two rules side by side
        stay two. `texts`: the user text of each turn, by turn id."""
        merged: list[CandidateOut] = []
        for candidate in candidates:
            last = merged[-1] if merged else None
            if (
                last is not None
                and last.kind == candidate.kind
                and _user_turns(last) == _user_turns(candidate)
                and len(last.sources) + len(candidate.sources) <= MAX_SOURCES
                and len(last.content) + 1 + len(candidate.content) <= MAX_CONTENT_CHARS
                and self._continues(last, candidate, texts)
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

    def _continues(self, last: CandidateOut, candidate: CandidateOut, texts: Mapping[int, str]) -> bool:
        """Whether `candidate` goes on with what `last` says (both of one user turn)."""
        turn = max(_user_turns(candidate))
        earlier = [s.quote for s in last.sources if s.role == "user" and s.turn_id == turn]
        later = [s.quote for s in candidate.sources if s.role == "user" and s.turn_id == turn]
        text = texts.get(turn)
        if not (earlier and later and text):
            return False
        if earlier[-1] == later[0]:
            return False  # one reply selecting two options ("yes both"): a decision per option
        labels = [n for n in (item_label(text, q) for q in earlier) if n]
        if labels and candidate.kind != "discussion_context" and item_label(text, later[0]) not in (0, labels[-1]):
            return False  # "(1) Gradle, yes. (2) JDK 21 everywhere.": replies to two items (options stay one)
        features = join_features(text, earlier[-1], later[0], (last.kind, candidate.kind), self.model, self.lexicon)
        return self.joining.joins(features)

    def retirements(
        self, turns: Sequence[Turn], candidates: list[CandidateOut], read: Set[tuple[int, str]] = frozenset()
    ) -> list[CandidateOut]:
        """`candidates` with a retirement candidate after the statements of its turn for every user
        sentence of `turns` that no candidate quotes (or that is a take-back with a pointer beside the
        statement read in it, `takebacks.beside_statements`), that retires something — it names a rule by its
        words and cancels it ("diff 那个不要了", `takebacks.py`), the sentence reader read it so
        (`read`: (turn id, sentence) pairs; "emoji 那条算了", "forget the bullet points thing") or the
        lexicon's retirement and correction classes meet in it ("forget the staging-first rule",
        "别再管那个限制了") — and names what (a content word), and that passes the gates (no question,
        nothing temporary or hypothetical; a reason given in a clause of its own does not make it a
        description of the code)."""
        extra: dict[int, list[CandidateOut]] = {}
        for turn in turns:
            for sentence in split_sentences(turn.user_text):
                quoting = [c for c in candidates if _quotes_within(c, turn.id, sentence)]
                takes_back = bool(named_words(self.lexicon, sentence))
                if quoting and not (
                    takes_back
                    and beside_statements(sentence, quoting)
                    and named_words(self.lexicon, sentence, pointed=True)
                ):
                    continue
                revokes = (
                    takes_back
                    or self._revokes(sentence)
                    or ((turn.id, sentence) in read and bool(self.lexicon.anchor_tokens(sentence)))
                )
                if not (revokes and self.lexicon.passes_gates(sentence, by_clause=True)):
                    continue
                kind = self.lexicon.statement_kind(sentence, self.lexicon.subject_of(sentence))
                extra.setdefault(turn.id, []).append(
                    CandidateOut(
                        kind=MemoryKind(kind),
                        content=sentence,
                        subject=RETIREMENT,
                        sources=[SourceOut(turn_id=turn.id, role="user", quote=sentence)],
                    )
                )
        if not extra:
            return candidates
        merged: list[CandidateOut] = []
        for turn in turns:
            merged += [c for c in candidates if max(_user_turns(c), default=-1) == turn.id]
            merged += extra.get(turn.id, [])
        placed = {id(c) for c in merged}
        return [*merged, *(c for c in candidates if id(c) not in placed)]

    def named(self, candidate: CandidateOut) -> CandidateOut:
        """A preference or decision without a subject of the lexicon's table gets the model's name."""
        if candidate.subject or candidate.kind == "discussion_context":
            return candidate
        name = self.model.name(_quoted(candidate))
        return candidate.model_copy(update={"subject": name}) if name else candidate

    # -- Stage 2 ---------------------------------------------------------------------------------

    def retires(self, candidate: Candidate) -> bool:
        """The candidate only drops something and adopts nothing: a retirement candidate, or a
        statement every clause of which with content retires ("forget the staging-first rule",
        "别再管那个限制了") or that retires with no switch and no speech act ("算了 proxy 不上了")."""
        if self.takes_back(candidate):
            return True
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return False
        said = _said(candidate)
        # a switch or a new rule in the same words ("Drop that idea: the session store goes in Postgres
        # from now on.", "eh, forget the tabs idea, spaces again") adopts something: it replaces
        return bool(self.lexicon.retires(said)) and not (
            self.lexicon.is_switch(said) or self.lexicon.speech_acts.search(fold(said))
        )

    def takes_back(self, candidate: Candidate) -> bool:
        """The candidate takes an earlier rule back and states nothing of its own: a retirement
        candidate, or a statement every clause of which with content retires something, one by taking
        a rule back ("forget the staging-first rule"; "no more Friday deploys" is a rule of its own).
        With nothing to retire, it is no memory."""
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return False
        return candidate.subject == RETIREMENT or self._only_revokes(_said(candidate))

    def _revokes(self, sentence: str) -> bool:
        """`sentence` takes an earlier rule back and, besides, at most gives a reason ("Actually, scrap
        the separate-MR rule for chart version bumps; it's slowing us down more than it helps.")."""
        named = [sentence[a:b] for a, b in clauses(sentence) if self.lexicon.anchor_tokens(sentence[a:b])]
        back = [c for c in named if self.lexicon.retires(c) and self.lexicon.is_correction(c)]
        return bool(back) and all(c in back or self.lexicon.is_aside(c) for c in named)

    def _only_revokes(self, text: str) -> bool:
        """Every clause of `text` that names something retires it, and one takes a rule back."""
        named = [
            sentence[start:end]
            for sentence in split_sentences(text)
            for start, end in clauses(sentence)
            if self.lexicon.anchor_tokens(sentence[start:end])
        ]
        return (
            bool(named)
            and all(self.lexicon.retires(clause) for clause in named)
            and any(self.lexicon.is_correction(clause) for clause in named)
        )

    def retired_in_batch(self, candidates: Sequence[Candidate]) -> dict[int, int]:
        """Candidate id → id of a later candidate of the batch (another turn) that ends it: the earlier
        candidate the later one is likeliest about, when it is about it (`_is_about`: a retirement
        candidate about a preference or decision, a preference or decision revising one or settling a
        discussion — the comparison is over; the decision supersedes what is stored of it), and any
        earlier preference or decision naming a tool of which the later one names an alternative."""
        retired: dict[int, int] = {}
        for n, later in enumerate(candidates):
            if later.kind is MemoryKind.DISCUSSION_CONTEXT:
                continue
            retiring = later.subject == RETIREMENT
            new = self._new(later)
            open_ = [
                earlier
                for earlier in candidates[:n]
                if earlier.subject != RETIREMENT
                and (earlier.kind is MemoryKind.DISCUSSION_CONTEXT) is not retiring
                and earlier.id not in retired
                and not ({s.turn_id for s in earlier.sources} & {s.turn_id for s in later.sources})
            ]
            if retiring:
                named = named_rule(self.lexicon, _said(later), open_, lambda e: f"{_said(e)} {e.content}")
                if named is not None:
                    retired[named.id] = later.id
                    continue
            olds = {e.id: self.statement(_said(e), e.kind.value) for e in open_}
            likelihood = {e.id: self.model.same_subject(new(e.kind), olds[e.id]) for e in open_}
            likeliest = max(open_, key=lambda e: (likelihood[e.id], e.id), default=None)
            if likeliest is not None and self._is_about(
                later,
                new(likeliest.kind),
                olds[likeliest.id],
                likelihood[likeliest.id],
                on_top=builds_on(later, likeliest.sources),
            ):
                retired[likeliest.id] = later.id
            retired.update(
                (earlier.id, later.id)
                for earlier in open_
                if earlier.id not in retired
                and self._switches_tool(later, earlier.kind, f"{_said(earlier)} {earlier.content}")
            )
        return retired

    def _is_about(self, candidate: Candidate, new: Statement, old: Statement, same: float, *, on_top: bool) -> bool:
        """Whether `candidate` (read as `new`) is about the memory `old` it is likeliest about (`same`:
        the subject model's probability): never when the two name different subjects (`differ`),
        whatever either model reads; for a statement that only takes a rule back, the subject model
        above its threshold; for one stating something, that or the revision model — the revision
        model alone when the candidate takes up what the answer to `old`'s own turn offered on top of
        it (`on_top`: `batches.builds_on`)."""
        if self.differ(new.text, old.text):
            return False
        if self.takes_back(candidate):
            return same >= self.model.threshold
        if on_top:
            return self.revisions.revises(new, old, same)
        return same >= self.model.threshold or self.revisions.revises(new, old, same)

    def differ(self, new: str, old: str) -> bool:
        """`new` and `old` are on different subjects by the lexicon's subject table: each names at least
        one of its subjects and none is named by both. Two preferences about answers — their language
        and their order — are two subjects; a text naming none of the table's subjects differs from
        nothing (the models decide)."""
        mine, theirs = self._named(new), self._named(old)
        return bool(mine) and bool(theirs) and not (mine & theirs)

    def _named(self, text: str) -> frozenset[str]:
        """The keys of the lexicon's subjects `text` names (kept per text: a memory is compared with
        every candidate of a batch)."""
        named = self._subjects_named.get(text)
        if named is None:
            if len(self._subjects_named) >= NAMED_KEPT:
                self._subjects_named.clear()
            folded = fold(text)
            named = self._subjects_named[text] = frozenset(
                s.key for s in self.lexicon.subjects if s.pattern.search(folded)
            )
        return named

    def _switches_tool(self, candidate: Candidate, old_kind: MemoryKind, old_text: str) -> bool:
        """`candidate` adopts an alternative of a tool a rule (`old_kind`, `old_text`: its quotes and
        content — a tool either names is the rule's) names: both are preferences or decisions on one
        subject (`differ`) and the candidate states something of its own."""
        return (
            old_kind is not MemoryKind.DISCUSSION_CONTEXT
            and candidate.kind is not MemoryKind.DISCUSSION_CONTEXT
            and not self.takes_back(candidate)
            and bool(self.alternatives.replaced_concept(_said(candidate), old_text))
            and not self.differ(_said(candidate), old_text)
        )

    def target(self, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int]) -> RelatedItem | None:
        """The active memory a new preference or decision is about: for a take-back naming a rule by
        its words ("X 那条取消"), the rule holding them (`takebacks.named_rule`), or nothing when an
        operation of the batch took that rule already or the rule was stored joined with another
        (`takebacks.joined_with_another`); else the likeliest, of either kind, or
        the comparison it settles, when it is about it (`_is_about`); failing that, a rule naming a
        tool it replaces, a rule stored under the subject a revision's words vote for, a value it
        revises. Nothing for a statement that also takes back a rule by words no rule holds
        (`takebacks.names_unstored`)."""
        if candidate.kind is MemoryKind.DISCUSSION_CONTEXT:
            return None
        rules = sorted(
            (r for r in related if r.item.kind is not MemoryKind.DISCUSSION_CONTEXT), key=lambda r: r.item.memory_id
        )
        if self.takes_back(candidate):
            named = named_rule(self.lexicon, _said(candidate), rules, _rule_text)
            if named is not None:  # taken: a statement of the batch revised it already ("X 那条去掉 Y 还是要")
                joined = joined_with_another(self.lexicon, _said(candidate), [s.quote for s in named.sources])
                return None if named.item.memory_id in taken or joined else named
        elif names_unstored(self.lexicon, _said(candidate), rules, _rule_text):
            return None  # "之前說 X 的那條也取消 讓 group 自己決定": X was never stored
        new = self.statement(_said(candidate), candidate.kind.value)
        read_as = self._new(candidate)
        likelihood: dict[int, float] = {}
        olds: dict[int, Statement] = {}
        for r in related:
            if r.item.memory_id in taken:
                continue
            old = olds[r.item.memory_id] = Statement(
                " ".join(s.quote for s in r.sources) or r.item.content, r.item.kind.value
            )
            likelihood[r.item.memory_id] = self.model.same_subject(read_as(r.item.kind), old)
        likeliest = max(
            (r for r in related if r.item.memory_id in likelihood),
            key=lambda r: (likelihood[r.item.memory_id], r.item.memory_id),
            default=None,
        )
        found = None
        if likeliest is not None:
            mid = likeliest.item.memory_id
            on_top = builds_on(candidate, likeliest.sources)
            if self._is_about(candidate, read_as(likeliest.item.kind), olds[mid], likelihood[mid], on_top=on_top):
                found = likeliest
            if likeliest.item.kind is not MemoryKind.DISCUSSION_CONTEXT and not self.takes_back(candidate):
                found = self._settled(new, related, likelihood, olds) or found
        if found is None:
            # Of the rules naming a tool it replaces: one of its kind first, then the likeliest, then the latest.
            found = max(
                (
                    r
                    for r in related
                    if r.item.memory_id not in taken
                    and self._switches_tool(
                        candidate, r.item.kind, " ".join([*(s.quote for s in r.sources), r.item.content])
                    )
                ),
                key=lambda r: (r.item.kind is candidate.kind, likelihood[r.item.memory_id], r.item.memory_id),
                default=None,
            )
        if found is None and self.takes_back(candidate):
            found = self._just_said(candidate, related, taken)
        if found is None and (new.switch or new.correction):
            # A revision whose words vote for the subject an active rule is stored under ("换 slim
            # 吧，…" after "基础镜像统一用 node:20-alpine": docker base image) is about that rule.
            name = subject_key(self.model.voted(_said(candidate)))
            found = max(
                (
                    r
                    for r in related
                    if name
                    and r.item.memory_id not in taken
                    and r.item.kind is not MemoryKind.DISCUSSION_CONTEXT
                    and subject_key(r.subjects[0] if r.subjects else "") == name
                    and not self.differ(_said(candidate), _stored(r))
                ),
                key=lambda r: r.item.memory_id,
                default=None,
            )
        return found or self._value_revised(candidate, related, taken)

    def _settled(
        self,
        new: Statement,
        related: tuple[RelatedItem, ...],
        likelihood: Mapping[int, float],
        olds: Mapping[int, Statement],
    ) -> RelatedItem | None:
        """The open comparison a new preference or decision settles, before any rule it may also be
        about: the likeliest discussion the subject model puts above its threshold, on no other subject
        (`differ`). An option or a worry of the comparison stored as a rule of its own is often likelier
        than the comparison ("Secrets Store CSI driver with Key Vault" before "keep both options open");
        the comparison ends when a decision is taken, and one operation has one target."""
        return max(
            (
                r
                for r in related
                if r.item.memory_id in likelihood
                and r.item.kind is MemoryKind.DISCUSSION_CONTEXT
                and likelihood[r.item.memory_id] >= self.model.threshold
                and not self.differ(new.text, olds[r.item.memory_id].text)
            ),
            key=lambda r: (likelihood[r.item.memory_id], r.item.memory_id),
            default=None,
        )

    def _just_said(self, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int]) -> RelatedItem | None:
        """What a retirement that names nothing of its own takes back ("ok scrap that.", "算了，不要了。",
        "never mind that one": only retiring and correcting words, or a word pointing back): the
        preference or decision the user stated in the turn right before it — the latest of them when
        that turn stated several. A retirement naming something is left to the subject model, and so is
        one whose retiring clause names a rule while a pointer sits in another clause ("forget the
        offline-error drop rule, send them all")."""
        said = _said(candidate)
        retiring = [said[a:b] for a, b in clauses(said) if self.lexicon.retires(said[a:b])]
        if not (self._names_nothing(said) and all(self._names_nothing(c) for c in retiring)):
            return None
        turns = [s.turn_id for s in candidate.sources if s.role is SourceRole.USER]
        if not turns:
            return None
        return rule_stated_in(related, taken, min(turns) - 1)

    def _names_nothing(self, text: str) -> bool:
        """`text` points back ("scrap that") or names nothing besides its retiring and correcting words;
        a "so" opening it is a connective ("so forget the X rule"), no pointer."""
        text = _OPENING_SO.sub("", text, count=1)
        return self.lexicon.points_back(text) or not self.lexicon.anchor_tokens(self._markers_blanked(text))

    def _markers_blanked(self, text: str) -> str:
        """`text` folded, its correction, affirmation and retirement markers blanked: the words it names."""
        return self.lexicon.retirements.blank(self.lexicon.without_corrections(text))

    def _value_revised(
        self, candidate: Candidate, related: tuple[RelatedItem, ...], taken: set[int]
    ) -> RelatedItem | None:
        """A statement that says little but a value ("make it 45s", "改 1.5s", "20.11 everywhere": at
        most TERSE_WORDS words besides its values) revises the latest preference or decision holding a
        value of that type with another value (`values.py`; a bare number, which may be a count or an
        id, is not such a value) — unless it names a thing the rule does not; a bare count, or a value
        of a type no rule holds, revises the rule under discussion holding a count
        (`value_targets.latest_count_rule`)."""
        said = _said(candidate)
        mine = {value for value in values(said) if value[0] != "number"}  # a bare number may be a count or an id
        if self.takes_back(candidate):
            return None

        def by_count() -> RelatedItem | None:
            return latest_count_rule(
                candidate, said, related, taken, stored=_stored, names_beyond=names_beyond, differ=self.differ
            )

        if not mine or words_besides_values(said) > TERSE_WORDS:
            return by_count()  # a bare count: only the subject under discussion
        types = {kind for kind, _ in mine}

        def revised(r: RelatedItem) -> bool:
            old = _stored(r)
            theirs = values(old)
            return (
                any(kind in types for kind, _ in theirs)
                and not mine <= theirs
                and not names_beyond(said, old)  # "for ga4 only — 30 and 48 hours" is another rule's
                and not self.differ(said, old)
            )

        typed = max(
            (
                r
                for r in related
                if r.item.memory_id not in taken and r.item.kind is not MemoryKind.DISCUSSION_CONTEXT and revised(r)
            ),
            key=lambda r: r.item.memory_id,
            default=None,
        )
        return typed or by_count()  # a value of a type no rule holds

    def _new(self, candidate: Candidate) -> Callable[[MemoryKind], Statement]:
        """`candidate` as the new side of a pair, given the old side's kind. A candidate that only
        takes a rule back states no kind of its own ("forget the staging-first rule" is neither a
        preference nor a decision): it is read in the kind of the rule it may retire, and as the
        lexicon's retiring correction is read whether or not those word classes name its words ("the
        emoji thing, forget it", read so by the sentence reader)."""
        statement = self.statement(_said(candidate), candidate.kind.value)
        if not self.takes_back(candidate):
            return lambda _kind: statement
        back = replace(statement, retirement=True, correction=True)
        return lambda kind: replace(back, kind=kind.value)

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


def _rule_text(related: RelatedItem) -> str:
    """What a related rule's user said and its content: the words a take-back names it by."""
    return f"{_stored(related)} {related.item.content}"


def _stored(related: RelatedItem) -> str:
    """What a related memory's user said (its quotes), else its content."""
    return " ".join(s.quote for s in related.sources) or related.item.content


def _quotes_within(candidate: CandidateOut, turn_id: int, sentence: str) -> bool:
    """`candidate` quotes the user's `sentence` of turn `turn_id`, or part of it."""
    return any(
        s.role == "user" and s.turn_id == turn_id and (sentence in s.quote or s.quote in sentence)
        for s in candidate.sources
    )


def _said(candidate: Candidate) -> str:
    return " ".join(s.quote for s in candidate.sources) or candidate.content


def _quoted(candidate: CandidateOut) -> str:
    return " ".join(s.quote for s in candidate.sources)


def _user_turns(candidate: CandidateOut) -> set[int]:
    return {s.turn_id for s in candidate.sources if s.role == "user"}
