"""The offline `RulesExtractor`: both stages deterministically, from the lexicon and small trained models.

Stage 1 (`extract`): pasted material is dropped (`structure.py`); a user turn that is only a short
confirmation — or an assent repeating the proposal's own words ("Yep, cap it at 100.") — right after
an assistant answer with a proposal sentence becomes a `project_decision` quoting both (a
`user_preference` when the assistant promised standing conduct, `Lexicon.proposal_kind`;
`assent.py`); an assent to a message quoted from someone else in the turn adopts that message,
and a sentence pointing by number at items of a document pasted the turn before adopts those items
(`relays.py`); the rest of each turn is read sentence by sentence (`statements.py`, with
`corrections.py` for what a correction corrects): the sentence reader (`reader.py`) reads each prose
sentence when `read_with_model` (default `READER_PRIMARY`), else the lexicon's markers decide, and
kinds follow the lexicon's kind rule (`Lexicon.kind_hint`, docs/pipeline.md). Each item of a list is
read on its own and the line introducing the list is none (`lists.py`); statements of one turn that
the joining model reads as one are one (`joining.py`, `supersede.py`), and a sentence that only
drops a standing rule becomes a retirement candidate; a turn that reads as no statement but
gives only a new value for the rule just set is that rule with the new value
(`value_revisions.py`); a discussion putting a choice off quotes the question that asked it the
turn before, and one weighing the answer's options by their labels quotes those options
(`comparisons.py`). The compaction is a bounded rolling digest of
the turns (`compaction.py`).

Stage 2 (`consolidate`): the operation each candidate becomes — reject, create, supersede, revise or
retire — is `operations.py`'s, with titles, aliases and keywords from `metadata.py`.
"""

from __future__ import annotations

import dataclasses
import functools

from autopatch_j.memory.assent import AssentReader
from autopatch_j.memory.batches import ConsolidationRequest, ExtractionRequest
from autopatch_j.memory.compaction import compaction
from autopatch_j.memory.comparisons import with_options, with_questions
from autopatch_j.memory.contracts import CandidateOut, ConsolidationOutput, ExtractionOutput
from autopatch_j.memory.joining import JoiningModel
from autopatch_j.memory.lexicon import Lexicon, default_lexicon
from autopatch_j.memory.lists import one_per_item
from autopatch_j.memory.operations import OperationRules
from autopatch_j.memory.options import weighed_in
from autopatch_j.memory.presentation import default_presentation
from autopatch_j.memory.reader import KINDS, STATEMENTS, ReaderModel, Reading, default_reader_model, turn_features
from autopatch_j.memory.reader import RETIREMENT as RETIREMENT_READ
from autopatch_j.memory.records import Turn
from autopatch_j.memory.relays import RelayReader
from autopatch_j.memory.replacement import Replacement
from autopatch_j.memory.statements import StatementReader
from autopatch_j.memory.structure import prose_request, quotes_raw
from autopatch_j.memory.subjects import SubjectModel, default_subject_model
from autopatch_j.memory.supersede import SubjectReader
from autopatch_j.memory.validation import MAX_CANDIDATES, MAX_CONTENT_CHARS, MAX_SOURCES
from autopatch_j.memory.value_revisions import value_revision

#: Whether a `RulesExtractor` reads sentences with the trained reader unless told otherwise (the
#: lexicon-first reading is kept for comparison runs).
READER_PRIMARY = True
DISCUSSION_READ = KINDS[2]


class RulesExtractor:
    """The `Extractor` that needs no model server: Stage 1 and Stage 2 by the rules of the modules it
    wires together."""

    name = "rules"

    def __init__(
        self,
        *,
        lexicon: Lexicon | None = None,
        subjects: SubjectModel | None = None,
        reader: ReaderModel | None = None,
        read_with_model: bool | None = None,
        joining: JoiningModel | None = None,
    ) -> None:
        self.lexicon = lexicon or default_lexicon()
        # With `read_with_model` the sentence reader (`reader.py`) decides what each prose sentence is;
        # without it the lexicon's markers and the binary speech model do. Default: READER_PRIMARY.
        self._reader = reader
        self.read_with_model = READER_PRIMARY if read_with_model is None else read_with_model
        self.replacement = Replacement(self.lexicon)
        self.subjects = SubjectReader(self.lexicon, subjects or default_subject_model(), joining=joining)
        self.assent = AssentReader(self.lexicon)
        self.relays = RelayReader(self.assent, reader)
        self.presentation = default_presentation()
        self.statements = StatementReader(self.lexicon)
        self.operations = OperationRules(
            self.lexicon, replacement=self.replacement, subjects=self.subjects, presentation=self.presentation
        )

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
            lambda: self.statements.read(prior, list, None, self._readings(raw, prior)) if prior else []
        )
        for turn in request.turns:
            previous = request.predecessor(turn)
            # prose after a message quoted from someone else answers that message, not the assistant
            original = raw.turn(turn.id) or turn
            before = raw.predecessor(original)
            readings = self._readings(raw, turn)
            # a reply weighing the options it answers ("… vs. tolerant CSV, still open") selects none,
            # and so does one putting the decision off ("嗯，先放着，下周和 DBA 开会再说。") or, pointing at
            # no option, asking for one act now ("好，先在 feature/x 分支上跑一次看看。")
            weighing = [s for s, reading in (readings or {}).items() if reading.label == DISCUSSION_READ]
            deferring = [s for s, reading in (readings or {}).items() if reading.deferred]
            acting = [s for s, reading in (readings or {}).items() if reading.once]
            assent = self.relays.read(original, turn, (before.assistant_text or "") if before else "")
            assent = assent or self.relays.items(original, turn, before)  # items of a document pasted before
            assent = assent or self.assent.read(turn, previous, weighing=weighing, deferring=deferring, acting=acting)
            rest: Turn | None = turn
            if assent is not None:  # what an assent decides; the rest of its turn is read as any other
                candidates.extend(assent.candidates)
                rest = assent.rest
            if rest is not None:
                retiring.update(
                    (rest.id, s) for s, reading in (readings or {}).items() if reading.label == RETIREMENT_READ
                )
                read = self.statements.read(rest, lambda: [*prior_statements(), *candidates], previous, readings)
                if assent is None and rest.id not in {t for t, _ in retiring} and self._unsure(read, readings):
                    # a turn giving only a new value for the rule just set ("ok min 2 then"), read as no
                    # statement or unsurely as itself: the rule with the new value
                    revision = value_revision(rest, previous, lambda: [*prior_statements(), *candidates])
                    read = [revision] if revision is not None else read
                candidates.extend(read)
        named = [self.subjects.named(c) for c in candidates if quotes_raw(c.sources, raw)]
        texts = {turn.id: turn.user_text for turn in raw.visible_turns}
        candidates = one_per_item(
            named, raw, lambda run: self.subjects.one_per_statement(run, texts), bounds=(MAX_SOURCES, MAX_CONTENT_CHARS)
        )
        # a deferral ("let me think", "两个先都留着") quotes the comparison asked the turn before it
        candidates = with_questions(candidates, request, self.lexicon, lambda t, s: self._read_as_memory(raw, t, s))
        # a comparison weighing the answer's options by label ("1 vs 3 …") quotes the options it names
        candidates = with_options(candidates, request)
        # A sentence that only drops a standing rule is no statement; Stage 2 retires what it is about.
        candidates = [
            c for c in self.subjects.retirements(request.turns, candidates, retiring) if quotes_raw(c.sources, raw)
        ]
        # More than one output may hold would be rejected whole and retried forever: keep the latest.
        return ExtractionOutput(compaction=compaction(raw), candidates=candidates[-MAX_CANDIDATES:])

    def _read_as_memory(self, raw: ExtractionRequest, turn: Turn, sentence: str) -> bool:
        """The sentence reader reads `sentence` of `turn` as a memory of its own (a preference, a decision
        or a discussion); False when the lexicon reads the turns."""
        reading = (self._readings(raw, turn) or {}).get(sentence)
        return reading is not None and reading.label in KINDS

    def _unsure(self, read: list[CandidateOut], readings: dict[str, Reading] | None) -> bool:
        """Whether a turn's statements leave room for a terse value change: none, or one the reader
        read unsurely that is no correction (a correction stating its value is read as one,
        `corrections.py`)."""
        if not read:
            return True
        if len(read) > 1 or self.lexicon.is_correction(read[0].content):
            return False
        quotes = {s.quote for s in read[0].sources}
        return all(not r.sure for sentence, r in (readings or {}).items() if sentence in quotes)

    def _readings(self, raw: ExtractionRequest, turn: Turn) -> dict[str, Reading] | None:
        """What the reader makes of each prose sentence of `turn`, by sentence (read in its whole RAW
        turn, so a part of the turn handed to `StatementReader.read` finds its sentences); None: the lexicon
        reads them. A sentence inside an option of a list the turn introduces as options
        (`options.weighed_in`: "two options I can think of:") is an alternative the user weighs: read as
        a statement, it is discussion context instead."""
        if not self.read_with_model:
            return None
        model = self._reader or default_reader_model()
        original = raw.turn(turn.id) or turn
        before = raw.predecessor(original)
        pairs = turn_features(original.user_text, (before.assistant_text or "") if before else "", self.lexicon)
        weighed = weighed_in(original.user_text)
        readings: dict[str, Reading] = {}
        for sentence, feats in pairs:
            reading = model.reading(feats)
            at = original.user_text.find(sentence)
            if reading.label in STATEMENTS and at >= 0 and any(o.holds(at) for o in weighed):
                reading = dataclasses.replace(reading, label=DISCUSSION_READ, sure=False)
            readings.setdefault(sentence, reading)
        return readings

    # -- Stage 2 ---------------------------------------------------------------------------------

    def consolidate(self, request: ConsolidationRequest) -> ConsolidationOutput:
        return self.operations.consolidate(request)
