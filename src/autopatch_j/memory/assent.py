"""What an assent to an assistant proposal decides (the offline extractor's assent path).

The assistant answer just before a user turn proposes something (`Lexicon.proposals_in`), or closes
with a question of its own (`closing_question`: only a bare assent takes that up); the user turn may
assent to it:

- a **bare assent** ("sure, go ahead", "可以", "yep that one", an assent repeating only the
  proposal's words: "Yep, cap it at 100.", or the yes half of the A-not-A question the proposal asks:
  "要 加" to "要不要在 workflow 加一個 guard？") — the whole turn, or its first sentence when the turn
  goes on with statements of its own ("ok do it. and no pkg/errors ever again"; not with questions
  only: "ok. what does this do?" acknowledges) — decides the proposal: the memory quotes the
  proposal sentence(s) that *name* what is chosen and the assent;
- an **assent with its own content** ("yes, go with poetry, lock file committed", "可以，ruff 一家全包，
  black/isort/flake8 都删") is the user's own decision: its content is the user's sentence without
  the assent word, quoting the proposal it answers and the user's sentence;
- an **assent by pointing** ("the second one, yes", "tag 和 diskSelector 那个同意"): the first clause
  ends with an assent and its other words only point — an ordinal or option, or words all of which
  the answer says — and decides the option they point at, as a bare assent does;
- an **assent by quoting** ("> use pnpm workspaces — yes, that one"): the quoted line names the
  proposal sentence chosen, whatever else the answer proposed.

Informal assent words ("ja", "k", "yup", "好嘞"; `assent_words.json`) count as "ok" (`is_assent`). An
answer with no proposal signal, no closing question and no options offered is still read
(`Reply.reading` "unsignalled": "ja tests included" after "I'd include them: …"): the assent model
decides alone, its floor applying to an assent with content too, and an assent followed only by
questions acknowledges. Over options an answer lists without offering them (a numbered list closed by
an offer to act), a reply that only points ("1 and 2.") selects (`Reply.reading` "unoffered") when
the likeliest option it points at reaches the floor. A reply with no content of its own, singling out
no option (by ordinal, name or exception), that goes on to weigh the options it answers — a sentence
of its turn the sentence reader reads as discussion, naming words of the options ("Both have
something. … Roo vs. tolerant CSV, still open.") — selects none, and its turn is read as any other; so
does a reply whose assenting sentence the sentence reader reads as putting the decision off
(`reader.Reading.deferred`: "嗯，先放着，下周和 DBA 开会再说。"), and one, selecting or pointing at no
option, that the reader reads as asking for one act now (`reader.Reading.once`: "好，先在 feature/x 分支上
跑一次看看。").
The sub-points nested under an option (its pros, cons, caveats; `options.Option.in_head`) are never
chosen: only an option's head can be decided.

Which sentences of the answer name the choice: the one quoted; else what the assent model reads
(`assent_choice.py`, learned from the realistic sessions' gold): every sentence of the answer is a
candidate — the suggestion, not the rationale after it, the framing before it, a question back or
the line introducing its code; the option the reply points at or shares words with — and a bare
assent to an answer that offered no standing choice ("Want me to re-run the pipeline now?") chooses
nothing. A choice with no proposal signal of its own (an item under "建议两条：") quotes the proposal
sentence before it too. The rest of the turn is read for statements as any other turn.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.assent_choice import (
    AssentModel,
    AssentReading,
    Candidate,
    candidates,
    choice_features,
    default_assent_model,
)
from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.interrogatives import default_interrogatives
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.options import Selection, as_assent, offered_by, only_points, options_in, read_selection
from autopatch_j.memory.ordinals import reply_pointers
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.replacement import names_in, stemmed
from autopatch_j.memory.sentences import CJK_RUN, fold, split_sentences
from autopatch_j.memory.structure import parse

_QUOTE_LINE = re.compile(r"^[ \t]*>[ \t]?(.*)$", re.MULTILINE)
# Where an assent word may end: a word boundary of a leading run of words.
_WORD_END = re.compile(r"[\s,，。.!！:：;；—-]+")
_ASSENT_WORDS = 4
_CLAUSE_END = re.compile(r"[，;；]")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MIN_QUOTED = 6
# At most this many characters after the "yes" half of an A-not-A question ("要 开下去")
_YES_HALF_TAIL = 4
# A label opening a sentence before its colon ("结论：", "Summary:"): it frames what follows.
_LEAD_LABEL = re.compile(r"^\s*[^\s:：]{1,12}[:：]\s*(?=\S)")
_TRIM = " \t\n,，。.!！:：;；—-"


@dataclass(frozen=True, slots=True)
class Assent:
    """What an assenting turn decides — one candidate per option it selects — and the turn's text left
    to read for statements (None: none)."""

    candidates: tuple[CandidateOut, ...]
    rest: Turn | None


@dataclass(frozen=True, slots=True)
class Reply:
    """How a turn assents, before what it chooses: the turn (quoted lines blanked), the answer's
    proposals, the sentences it quotes, the words that choose, the user quote, the user's own content
    (None: a bare assent), the turn's text left to read for statements and how it was read
    (`reading`: "" — an assent to a signalled proposal, the answer's closing question or options it
    offers; "unsignalled" — to an answer with none of those; "unoffered" — a reply pointing by number or
    letter at options the answer lists but does not offer as a choice), and whether it selects or points
    at an option (`points`: "第二個", "the second one, yes")."""

    turn: Turn
    proposals: list[str]
    quoted: list[str]
    words: str
    quote: str
    own: str | None
    rest: Turn | None
    reading: AssentReading = ""
    points: bool = False


@dataclass(frozen=True, slots=True)
class AssentReader:
    lexicon: Lexicon
    model: AssentModel | None = None  # None: the shipped one

    def read(
        self,
        turn: Turn,
        previous: Turn | None,
        *,
        weighing: Sequence[str] = (),
        deferring: Sequence[str] = (),
        acting: Sequence[str] = (),
    ) -> Assent | None:
        """The decisions `turn` makes by assenting to a proposal of `previous`'s answer, if any.
        `weighing`: the sentences of the turn the sentence reader reads as discussion; a reply without
        content of its own to an answer listing options, singling out none of them, that goes on to weigh
        them (a sentence of `weighing` naming words of the options: "Roo vs. tolerant CSV, still
        open"), selects none. `deferring`: the sentences the reader reads as putting the decision off
        (`Reading.deferred`); a reply whose assenting sentence is one of them ("嗯，先放着，下周和 DBA
        开会再说。", "ok, let's table this until Monday") decides nothing. `acting`: the sentences the
        reader reads as asking for one act now (`Reading.once`); a reply whose assenting sentence is one
        of them ("好，先在 feature/x 分支上跑一次看看。", "yeah generate them." after "Want me to generate
        the commands for those 9?") takes up an act, not a standing proposal, and decides nothing — unless
        it selects or points at an option (`Reply.points`: "第二個" reads like a one-off edit of an item
        and still selects)."""
        reply = self.reply(turn, previous)
        if reply is None or previous is None:
            return None
        if any(_holds(reply.quote, s) for s in deferring):
            return None  # its turn is read as any other: a deferral states nothing
        if not reply.points and any(_holds(reply.quote, s) for s in acting):
            return None  # its turn is read as any other: a request for one act now states nothing
        answer = previous.assistant_text or ""
        if reply.own is None and not reply.quoted and self._weighs(answer, reply, weighing):
            return None  # its turn is read as any other: the weighing is the discussion to keep
        chosen = reply.quoted or self.chosen(answer, reply.words, bare=reply.own is None, reading=reply.reading)
        if not chosen:
            return None  # the answer offered nothing a bare assent could choose (an action, a question)
        if reply.own is None:
            decisions = [
                self._decision(
                    previous,
                    self._with_proposal(answer, reply.proposals, [*beside, *own]),
                    reply.turn,
                    reply.quote,
                    " ".join(own),
                )
                for beside, own in _per_option(answer, chosen)
            ]
            return Assent(tuple(decisions), reply.rest)
        quotes = self._with_proposal(answer, reply.proposals, chosen)
        if not reply.quoted and not stemmed(self.lexicon.anchor_tokens(reply.own)) & stemmed(
            self.lexicon.anchor_tokens(" ".join(chosen))
        ):
            return None  # "ok. what about the cache?": the content answers nothing the proposal said
        return Assent((self._decision(previous, quotes, reply.turn, reply.quote, reply.own),), reply.rest)

    def reply(self, turn: Turn, previous: Turn | None) -> Reply | None:
        """How `turn` assents to a proposal of `previous`'s answer, before choosing what it chooses."""
        if previous is None or not previous.assistant_text:
            return None
        proposals = self.lexicon.proposals_in(previous.assistant_text)
        quoted, text = self._quoted(turn.user_text, previous.assistant_text, proposals)
        if quoted:  # quoting a sentence of the answer proposes it, whatever its words
            turn = dataclasses.replace(turn, user_text=text)
            proposals = [*quoted, *(p for p in proposals if p not in quoted)]
        # a selection counts over options offered as a choice (`offered`); over listed options nobody
        # offered (a plan's steps, fixes side by side) only a reply pointing by number or letter selects
        offered = self.offered(previous.assistant_text)
        selecting = self.selecting(text, previous.assistant_text)
        reading: AssentReading = ""
        if selecting is not None and not offered:
            picked = selecting[1]
            # only a reply that just points ("1 and 2.") and does not go on with questions alone
            # ("2 sounds scary. what if …?" acknowledges, as "ok. what does this do?" does)
            asks_on = _asks_on(text, selecting[0], self.lexicon)
            points = picked is not None and bool(picked.chosen) and only_points(selecting[0], self.lexicon)
            # "the second one, yes" (an assent ending what points) is read by pointing, as before
            pointed = self.pointing(selecting[0], previous.assistant_text) is not None
            selecting = selecting if points and not asks_on and not pointed else None
            reading = "unoffered" if selecting is not None else ""
        if selecting is not None and selecting[1] is None:
            return None  # "neither", "两个都不要": the reply declines every option
        if not proposals and selecting is None:
            # an answer that closes by asking offers what it asks; only a bare assent takes it up
            asked = closing_question(previous.assistant_text, self.lexicon)
            if asked is not None:  # what it asks, only a bare assent takes up ("yeah fix them" does not)
                return Reply(turn, [asked], quoted, text, text.strip(), None, None) if self.is_assent(text) else None
            reading = "unsignalled"  # no signal, no closing question: the assent model decides alone
        if selecting is not None:  # "yes both", "第二个", "a but not b", "Caffeine 吧": a selection
            sentence, _ = selecting
            rest = _without(turn, sentence)
            return Reply(turn, proposals, quoted, sentence, sentence.strip(), None, rest, reading, points=True)
        if self._bare(text, proposals, previous.assistant_text):
            quote = _longest_piece(text) if quoted else text.strip()
            return Reply(turn, proposals, quoted, text, quote, None, None, reading)
        sentences = split_sentences(text)
        if not sentences:
            return None
        first = sentences[0]
        # "ok. what does the flaky test do?": an assent followed only by questions acknowledges
        asks_on = all(self.lexicon.is_question(s) for s in sentences[1:])
        if asks_on and len(sentences) > 1 and reading == "unsignalled":
            return None  # "2 sounds scary. what if …?": with no proposal to take up, it only acknowledges
        if not asks_on and self._bare(first, proposals, previous.assistant_text):
            return Reply(turn, proposals, quoted, first, first, None, _without(turn, first), reading)
        pointing = self.pointing(first, previous.assistant_text)
        if pointing is not None:  # "BreakBeforeBraces 那个可以", "the second one, yes": the words only point
            clause, head = pointing
            return Reply(turn, proposals, quoted, head, clause, None, _without(turn, clause), reading, points=True)
        prefix = self.assent_prefix(first)
        own = first[len(prefix) :].strip(_TRIM)
        if not prefix or not self.lexicon.anchor_tokens(own) or not self.lexicon.passes_gates(first):
            return None
        if _not_deciding().search(fold(own)):
            return None  # "OK, thanks for explaining the decorator.", "好，我先看看 pnpm 的文档。"
        return Reply(turn, proposals, quoted, own, first, own, _without(turn, first), reading)

    def _weighs(self, answer: str, reply: Reply, weighing: Sequence[str]) -> bool:
        """`reply` singles out no option of those `answer` lists (by ordinal, name or exception: "ok
        preview 就 Vercel。" selects, "Both have something." does not) and a sentence of `weighing`
        besides its quote names words of the options."""
        options = options_in(answer)
        selection = read_selection(reply.words, answer, self.lexicon) if options else None
        if not options or (selection is not None and (selection.chosen or selection.named or selection.excluded)):
            return False
        quote = reply.quote
        listed = stemmed(self.lexicon.anchor_tokens(" ".join(answer[o.start : o.end] for o in options)))
        return any(
            s.strip() not in quote and stemmed(self.lexicon.anchor_tokens(s)) & listed for s in weighing if s.strip()
        )

    def is_assent(self, text: str) -> bool:
        """`text` is a confirmation (`Lexicon.is_confirmation`), informal assent words ("ja", "k", "yup";
        `assent_words.json`) read as "ok"."""
        return self.lexicon.is_confirmation(as_assent(text))

    def offered(self, answer: str) -> bool:
        """The options of `answer` are offered as a choice (`options.offered_by`): the line introducing
        them or one of them carries a proposal signal ("I suggest:", "几种做法："), or the introducing
        line names them as options ("Options:", "Two options:", "两个方案：") — not "Plan:", "Review:"."""
        return bool(offered_by(answer, self.lexicon.has_proposal_signal))

    def selecting(self, text: str, answer: str) -> tuple[str, Selection | None] | None:
        """The first sentence of `text` when it selects over the options `answer` lists
        (`options.read_selection`) and its selection (None: it declines them all), or None."""
        sentences = [s for s in split_sentences(text) if s.strip()]
        for sentence in sentences[:1]:
            selection = read_selection(sentence, answer, self.lexicon)
            if selection is not None:
                return sentence, (None if selection.neither else selection)
        return None

    def assent_prefix(self, sentence: str) -> str:
        """The leading assent of `sentence` ("ok", "yes,", "可以，", "行") — the shortest run of at most a
        few leading words that is a confirmation on its own — or ""."""
        for n, end in enumerate(_WORD_END.finditer(sentence)):
            if n >= _ASSENT_WORDS:
                break
            head = sentence[: end.end()]
            if head.strip(_TRIM) and self.is_assent(head.strip(_TRIM)):
                return head
        return ""

    def pointing(self, sentence: str, answer: str) -> tuple[str, str] | None:
        """The first clause of `sentence` and its words before an assent that ends it, when those words
        only point at the answer: an ordinal or option ("the second one, yes", "B 那个可以") or words
        all of which the answer says ("tag 和 diskSelector 那个同意")."""
        clause = _CLAUSE_END.split(sentence, maxsplit=1)[0]
        ends = [m.start() for m in _WORD_END.finditer(clause) if m.start() > 0][-_ASSENT_WORDS:]
        for end in reversed(ends):  # the shortest assent ending the clause
            head, tail = clause[:end].strip(_TRIM), clause[end:].strip(_TRIM)
            if not head or not tail or not self.is_assent(tail):
                continue
            words = stemmed(self.lexicon.anchor_tokens(head))
            if reply_pointers(head) or (words and words <= stemmed(self.lexicon.anchor_tokens(answer))):
                return clause.strip(), head
            return None
        return None

    def chosen(self, answer: str, words: str, *, bare: bool, reading: AssentReading = "") -> list[str]:
        """The sentences of `answer` that name what the reply (its words: `words`, read as `reading`:
        see `Reply`) chooses, by the assent model (`assent_choice.py`); [] when a bare assent — or any
        assent to an answer with no signal (`reading` "unsignalled") — chooses none. A reply selecting
        over the options the answer offers (`options.read_selection`: "yes both", "1 和 3", "a but not
        b", "Caffeine 吧") chooses in each selected option its likeliest sentence; over options it lists
        without offering them ("unoffered": "1 and 2."), only when the likeliest reaches the floor."""
        found = candidates(answer, self.lexicon)
        model = self.model or default_assent_model()
        features = choice_features(answer, words, bare, self.lexicon, reading=reading)
        # the sub-points of an option (its pros, cons, caveats) are never what is decided
        options = options_in(answer)
        probabilities = [
            0.0 if any(o.holds(c.start) and not o.in_head(c.start) for o in options) else model.probability(f)
            for c, f in zip(found, features, strict=True)
        ]
        per_option = self._per_selected_option(answer, words, found, probabilities, reading)
        if per_option:
            return [found[n].text for n in per_option]
        if reading == "unoffered":
            return []
        return [found[n].text for n in model.choose(probabilities, bare=floored(bare, reading), reading=reading)]

    def _per_selected_option(
        self, answer: str, words: str, found: list[Candidate], probabilities: list[float], reading: AssentReading
    ) -> list[int]:
        """The likeliest candidate of each option `words` selects — of options the answer offers, or
        (`reading` "unoffered") of options it lists when the likeliest of them reaches the model's
        floor; [] when it selects none."""
        selection = read_selection(words, answer, self.lexicon)
        if selection is None or not selection.selects:
            return []
        unoffered = not self.offered(answer)
        if unoffered and reading != "unoffered":
            return []  # a plan of steps, a review's findings: options nobody proposed as a choice
        picked = [o for o in options_in(answer) if selection.picks(o)]
        best: list[int] = []
        for option in picked:
            inside = [n for n, c in enumerate(found) if option.in_head(c.start)]  # never a sub-point
            if inside:
                best.append(max(inside, key=lambda n: (probabilities[n], -n)))
        # over options nobody offered, the model decides whether the reply chooses at all: the likeliest
        # of the options it points at must reach the floor, as a bare assent's choice must
        floor = (self.model or default_assent_model()).floor
        if unoffered and max((probabilities[n] for n in best), default=0.0) < floor:
            return []
        return best

    def _with_proposal(self, answer: str, proposals: list[str], chosen: list[str]) -> list[str]:
        """The assistant quotes of a choice: `chosen`, after the proposal sentence before it when none of
        them carries a proposal signal (the items under "建议四条：" quote it too; the first of
        `proposals` when none is before them)."""
        if not proposals or any(self.lexicon.has_proposal_signal(s) or any(s in p for p in proposals) for s in chosen):
            return chosen
        first = answer.find(chosen[0])
        before = [p for p in proposals if 0 <= answer.find(p) < first]
        return [before[-1] if before else proposals[0], *chosen]

    def _bare(self, text: str, proposals: list[str], answer: str) -> bool:
        """An assent and nothing else, or one repeating only words of a proposal ("Yep, cap it at 100.")."""
        if self.is_assent(text):
            return True
        # a name of its own ("yes, go with poetry, lock file committed") makes it the user's own decision
        lx = self.lexicon
        said = as_assent(text)  # "k -n 4." repeats the proposal's `-n 4` after an informal assent
        rest = lx.echo_fillers.blank(lx.confirmation_fillers.blank(lx.echo_assents.blank(lx.confirmations.blank(said))))
        names = names_in(lx.anchor_tokens(rest))
        return any(
            (self.lexicon.is_echo_confirmation(said, p, turn=answer) or _says_yes_half(text, p))
            and names <= names_in(self.lexicon.anchor_tokens(p))
            for p in proposals
        )

    def _quoted(self, text: str, answer: str, proposals: list[str]) -> tuple[list[str], str]:
        """The proposal sentences the "> …" lines of `text` quote (the sentence of the answer holding
        the longest start of the line found in it, ≥ `_MIN_QUOTED` characters), and `text` with what
        they quote blanked ("> 每周一早上 6 点前开一次 可以。" leaves "可以。")."""
        found: list[str] = []
        reply = text
        for match in _QUOTE_LINE.finditer(text):
            line = match.group(1)
            size = len(line)
            while size >= _MIN_QUOTED and line[:size].strip() not in answer:
                size -= 1
            piece = line[:size].strip()
            if size < _MIN_QUOTED or len(piece) < _MIN_QUOTED:
                continue
            holding = [p for p in proposals if piece in p or p in piece]
            holding = holding or [s for s in split_sentences(answer) if piece in s]
            found += [s for s in holding[:1] if s not in found]
            start = match.start()
            end = match.start(1) + size
            reply = reply[:start] + " " * (end - start) + reply[end:]
        return (found, reply) if found else ([], text)

    def _decision(self, previous: Turn, chosen: list[str], turn: Turn, quote: str, content: str) -> CandidateOut:
        subject = self.lexicon.subject_of(" ".join(chosen))
        return CandidateOut(
            kind=MemoryKind(self.lexicon.proposal_kind(_LEAD_LABEL.sub("", chosen[0], count=1))),
            content=_LIST_MARK.sub("", content).strip() or content,
            subject=subject.key if subject else "",
            sources=[
                *(SourceOut(turn_id=previous.id, role="assistant", quote=p) for p in chosen),
                SourceOut(turn_id=turn.id, role="user", quote=quote),
            ],
        )


@lru_cache(maxsize=1)
def _not_deciding() -> re.Pattern[str]:
    """The words of `assent_words.json` (gratitude, the user's own next step) as one pattern."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath("assent_words.json").read_text("utf-8"))
    if set(data) != {"note", "gratitude", "own_step", "every", "neither", "except", "label", "assent"} or any(
        set(data[k]) - {"en", "zh"} for k in data if k != "note"
    ):
        raise MemoryEngineError("assent_words.json holds an unknown category or language.")
    words = [w for key in ("gratitude", "own_step") for lang, ws in data[key].items() for w in ws]
    parts = [re.escape(fold(w)) if CJK_RUN.search(w) else rf"\b{re.escape(fold(w))}\b" for w in words]
    return re.compile("|".join(sorted(parts, key=len, reverse=True)))


def _holds(quote: str, sentence: str) -> bool:
    """The assenting `quote` and a read `sentence` of its turn hold one another."""
    return bool(sentence.strip()) and (quote.strip() in sentence or sentence.strip() in quote)


def floored(bare: bool, reading: AssentReading) -> bool:
    """Whether the assent model's floor applies to a choice (`AssentModel.choose`'s `bare`): a bare
    assent, or any assent to an answer with no proposal signal, closing question or options offered."""
    return bare or reading == "unsignalled"


def closing_question(answer: str, lexicon: Lexicon) -> str | None:
    """What the question closing `answer` (as the extractor reads it, pasted material cut) asks the
    user to take up: the question, when it has content words of its own ("Want a nightly job that
    fails on a known CVE?", "Push it to your branch now?"), or the sentence before it, when it only
    points back ("A CI step that fails on a changed lockfile would catch it. Make that the rule?").
    Whether a bare assent to it decides anything is the assent model's choice."""
    sentences = [s.strip() for s in split_sentences(parse(answer).prose(keep_reports=True))]
    if not sentences or not sentences[-1].endswith(("?", "？")):
        return None
    if lexicon.only_points_back(sentences[-1]):
        before = sentences[-2] if len(sentences) > 1 else ""
        return before if lexicon.anchor_tokens(before) else None
    return sentences[-1] if lexicon.anchor_tokens(sentences[-1]) else None


def quotes_sentence(user_text: str, sentence: str) -> bool:
    """A "> …" line of `user_text` quotes `sentence` (starts with ≥ `_MIN_QUOTED` characters of it)."""
    for match in _QUOTE_LINE.finditer(user_text):
        line = match.group(1).strip()
        size = len(line)
        while size >= _MIN_QUOTED and line[:size].strip() not in sentence:
            size -= 1
        if size >= _MIN_QUOTED:
            return True
    return False


def _per_option(answer: str, chosen: list[str]) -> list[tuple[list[str], list[str]]]:
    """`chosen` as one decision per option of `answer` it lies in (`options.options_in`): (the chosen
    sentences outside every option, the option's own) — their content is the option's own; one
    decision of every sentence when they span fewer than two options."""
    options = options_in(answer)
    groups: dict[int, list[str]] = {}
    outside: list[str] = []
    for sentence in chosen:
        at = answer.find(sentence)
        option = next((n for n, o in enumerate(options) if o.holds(at)), None)
        if option is None:
            outside.append(sentence)
        else:
            groups.setdefault(option, []).append(sentence)
    if len(groups) < 2:
        return [([], chosen)]
    return [(outside, group) for _, group in sorted(groups.items())]


def _says_yes_half(reply: str, proposal: str) -> bool:
    """`reply` answers the A-not-A question `proposal` asks with its "yes" half and at most a verb of
    the question after it ("要 加", "要 开下去" to "要不要加一个 guard？", "要不要开 …？"): it opens with
    the character the form repeats (`Interrogatives.yes_half`), and what follows is at most
    `_YES_HALF_TAIL` characters of Chinese opening with one the question says, nothing else."""
    half = default_interrogatives().yes_half(proposal)
    said = fold(reply).strip(_TRIM)
    if not half or not said.startswith(half):
        return False
    tail = said[len(half) :].strip(_TRIM)
    if not tail:
        return True
    return (
        len(tail) <= _YES_HALF_TAIL
        and CJK_RUN.fullmatch(tail) is not None
        and tail[0] in fold(proposal)
        and tail[0] not in default_interrogatives().zh_negators
    )


def _asks_on(text: str, first: str, lexicon: Lexicon) -> bool:
    """What follows `first` in `text` is only questions (at least one)."""
    after = [s for s in split_sentences(text[text.find(first) + len(first) :]) if s.strip()]
    return bool(after) and all(lexicon.is_question(s) for s in after)


def _longest_piece(text: str) -> str:
    """The longest run of `text` between blanked stretches (an exact substring of the RAW turn)."""
    return max((p.strip() for p in re.split(r" {3,}|\n", text)), key=len, default=text.strip()) or text.strip()


def _without(turn: Turn, sentence: str) -> Turn | None:
    """`turn` with `sentence` blanked (every other character where it was), None when nothing is left."""
    at = turn.user_text.find(sentence)
    if at < 0:
        return turn
    text = turn.user_text[:at] + " " * len(sentence) + turn.user_text[at + len(sentence) :]
    return dataclasses.replace(turn, user_text=text) if text.strip() else None
