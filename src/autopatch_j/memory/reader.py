"""The sentence reader: what each prose sentence of a user turn is, decided by a trained model.

Stage 1 of the offline extractor reads a user turn after `structure.parse` has dropped its pasted
material and the lines introducing it. For each prose sentence left, the reader decides one of

- `user_preference` — a standing preference of the user,
- `project_decision` — a decision for the project,
- `discussion_context` — the discussion weighs options worth keeping in view,
- `retirement` — it takes a standing rule back and states no new value ("forget the squash-only
  thing", "emoji 那条算了"): the retirement pass (`supersede.py`) retires the memory it is about,
- `none` — anything else (a one-off request, a question, a report, a code fact, a temporary or
  deferred instruction, a hypothetical, chit-chat, a bare assent).

The model is a multinomial logistic regression over finer labels (the `why` of the realistic
sessions' not-memories, collapsed to `none` when it predicts) and three kinds of features:

- the sentence's own words (`speech_model.features`: stems, CJK 1–3-grams, punctuation, neighbours);
- the turn's structure (`x:`): the turn held pasted material, the sentence comes right before or
  after it, ends in a question mark, its position in the turn, the assistant's turn before it
  proposed something, how much of the sentence's content that answer already said (`x:echo_*`),
  what the sentence is about (`scope.py`: one thing in view or a class of things, a name the answer
  before it used), whether that answer closed by offering one action or a rule (`x:answer_offer_*`),
  and whether the sentence has the interrogative form without its mark (`x:asks`,
  `interrogatives.py`: "are we exposed on 816", "按文件数收费还是按大小");
- the lexicon's word classes as *features* (`l:`): temporary scope, a scope ending at a project
  milestone ("量产前", "until launch"), question, hypothetical, code fact, correction, switch,
  explicit speech act, an owner named, weighing options, an assent, a subject of the subject table
  with its usual kind, the kind rule's hint; and the word classes of the sentences just before and
  after it in the turn (`prev_l:`, `next_l:`, the hint left out).

The lexicon no longer decides on its own whether a sentence states something; its four hard gates
(temporary, question, hypothetical, description of code; `Lexicon.passes_gates`, data in
`lexicon.json`) and the interrogative form of a clause (`interrogatives.py`: a question without its
mark, "are we exposed on 816", "按文件数收费还是按大小") refuse a preference or decision the reader admits
only where the reader is unsure of it (`gates_pass`): a statement read with at least `sure_threshold`
stands whatever the word lists say (the word classes are among the reader's features, so it has weighed
them already). Weights ship as package data
(`reader_model.json`, written by `scripts/train_reader.py`), loaded on first use: per feature only its
weights that matter, as flat (class index, integer weight) pairs in units of the model's `scale`, so
the file parses fast.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.interrogatives import default_interrogatives
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.scope import names, scope_keys
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.speech_model import features
from autopatch_j.memory.structure import Structure, parse

READER_FILE = "reader_model.json"
FORMAT = 2
STATEMENTS = ("user_preference", "project_decision")
KINDS = (*STATEMENTS, "discussion_context")
RETIREMENT = "retirement"
NONE = "none"
#: The finer label (a not-memory's `why`) of a sentence that puts the decision off ("先放着，下周再说").
DEFERRED = "deferred"
#: The finer label of a request for one act on the instance in view now ("先在 feature/x 分支上跑一次看看").
ONE_OFF = "one_off"
READINGS = (*KINDS, RETIREMENT, NONE)
#: The reading the validator takes as the user's speech act (`states_in_turn`): stricter than the
#: reader's own `threshold`, which admits a Stage-1 candidate. Chosen by leave-one-author-out on the
#: realistic dev authors w1–w3 over 0.4 / 0.6 / 0.8 (docs/quality.md).
EVIDENCE_THRESHOLD = 0.6


@dataclass(frozen=True, slots=True)
class Reading:
    """What the reader made of one sentence: one of `READINGS`, whether it is a statement read so
    surely (`ReaderModel.sure_threshold`) that the hard gates do not overrule it, whether its likeliest
    finer label is `DEFERRED` (it puts a decision off: an assent it opens decides nothing) and whether
    it is `ONE_OFF` (it asks for one act now: an assent it opens, pointing at no option, decides
    nothing)."""

    label: str
    sure: bool = False
    deferred: bool = False
    once: bool = False


@dataclass(frozen=True, slots=True)
class TurnView:
    """What the reader sees of one user turn besides a sentence's words: the RAW text parsed into
    prose and material, and whether the assistant's answer just before it proposed something."""

    structure: Structure
    proposed: bool

    @classmethod
    def of(cls, raw_user_text: str, *, proposed: bool, answer: str | None = None) -> TurnView:
        """`answer`: the assistant's answer before the turn ("" for none), so a quoted block that is no
        slice of it is someone else's words (`structure.parse`); None reads `>` lines as prose."""
        return cls(structure=parse(raw_user_text, answer), proposed=proposed)

    def sentences(self) -> list[str]:
        """The prose sentences, in order (pasted material and report lines are never read)."""
        return split_sentences(self.structure.prose())


def turn_features(
    raw_user_text: str, previous_assistant_text: str, lexicon: Lexicon
) -> list[tuple[str, dict[str, float]]]:
    """Each prose sentence of a user turn (RAW text) with its features; `previous_assistant_text` is the
    assistant's answer just before it ("" when there is none)."""
    proposed = bool(previous_assistant_text) and bool(lexicon.proposals_in(previous_assistant_text))
    view = TurnView.of(raw_user_text, proposed=proposed, answer=previous_assistant_text)
    sentences = view.sentences()
    read = [
        (s, sentence_features(s, view=view, index=n, count=len(sentences), lexicon=lexicon))
        for n, s in enumerate(sentences)
    ]
    answer_words = lexicon.anchor_tokens(previous_assistant_text) if previous_assistant_text else frozenset[str]()
    closing = _closing_offer(previous_assistant_text)
    answer_names = names(previous_assistant_text) if previous_assistant_text else frozenset[str]()
    asks = default_interrogatives().asks
    classes = [[k for k in feats if k.startswith("l:") and not k.startswith("l:hint:")] for _, feats in read]
    for n, (sentence, feats) in enumerate(read):
        for key in classes[n - 1] if n else ():
            feats["prev_" + key] = 1.0
        for key in classes[n + 1] if n + 1 < len(read) else ():
            feats["next_" + key] = 1.0
        echo = _echo(lexicon.anchor_tokens(sentence), answer_words)
        if echo:
            feats["x:echo_" + echo] = 1.0
        for key in scope_keys(sentence, named_before=answer_names):
            feats["x:" + key] = 1.0
        for key in closing:
            feats["x:answer_" + key] = 1.0
        if asks(sentence):
            feats["x:asks"] = 1.0
    return read


def _closing_offer(answer: str) -> list[str]:
    """The scope of the question closing the assistant's answer when it offers to act ("Should I delete
    `tmp/` too?": `offer_one`; "Want me to make that the rule for every endpoint?": `offer_class`)."""
    sentences = split_sentences(answer) if answer else []
    if not sentences or not sentences[-1].rstrip().endswith(("?", "？")):
        return []
    return [k for k in scope_keys(sentences[-1]) if k.startswith("offer_")]


def _echo(own: frozenset[str], answer: frozenset[str]) -> str:
    """How much of a sentence's content the assistant's answer before it already said: "some", "most"
    or "" (nothing, or no answer — a sentence after no answer reads as one after an unrelated answer)."""
    share = len(own & answer) / len(own) if own else 0.0
    return "" if share == 0 else "some" if share < 0.5 else "most"


def sentence_features(sentence: str, *, view: TurnView, index: int, count: int, lexicon: Lexicon) -> dict[str, float]:
    """The features of prose sentence number `index` (of `count`) of the turn `view`."""
    feats = features(sentence)
    for key in _context(sentence, view, index, count):
        feats["x:" + key] = 1.0
    for key in _word_classes(sentence, lexicon):
        feats["l:" + key] = 1.0
    return feats


def _context(sentence: str, view: TurnView, index: int, count: int) -> list[str]:
    keys = ["first" if index == 0 else "later", "only" if count == 1 else "several"]
    if index == count - 1:
        keys.append("last")
    if view.proposed:
        keys.append("proposed")
    if sentence.rstrip().endswith(("?", "？")):
        keys.append("question_mark")
    structure = view.structure
    if structure.has_material:
        keys.append("paste_in_turn")
        start = structure.text.find(sentence)
        if start >= 0:
            lines = [ln for ln in structure.lines if ln.text.strip()]
            end = start + len(sentence)
            after = next((ln for ln in lines if ln.start >= end), None)
            before = next((ln for ln in reversed(lines) if ln.end <= start), None)
            if after is not None and after.label != "prose":
                keys.append("before_paste")
            if before is not None and before.label != "prose":
                keys.append("after_paste")
    return keys


def _word_classes(sentence: str, lexicon: Lexicon) -> list[str]:
    checks = (
        ("temporary", lexicon.is_temporary),
        ("milestone", lexicon.scoped_to_milestone),
        ("question", lexicon.is_question),
        ("hypothetical", lexicon.is_speculative),
        ("code_fact", lexicon.is_code_fact),
        ("correction", lexicon.is_correction),
        ("switch", lexicon.is_switch),
        ("explicit", lexicon.is_explicit),
        ("owner", lexicon.names_an_owner),
        ("discussion", lexicon.is_discussion),
        ("assent", lexicon.is_confirmation),
        ("extension", lexicon.is_extension),
        ("points_back", lexicon.points_back),
    )
    keys = [name for name, check in checks if check(sentence)]
    subject = lexicon.subject_of(sentence)
    if subject is not None:
        keys.append("subject:" + subject.kind)
    ratified = lexicon.ratified_kind(sentence)
    if ratified is not None:
        keys.append("ratified:" + ratified)
    if not lexicon.anchor_tokens(sentence):
        keys.append("no_content")
    keys.append("hint:" + lexicon.kind_hint(sentence))
    return keys


def admits(lexicon: Lexicon, turn_text: str, sentence: str, reading: Reading | None) -> bool:
    """`sentence` (of the prose `turn_text`) states a preference or decision: the reader says so and
    either is sure of it or the hard gates let it through; without a reading, a listed marker or the
    speech model, and the gates. (The validator accepts the same reading as the user's statement:
    `states_in_turn`.)"""
    if reading is None:
        return lexicon.statement_in_turn(turn_text, sentence)
    return reading.label in STATEMENTS and (reading.sure or gates_pass(lexicon, sentence))


def gates_pass(lexicon: Lexicon, sentence: str) -> bool:
    """The hard gates let `sentence` through (`Lexicon.passes_gates`) and no clause of it asks
    (`interrogatives.py`): what an unsure reading of a statement must pass."""
    return lexicon.passes_gates(sentence) and not default_interrogatives().asks(sentence)


def discusses(lexicon: Lexicon, sentence: str, reading: Reading | None) -> bool:
    """`sentence` is discussion worth keeping in view: the reader says so (without a reading, the
    lexicon's comparison markers on a sentence that describes no code)."""
    if reading is None:
        return lexicon.is_discussion(sentence) and not lexicon.is_code_fact(sentence)
    return reading.label == "discussion_context"


@dataclass(frozen=True, slots=True, eq=False)
class ReaderModel:
    """A multinomial logistic regression: per class a bias and the weights of the features present.
    `weights[feature]` is a flat sparse row `(n, w, n, w, …)`: class `classes[n]` weighs the feature
    `w * scale` (a class not in the row weighs it 0); `trained_on` names the files it was fitted on."""

    classes: tuple[str, ...]
    bias: tuple[float, ...]
    weights: Mapping[str, Sequence[int]]
    trained_on: dict[str, str]
    threshold: float = 0.5  # a preference or decision: their summed probability reaches it
    discussion_threshold: float = 0.5
    retirement_threshold: float = 0.5
    sure_threshold: float = math.inf  # a statement this likely is not overruled by the hard gates
    scale: float = 1.0

    def probabilities(self, feats: dict[str, float]) -> dict[str, float]:
        """The probability of each collapsed label (`READINGS`: the kinds, `retirement`, `none`)."""
        collapsed = dict.fromkeys(READINGS, 0.0)
        for label, p in self.finer(feats).items():
            collapsed[label if label in collapsed else NONE] += p
        return collapsed

    def finer(self, feats: dict[str, float]) -> dict[str, float]:
        """The probability of each label the model was trained on (`classes`: the readings and the
        finer labels collapsed to `none`, such as `DEFERRED`)."""
        scores = list(self.bias)
        for key, value in feats.items():
            row = self.weights.get(key)
            if row is not None:
                factor = self.scale * value
                for n in range(0, len(row), 2):
                    scores[row[n]] += row[n + 1] * factor
        top = max(scores)
        exp = [math.exp(s - top) for s in scores]
        total = sum(exp)
        return {label: e / total for label, e in zip(self.classes, exp, strict=True)}

    def read(self, feats: dict[str, float]) -> str:
        """A preference or decision (the likelier of the two) when their summed probability reaches
        `threshold`; else a retirement when its probability reaches `retirement_threshold`; else
        discussion context when its probability reaches `discussion_threshold`; else `none`."""
        return self.reading(feats).label

    def reading(self, feats: dict[str, float]) -> Reading:
        """`read`'s label, sure when a statement's summed probability reaches `sure_threshold`,
        deferred when `DEFERRED` is the likeliest finer label, once when `ONE_OFF` is."""
        fine = self.finer(feats)
        top = max(fine, key=fine.__getitem__)
        deferred, once = top == DEFERRED, top == ONE_OFF
        p = dict.fromkeys(READINGS, 0.0)
        for label, q in fine.items():
            p[label if label in p else NONE] += q
        stated = p[STATEMENTS[0]] + p[STATEMENTS[1]]
        if stated >= self.threshold:
            label = max(STATEMENTS, key=lambda kind: p[kind])
            return Reading(label, sure=stated >= self.sure_threshold, deferred=deferred, once=once)
        if p[RETIREMENT] >= self.retirement_threshold:
            return Reading(RETIREMENT, deferred=deferred, once=once)
        label = KINDS[2] if p[KINDS[2]] >= self.discussion_threshold else NONE
        return Reading(label, deferred=deferred, once=once)

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> ReaderModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The reader model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        classes = tuple(str(c) for c in data["classes"])
        weights: dict[str, Sequence[int]] = data["weights"]  # as parsed: flat (class, weight) pairs
        rows = weights.values()
        indices = [n for row in rows for n in row[::2]]
        if (
            len(data["bias"]) != len(classes)
            or any(len(row) % 2 for row in rows)
            or (indices and (min(indices) < 0 or max(indices) >= len(classes)))
        ):
            raise MemoryEngineError("The reader model's weights do not match its classes; retrain it.")
        return cls(
            classes=classes,
            bias=tuple(float(b) for b in data["bias"]),
            weights=weights,
            trained_on={str(k): str(v) for k, v in data["trained_on"].items()},
            threshold=float(data.get("threshold", 0.5)),
            discussion_threshold=float(data.get("discussion_threshold", 0.5)),
            retirement_threshold=float(data.get("retirement_threshold", 0.5)),
            sure_threshold=float(data.get("sure_threshold", math.inf)),
            scale=float(data.get("scale", 1.0)),
        )


def states_in_turn(lexicon: Lexicon, turn_text: str, previous_assistant_text: str, quote: str) -> bool:
    """The shipped reader (`default_reader_model`, looked up when called) gives the prose sentence of the
    user turn `turn_text` (RAW) holding `quote` — or held by it — a summed preference-or-decision
    probability of at least `EVIDENCE_THRESHOLD`, and either reaches the model's `sure_threshold` or the
    hard gates let that sentence through: the learned reading of a speech act, which the validator
    (M-42) accepts beside the lexicon's listed markers and the speech model."""
    model = default_reader_model()
    for sentence, stated in _readings(model, lexicon, turn_text, previous_assistant_text):
        held = quote in sentence or sentence in quote
        if held and stated >= EVIDENCE_THRESHOLD and (stated >= model.sure_threshold or gates_pass(lexicon, sentence)):
            return True
    return False


def statement_readings(
    lexicon: Lexicon, turn_text: str, previous_assistant_text: str
) -> tuple[tuple[str, float, bool], ...]:
    """Each prose sentence of a user turn (RAW) with the shipped reader's summed preference-or-decision
    probability, and whether that sentence alone is evidence as `states_in_turn` takes it."""
    model = default_reader_model()
    return tuple(
        (
            sentence,
            stated,
            stated >= EVIDENCE_THRESHOLD and (stated >= model.sure_threshold or gates_pass(lexicon, sentence)),
        )
        for sentence, stated in _readings(model, lexicon, turn_text, previous_assistant_text)
    )


@lru_cache(maxsize=256)
def _readings(
    model: ReaderModel, lexicon: Lexicon, turn_text: str, previous_assistant_text: str
) -> tuple[tuple[str, float], ...]:
    """What `model` reads in each prose sentence of a user turn (cached: a batch's candidates share turns)."""
    out = []
    for sentence, feats in turn_features(turn_text, previous_assistant_text, lexicon):
        p = model.probabilities(feats)
        out.append((sentence, p[STATEMENTS[0]] + p[STATEMENTS[1]]))
    return tuple(out)


@lru_cache(maxsize=1)
def default_reader_model() -> ReaderModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(READER_FILE).read_text(encoding="utf-8")
    return ReaderModel.from_data(json.loads(text))
