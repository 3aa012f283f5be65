"""Program-side validation of Stage-1 output (M-42, M-46), before anything is written.

Structural checks fail the WHOLE output (`ExtractionRejected`, the job retries): unknown kind,
a source naming a turn or role not in the input, a quote that is not an exact substring of that
turn's RAW text, and length bounds. Semantic gates filter single candidates and never block the
compaction or the other candidates:

* `user_preference` / `project_decision` need a quote from a USER turn of the batch that carries an
  explicit zh/en speech act and anchors the content, in a sentence that is not temporary ("这次",
  "just this once"), not an undecided question, not speculation and not a current code fact — or a
  short confirmation ("同意", "ok let's do that", an assent that repeats only the proposal's own
  words: "Yep, cap it at 100.", or one that only points at an option: "the second one, yes")
  quoted together with the adjacent assistant proposal, which must carry a proposal signal — or be
  what the assent reader itself decides from that reply (an assent to an answer with no signal, a
  reply pointing by number at options listed but not offered, `assent.Reply.reading`) — and, with
  the other sentences quoted from that answer (the items under "建议四条："), anchor the content; a
  quote after a bare correction marker that
  opens its turn ("Scratch that. …", "算了，还是用中文回答我") counts as explicit, and so does an item
  of a list after a line introducing it ("ground rules for this repo:\n- …", `lists.py`), and a correction's
  content may take its subject from the user turn just before it, the statement it corrects;
* a message the user quotes from someone else (`blocks.quoted_rows`: a `>` block that is no slice of
  the assistant's answer before the turn) is material like any paste, unless the candidate is what
  the relay reader decides from the user's assent to it in the same turn (`relays.py`): then its
  sentences and the assent are the evidence;
* evidence already covered by a suppressed (forgotten) candidate — user or assistant — never forms a
  candidate again, and its quotes are cut out of the new compaction;
* `discussion_context` is always non-factual and bound to the batch's thread;
* a retirement candidate (subject `RETIREMENT`: a user sentence taking a standing rule back, never
  stored as a memory) needs no speech act: Stage 2 retires the memory it is about or rejects it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from autopatch_j.memory.assent import AssentReader, closing_question, quotes_sentence
from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.contracts import CandidateOut, ExtractionOutput
from autopatch_j.memory.errors import ExtractionRejected
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.lists import list_siblings, listed
from autopatch_j.memory.options import options_in
from autopatch_j.memory.reader import default_reader_model, statement_readings, states_in_turn
from autopatch_j.memory.records import MemoryKind, Source, SourceRole, Turn
from autopatch_j.memory.relays import RelayReader, in_relayed
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.structure import parse, prose_request
from autopatch_j.memory.value_revisions import terse_value

MAX_COMPACTION_CHARS = 4_000
MAX_CONTENT_CHARS = 2_000
MAX_QUOTE_CHARS = 2_000
MAX_SUBJECT_CHARS = 200
MAX_CANDIDATES = 32
MAX_SOURCES = 8
#: The subject of a candidate that only takes a standing rule back (the offline extractor's retirement
#: pass): Stage 2 retires the memory it is about or rejects it; it never becomes a memory of its own.
RETIREMENT = "retirement"

_SENTENCE_END = re.compile(r"[。！？!?；;\n]|\.(?=\s|$)")


@dataclass(frozen=True, slots=True)
class CandidateDraft:
    """A candidate that passed every check, ready to be stored."""

    kind: MemoryKind
    content: str
    subject: str
    non_factual: bool
    sources: tuple[Source, ...]
    extraction_job_id: int


@dataclass(frozen=True, slots=True)
class Filtered:
    """A candidate dropped by a semantic gate, and why."""

    index: int
    kind: str
    reason: str


@dataclass(frozen=True, slots=True)
class ValidatedExtraction:
    compaction: str
    candidates: tuple[CandidateDraft, ...]
    filtered: tuple[Filtered, ...]


def enclosing_sentence(text: str, quote: str) -> str:
    """The quote widened to the sentence(s) around its first occurrence in `text`."""
    start = text.find(quote)
    if start < 0:
        return quote
    end = start + len(quote)
    left = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        left = match.end()
    # A quote that ends its sentence ("…了，烦。") ends there, not at the end of the next sentence.
    right_match = _SENTENCE_END.search(text, max(end - 1, start))
    right = right_match.end() if right_match else len(text)
    return text[left:right].strip()


def validate_extraction(output: ExtractionOutput, request: ExtractionRequest, lexicon: Lexicon) -> ValidatedExtraction:
    """Structural errors raise `ExtractionRejected`; semantic gates filter single candidates."""
    if len(output.compaction) > MAX_COMPACTION_CHARS:
        raise ExtractionRejected(f"compaction has {len(output.compaction)} chars (limit {MAX_COMPACTION_CHARS})")
    if len(output.candidates) > MAX_CANDIDATES:
        raise ExtractionRejected(f"{len(output.candidates)} candidates (limit {MAX_CANDIDATES})")
    sourced = [(index, raw, _structural(index, raw, request)) for index, raw in enumerate(output.candidates)]
    kept: list[CandidateDraft] = []
    filtered: list[Filtered] = []
    for index, raw, sources in sourced:
        reason = _semantic_reason(raw, sources, request, lexicon)
        if reason is not None:
            filtered.append(Filtered(index=index, kind=raw.kind, reason=reason))
            continue
        kind = MemoryKind(raw.kind)
        kept.append(
            CandidateDraft(
                kind=kind,
                content=raw.content.strip(),
                subject=raw.subject.strip(),
                non_factual=kind is MemoryKind.DISCUSSION_CONTEXT,
                sources=sources,
                extraction_job_id=_owning_job(sources, request),
            )
        )
    return ValidatedExtraction(
        compaction=scrub_forgotten(output.compaction, request.suppressed),
        candidates=tuple(kept),
        filtered=tuple(filtered),
    )


FORGOTTEN_MARK = "…"  # one character: a scrubbed compaction never grows past its bound


def scrub_forgotten(compaction: str, suppressed: tuple[Source, ...]) -> str:
    """The compaction with every quote of a forgotten memory's evidence (visible in this batch) cut out."""
    for quote in sorted({src.quote for src in suppressed if src.quote.strip()}, key=len, reverse=True):
        compaction = compaction.replace(quote, FORGOTTEN_MARK)
    return compaction


def _structural(index: int, raw: CandidateOut, request: ExtractionRequest) -> tuple[Source, ...]:
    where = f"candidate {index}"
    content = raw.content.strip()
    if not content or len(content) > MAX_CONTENT_CHARS:
        raise ExtractionRejected(f"{where}: content must have 1..{MAX_CONTENT_CHARS} chars")
    if len(raw.subject.strip()) > MAX_SUBJECT_CHARS:
        raise ExtractionRejected(f"{where}: subject longer than {MAX_SUBJECT_CHARS} chars")
    if not 1 <= len(raw.sources) <= MAX_SOURCES:
        raise ExtractionRejected(f"{where}: needs 1..{MAX_SOURCES} sources, has {len(raw.sources)}")
    sources: list[Source] = []
    for number, src in enumerate(raw.sources):
        turn = request.turn(src.turn_id)
        if turn is None:
            raise ExtractionRejected(f"{where} source {number}: turn {src.turn_id} is not in the input")
        role = SourceRole(src.role)
        if not src.quote or len(src.quote) > MAX_QUOTE_CHARS:
            raise ExtractionRejected(f"{where} source {number}: quote must have 1..{MAX_QUOTE_CHARS} chars")
        if src.quote not in turn.text_for(role):
            raise ExtractionRejected(
                f"{where} source {number}: the quote is not an exact substring of turn {turn.id}'s {role.value} text"
            )
        sources.append(Source(turn_id=turn.id, role=role, quote=src.quote))
    return tuple(sources)


def _semantic_reason(
    raw: CandidateOut, sources: tuple[Source, ...], request: ExtractionRequest, lexicon: Lexicon
) -> str | None:
    if any(_suppressed(src, request) for src in sources):  # every role: an assistant quote too
        return "its evidence belongs to a forgotten memory"
    relayed = _adopted_relay(sources, request, lexicon)
    if relayed is not None:
        return relayed or None  # "": what the user adopts of a relayed message
    if any(_in_material(src, request) for src in sources):
        return "it quotes pasted material, or the line introducing it, as what the user said"
    if raw.kind == MemoryKind.DISCUSSION_CONTEXT.value:
        return None
    if raw.subject == RETIREMENT and all(src.role is SourceRole.USER for src in sources):
        return None  # a take-back in the user's own words adopts nothing: no speech act to ask of it
    batch = {turn.id: turn for turn in request.turns}
    for src in sources:
        turn = batch.get(src.turn_id)
        if turn is None or src.role is not SourceRole.USER:
            continue
        if _explicit_statement(raw, src, turn, request, lexicon):
            return None
        if _confirmed_proposal(raw, src, turn, sources, request, lexicon):
            return None
        if _ratified_statement(raw, src, turn, sources, lexicon):
            return None
    if _value_revised(raw, sources, request, lexicon):
        return None
    return "no explicit user statement or confirmed proposal supports it"


def _value_revised(
    raw: CandidateOut, sources: tuple[Source, ...], request: ExtractionRequest, lexicon: Lexicon
) -> bool:
    """A terse value change (`value_revisions.py`): the last source is a whole user turn of the batch
    with the shape of one ("ok min 2 then"), and an earlier user source, of an earlier turn in view, is
    an explicit statement — the rule whose value it changes."""
    *earlier, last = sources
    batch = {turn.id: turn for turn in request.turns}
    turn = batch.get(last.turn_id)
    if turn is None or last.role is not SourceRole.USER or last.quote != turn.user_text.strip():
        return False
    if not terse_value(last.quote):
        return False
    for src in earlier:
        rule_turn = request.turn(src.turn_id)
        if rule_turn is None or src.role is not SourceRole.USER or rule_turn.seq >= turn.seq:
            continue
        if _explicit_statement(raw, src, rule_turn, request, lexicon):
            return True
    return False


def _explicit_statement(
    raw: CandidateOut, src: Source, turn: Turn, request: ExtractionRequest, lexicon: Lexicon
) -> bool:
    sentence = enclosing_sentence(turn.user_text, src.quote)
    explicit = (
        (
            lexicon.is_explicit(src.quote)
            or lexicon.opens_correction(turn.user_text, src.quote)
            or lexicon.reads_as_statement(sentence)
        )
        and lexicon.statement_in_turn(turn.user_text, sentence)
    ) or _read_as_statement(src, turn, request, lexicon)
    # an item of "ground rules for this repo:" is stated by the layout; the hard gates still apply
    listed_rule = listed(turn.user_text, src.quote) and lexicon.passes_gates(sentence)
    return (explicit or listed_rule) and (
        lexicon.anchored(raw.content, src.quote)
        or lexicon.anchored(raw.subject, src.quote)
        or _anchored_in_what_it_corrects(raw, sentence, turn, request, lexicon)
    )


def _read_as_statement(src: Source, turn: Turn, request: ExtractionRequest, lexicon: Lexicon) -> bool:
    """The sentence reader reads the quote's sentence, in its turn after the assistant's answer before
    it, as a preference or decision that passes the hard gates (`reader.states_in_turn`). After an
    answer that proposed something the reader knows it (its `proposed` feature): a rule of the user's
    own in reply ("no plugin, every fixture cleans up after itself") is read like any other."""
    previous = request.predecessor(turn)
    before = (previous.assistant_text or "") if previous is not None else ""
    quote = src.quote.strip()
    return states_in_turn(lexicon, turn.user_text, before, quote) or _stated_by_its_list(
        lexicon, turn.user_text, before, quote
    )


def _stated_by_its_list(lexicon: Lexicon, turn_text: str, before: str, quote: str) -> bool:
    """The quote's sentence is an item of a list of the user's own ("1. xtrabackup 全量 每天 03:00" under
    "2. binlog 保留 7 天"), the reader admits it as a statement (its own `threshold`) and it passes the
    hard gates, and another item of the same list is evidence alone (`states_in_turn`): the items of
    one list share their speech act, so the list's evidence counts for each of them."""
    readings = statement_readings(lexicon, turn_text, before)
    held = [(s, p) for s, p, _ in readings if quote in s or s in quote]
    if not held or held[0][1] < default_reader_model().threshold or not lexicon.passes_gates(held[0][0]):
        return False
    siblings = list_siblings(turn_text, turn_text.find(held[0][0]))
    return any(
        evident and s != held[0][0] and any(a <= turn_text.find(s) < b for a, b in siblings)
        for s, _, evident in readings
    )


def _anchored_in_what_it_corrects(
    raw: CandidateOut, sentence: str, turn: Turn, request: ExtractionRequest, lexicon: Lexicon
) -> bool:
    """A correction names only the new value ("说错了，是 3 秒，不是 30 秒"); its content may take the
    subject from the user turn just before it, the statement it corrects ("接口超时：3 秒")."""
    if not lexicon.is_correction(sentence):
        return False
    previous = request.predecessor(turn)
    return previous is not None and lexicon.anchored(raw.content, previous.user_text)


def _confirmed_proposal(
    raw: CandidateOut,
    src: Source,
    turn: Turn,
    sources: tuple[Source, ...],
    request: ExtractionRequest,
    lexicon: Lexicon,
) -> bool:
    sentence = enclosing_sentence(turn.user_text, src.quote)
    previous = request.predecessor(turn)
    if previous is None:
        return False
    # the proposal is every sentence quoted from that answer ("建议四条：" and the items it introduces)
    proposed = " ".join(s.quote for s in sources if s.turn_id == previous.id and s.role is SourceRole.ASSISTANT)
    answer = previous.assistant_text or ""
    asked = closing_question(answer, lexicon)
    reader = AssentReader(lexicon)

    selecting = reader.selecting(sentence, answer)
    options = options_in(answer) if selecting is not None and selecting[1] is not None else ()
    # what the assent reader itself decides from this reply: an assent to an answer with no proposal
    # signal, or one pointing by number at options listed but not offered, as the assent model chooses
    # (read as the extractor reads it: pasted material cut, `structure.prose_request`)
    prose = prose_request(dataclasses.replace(request, turns=(turn,), prior_turn=previous))
    assent = reader.read(prose.turns[0], prose.prior_turn)
    decided = {s.quote.strip() for c in (assent.candidates if assent else ()) for s in c.sources}

    def signalled(quote: str) -> bool:
        at = answer.find(quote)
        return (
            lexicon.has_proposal_signal(quote)
            or any(o.holds(at) for o in options)  # an option the reply selects over (options.py)
            or any(quote.strip() in p for p in lexicon.proposals_in(answer))
            or quotes_sentence(turn.user_text, quote)  # "> use pnpm workspaces — yes, that one"
        )

    def assents(quote: str) -> bool:
        return (
            reader.is_assent(sentence)
            or lexicon.is_echo_confirmation(sentence, quote, turn=answer)
            or _assents_with_content(src.quote, lexicon)
            or reader.pointing(sentence, answer) is not None
            or bool(options)
        )

    def taken_up(quote: str) -> bool:
        # a bare assent to what the question closing the answer offers ("…; add that to every pipeline?" — "yes")
        return quote.strip() == asked and reader.is_assent(sentence)

    return any(
        proposal.turn_id == previous.id
        and proposal.role is SourceRole.ASSISTANT
        and lexicon.anchored(raw.content, proposed)
        and (
            (signalled(proposal.quote) and assents(proposal.quote))
            or taken_up(proposal.quote)
            or proposal.quote.strip() in decided
        )
        for proposal in sources
    )


def _assents_with_content(quote: str, lexicon: Lexicon) -> bool:
    """The quote opens with an assent and goes on with words of its own ("可以，ruff 一家全包", "yes, go with
    poetry, lock file committed"): the user's own decision on the proposal it answers."""
    prefix = AssentReader(lexicon).assent_prefix(quote)
    return bool(prefix) and lexicon.passes_gates(quote) and bool(lexicon.anchor_tokens(quote[len(prefix) :]))


def _ratified_statement(
    raw: CandidateOut, src: Source, turn: Turn, sources: tuple[Source, ...], lexicon: Lexicon
) -> bool:
    """A ratification supports a statement of its kind ("… Team decision.", "…。组里都同意了。": a
    project decision; "… That's how I like it.": a preference) made by the sentence just before it
    in the same turn, when the quote takes in that sentence or another quote of the candidate is that
    sentence, and that sentence passes the gates and anchors the content."""
    sentences = split_sentences(enclosing_sentence(turn.user_text, src.quote))
    if not sentences or lexicon.ratified_kind(sentences[-1]) != raw.kind:
        return False
    if len(sentences) > 1:
        stated = [sentences[-2]]
    else:
        before = turn.user_text[: max(turn.user_text.find(sentences[0]), 0)].rstrip()
        stated = [
            other.quote
            for other in sources
            if other.role is SourceRole.USER
            and other.turn_id == turn.id
            and other.quote.strip()
            and before.endswith(other.quote.strip())
        ]
    return any(lexicon.passes_gates(quote) and lexicon.anchored(raw.content, quote) for quote in stated)


def _in_material(src: Source, request: ExtractionRequest) -> bool:
    """A user quote touching pasted material (a log, a trace, a diff, code …) or the prose line that
    introduces it, with no occurrence wholly in prose (`structure.parse`; a message quoted from
    someone else is judged by `_adopted_relay`)."""
    if src.role is not SourceRole.USER:
        return False
    turn = request.turn(src.turn_id)
    if turn is None:
        return False
    previous = request.predecessor(turn)
    return parse(turn.user_text, (previous.assistant_text or "") if previous is not None else "").covers(src.quote)


def _adopted_relay(sources: tuple[Source, ...], request: ExtractionRequest, lexicon: Lexicon) -> str | None:
    """None when no user quote lies in a message quoted from someone else (`relays.py`); "" when every
    user quote is evidence of the relay reader's own decision on its turn (the message's sentences and
    the user's assent) or of the next turn's adoption of a document's items by number
    (`RelayReader.items`); else the reason the candidate is filtered."""
    for src in sources:
        turn = request.turn(src.turn_id) if src.role is SourceRole.USER else None
        if turn is None:
            continue
        previous = request.predecessor(turn)
        answer = (previous.assistant_text or "") if previous is not None else ""
        if not in_relayed(turn.user_text, answer, src.quote):
            continue
        relays = RelayReader(AssentReader(lexicon))
        prose = prose_request(dataclasses.replace(request, turns=(turn,), prior_turn=previous)).turns[0]
        adopted = relays.read(turn, prose, answer)
        decided = {s.quote.strip() for c in (adopted.candidates if adopted else ()) for s in c.sources}
        users = [s.quote.strip() for s in sources if s.role is SourceRole.USER and s.turn_id == turn.id]
        if users and set(users) <= decided:
            return ""
        # items of a document adopted by number in the next turn (`RelayReader.items`)
        for later in {s.turn_id for s in sources if s.role is SourceRole.USER and s.turn_id != turn.id}:
            following = request.turn(later)
            if following is None or request.predecessor(following) != turn:
                continue
            prose = prose_request(dataclasses.replace(request, turns=(following,), prior_turn=turn)).turns[0]
            adopted = relays.items(following, prose, turn)
            items = {(s.turn_id, s.quote.strip()) for c in (adopted.candidates if adopted else ()) for s in c.sources}
            if {(s.turn_id, s.quote.strip()) for s in sources if s.role is SourceRole.USER} <= items:
                return ""
        return "it quotes someone else's message as what the user said"
    return None


def _suppressed(src: Source, request: ExtractionRequest) -> bool:
    return any(
        old.turn_id == src.turn_id and old.role is src.role and (old.quote in src.quote or src.quote in old.quote)
        for old in request.suppressed
    )


def _owning_job(sources: tuple[Source, ...], request: ExtractionRequest) -> int:
    """The job of the newest batch turn the candidate quotes (else the batch's first job)."""
    seq_of = {turn.id: turn.seq for turn in request.turns}
    quoted = [src.turn_id for src in sources if src.turn_id in seq_of]
    if quoted:
        return request.job_for_turn[max(quoted, key=lambda turn_id: seq_of[turn_id])]
    return request.job_for_turn[request.turns[0].id]
