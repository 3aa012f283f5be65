"""The paraphrase generator: a seeded set of zh/en utterances in the corpus format.

Templates × word classes × languages, filled with a fixed seed from `paraphrase_vocab.json` — a
vocabulary written before the lexicon v3 was tuned, whose `held_out` classes share no entry with
`lexicon.json` (a test keeps it so). Positives are explicit preferences, decisions (a collective
subject with a decision verb, modal and standing forms, negated "no longer / 不再" forms) and short
confirmations of an assistant proposal; negatives are the forms the hard gates reject: temporary
requests, questions and undecided forms, speculation, current code facts, past reports, one-off
requests, assistant-only claims, confirmations without a proposal and negated decisions.

Every utterance becomes one `Case` (one conversation), so `evaluate` runs it through the real
pipeline like any corpus case and `metrics` scores it: recall over the positives, precision over
every preference or decision formed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autopatch_j.quality.corpus import Case, ChangelogEntry, Corpus, CorpusFolder, case_problems, checkout_or

VOCAB_FILE = "paraphrase_vocab.json"
DEFAULT_SEED = 11
DEFAULT_PER_SIDE = 520  # ≥ 500 positive and ≥ 500 negative utterances
_PD = ["user_preference", "project_decision"]
_ASK_ZH = ("这块怎么处理比较好？", "你看这个怎么定？", "有什么建议？")
_ASK_EN = ("How should we handle this?", "What would you suggest here?", "Any recommendation?")


@dataclass(frozen=True, slots=True)
class Utterance:
    """One generated conversation: user turns (with assistant answers), the gold kind or None."""

    template: str
    language: str
    turns: tuple[tuple[str, str], ...]
    kind: str | None  # None: a negative, no preference or decision may form
    category: str
    proposal: str = ""  # the assistant's proposal (turn 0) the gold memory also quotes


def load_vocab(folder: CorpusFolder | None = None) -> dict[str, Any]:
    """The paraphrase vocabulary of `folder` (the checkout's by default)."""
    text = checkout_or(folder).file(VOCAB_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def held_out_words(vocab: dict[str, Any] | None = None) -> set[str]:
    """Every entry of the held-out classes (what the lexicon must not list verbatim)."""
    data = vocab or load_vocab()
    return {word for words in data["held_out"].values() for word in words}


Template = Callable[[Callable[[str], str]], Utterance]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _templates() -> list[Template]:
    """Each template draws its words through `w(class_name)` and returns one utterance."""

    def one(name: str, language: str, kind: str | None, category: str, build: Callable[..., str]) -> Template:
        def make(w: Callable[[str], str]) -> Utterance:
            return Utterance(name, language, ((build(w), _neutral(w, language)),), kind, category)

        return make

    pd, up = "project_decision", "user_preference"
    positives: list[Template] = [
        one("zh-team-adopt", "zh", pd, "explicit_decision",
            lambda w: f"{w('team_zh')}{w('decide_zh')}{w('adopt_zh')} {w('object_zh')}。"),
        one("zh-team-retire", "zh", pd, "explicit_decision",
            lambda w: f"{w('team_zh')}{w('decide_zh')}{w('retire_zh')} {w('legacy_zh')}。"),
        one("zh-legacy-negated", "zh", pd, "explicit_decision",
            lambda w: f"{w('legacy_zh')} {w('negation_zh')}支持了。"),
        one("zh-artifact-modal", "zh", pd, "explicit_decision",
            lambda w: f"{w('artifact_zh')}{w('modal_zh')}{w('adopt_zh')} {w('object_zh')}。"),
        one("zh-artifact-standing", "zh", pd, "explicit_decision",
            lambda w: f"{w('artifact_zh')}{w('standing_zh')}用 {w('object_zh')}。"),
        one("en-team-adopt", "en", pd, "explicit_decision",
            lambda w: f"{w('team_en')} {w('decide_en')} {w('adopt_en')} {w('object_en')}."),
        one("en-team-retire", "en", pd, "explicit_decision",
            lambda w: f"{w('team_en')} {w('decide_en')} {w('retire_en')} {w('legacy_en')}."),
        one("en-team-drop", "en", pd, "explicit_decision",
            lambda w: f"{w('team_en')} {w('decide_en')} drop {w('legacy_en')}."),
        one("en-artifact-will", "en", pd, "explicit_decision",
            lambda w: f"{w('artifact_en')} will use {w('object_en')} {w('standing_en')}."),
        one("en-artifact-modal", "en", pd, "explicit_decision",
            lambda w: f"{w('artifact_en')} {w('modal_en')} use {w('object_en')}."),
        one("en-legacy-no-longer", "en", pd, "explicit_decision",
            lambda w: f"We no longer support {w('legacy_en')}."),
        one("zh-standing-behaviour", "zh", up, "explicit_preference",
            lambda w: f"{w('standing_zh')}{w('behaviour_zh')}。"),
        one("zh-prefer-behaviour", "zh", up, "explicit_preference",
            lambda w: f"{w('prefer_zh')}{w('behaviour_zh')}。"),
        one("zh-standing-negated", "zh", up, "explicit_preference",
            lambda w: f"{w('standing_zh')}{w('negation_zh')}{w('drop_behaviour_zh')}了。"),
        one("en-standing-behaviour", "en", up, "explicit_preference",
            lambda w: f"{_cap(w('standing_en'))}, {w('behaviour_en')}."),
        one("en-prefer-behaviour", "en", up, "explicit_preference",
            lambda w: f"{w('prefer_en')} {w('behaviour_en')}."),
        one("en-no-longer-behaviour", "en", up, "explicit_preference",
            lambda w: f"You no longer need to {w('drop_behaviour_en')}."),
        _confirmed("zh"),
        _confirmed("en"),
    ]  # fmt: skip
    negatives: list[Template] = [
        one("zh-temporary-adopt", "zh", None, "temporary_expression",
            lambda w: f"{w('temporary_zh')}先{w('adopt_zh')} {w('object_zh')}。"),
        one("zh-temporary-behaviour", "zh", None, "temporary_expression",
            lambda w: f"{w('temporary_zh')}{w('behaviour_zh')}就行。"),
        one("en-temporary-behaviour", "en", None, "temporary_expression",
            lambda w: f"{_cap(w('temporary_en'))}, {w('behaviour_en')}."),
        one("en-temporary-use", "en", None, "temporary_expression",
            lambda w: f"Use {w('object_en')} {w('temporary_en')}."),
        one("zh-question", "zh", None, "undecided_question",
            lambda w: f"{w('team_zh')}是不是该{w('adopt_zh')} {w('object_zh')}？"),
        one("zh-undecided", "zh", None, "undecided_question",
            lambda w: f"{w('team_zh')}还没{w('decide_zh')}要不要{w('adopt_zh')} {w('object_zh')}。"),
        one("en-question", "en", None, "undecided_question",
            lambda w: f"Should we {w('adopt_en')} {w('object_en')}?"),
        one("en-undecided", "en", None, "undecided_question",
            lambda w: f"{w('team_en')} has not yet decided whether to {w('adopt_en')} {w('object_en')}."),
        one("zh-speculation", "zh", None, "undecided_question",
            lambda w: f"{w('team_zh')}{w('hedge_zh')}{w('adopt_zh')} {w('object_zh')}。"),
        one("en-speculation", "en", None, "undecided_question",
            lambda w: f"{w('team_en')} {w('hedge_en')} {w('adopt_en')} {w('object_en')}."),
        one("zh-negated-decision", "zh", None, "undecided_question",
            lambda w: f"{w('team_zh')}并没有{w('decide_zh')}{w('adopt_zh')} {w('object_zh')}。"),
        one("en-negated-decision", "en", None, "undecided_question",
            lambda w: f"{w('team_en')} never agreed to {w('adopt_en')} {w('object_en')}."),
        one("zh-code-fact", "zh", None, "code_fact",
            lambda w: f"{w('artifact_zh')}{w('fact_zh')} {w('object_zh')}。"),
        one("en-code-fact", "en", None, "code_fact",
            lambda w: f"{w('artifact_en')} {w('fact_en')} {w('object_en')}."),
        one("zh-past", "zh", None, "code_fact",
            lambda w: f"{w('team_zh')}{w('past_zh')} {w('object_zh')}。"),
        one("en-past", "en", None, "code_fact",
            lambda w: f"{w('team_en')} {w('past_en')} {w('object_en')}."),
        one("zh-one-off", "zh", None, "unrelated_query",
            lambda w: f"{w('oneoff_zh')} {w('object_zh')} 的写法。"),
        one("en-one-off", "en", None, "unrelated_query",
            lambda w: f"{w('oneoff_en')} {w('object_en')}."),
        _assistant_only("zh"),
        _assistant_only("en"),
        _unproposed("zh"),
        _unproposed("en"),
    ]  # fmt: skip
    return positives + negatives


def _neutral(w: Callable[[str], str], language: str) -> str:
    return w("neutral_answer_zh" if language == "zh" else "neutral_answer_en")


def _confirmation(w: Callable[[str], str], language: str) -> str:
    if language == "zh":
        return f"{w('assent_zh')}，{w('follow_zh')}。"
    return f"{w('assent_en')}, {w('follow_en')}."


def _confirmed(language: str) -> Template:
    def make(w: Callable[[str], str]) -> Utterance:
        if language == "zh":
            ask = w("ask_zh")
            proposal = f"{w('propose_zh')}项目{w('adopt_zh')} {w('object_zh')}。"
        else:
            ask = w("ask_en")
            proposal = f"{w('propose_en')} {w('adopt_en')} {w('object_en')} across the project."
        answer = ("有两种做法。" if language == "zh" else "There are two ways. ") + proposal
        turns = ((ask, answer), (_confirmation(w, language), _neutral(w, language)))
        return Utterance(f"{language}-confirmed-proposal", language, turns, "project_decision",
                         "confirmation_with_proposal", proposal=proposal)  # fmt: skip

    return make


def _assistant_only(language: str) -> Template:
    def make(w: Callable[[str], str]) -> Utterance:
        if language == "zh":
            claim = f"{w('standing_zh')}项目{w('modal_zh')}{w('adopt_zh')} {w('object_zh')}，我已经配置好了。"
            turns = ((w("ask_zh"), claim),)
        else:
            claim = f"{_cap(w('standing_en'))}, the project {w('modal_en')} {w('adopt_en')} {w('object_en')}; done."
            turns = ((w("ask_en"), claim),)
        return Utterance(f"{language}-assistant-only", language, turns, None, "assistant_only_claim")

    return make


def _unproposed(language: str) -> Template:
    def make(w: Callable[[str], str]) -> Utterance:
        turns = ((w(f"ask_{language}"), _neutral(w, language)), (_confirmation(w, language), _neutral(w, language)))
        return Utterance(f"{language}-unproposed-confirmation", language, turns, None, "confirmation_without_proposal")

    return make


class _Draw:
    """Draws one word per class for one utterance (the same class gives the same word twice)."""

    def __init__(self, classes: dict[str, list[str]], rng: random.Random) -> None:
        self._classes, self._rng, self._drawn = classes, rng, dict[str, str]()

    def __call__(self, name: str) -> str:
        if name not in self._drawn:
            self._drawn[name] = self._rng.choice(self._classes[name])
        return self._drawn[name]


def generate(
    *, seed: int = DEFAULT_SEED, per_side: int = DEFAULT_PER_SIDE, vocab: dict[str, Any] | None = None
) -> list[Utterance]:
    """`per_side` distinct positive and `per_side` distinct negative utterances, reproducibly."""
    vocab = vocab or load_vocab()
    classes: dict[str, list[str]] = {**vocab["held_out"], **vocab["frames"]}
    classes["ask_zh"], classes["ask_en"] = list(_ASK_ZH), list(_ASK_EN)
    rng = random.Random(seed)
    templates = _templates()
    found: dict[bool, dict[tuple[tuple[str, str], ...], Utterance]] = {True: {}, False: {}}
    attempts = 0
    while min(len(found[True]), len(found[False])) < per_side:
        attempts += 1
        if attempts > per_side * 200:
            raise RuntimeError("the paraphrase vocabulary is too small for the requested size")
        template = templates[rng.randrange(len(templates))]
        utterance = template(_Draw(classes, rng))
        side = found[utterance.kind is not None]
        if len(side) < per_side:
            side.setdefault(utterance.turns, utterance)
    return [*found[True].values(), *found[False].values()]


def to_case(utterance: Utterance, index: int) -> Case:
    """The utterance as a corpus case (built as the corpus file would state it, then validated)."""
    steps = [{"user": user, "assistant": assistant} for user, assistant in utterance.turns]
    case_id = f"gen-{index:04d}-{utterance.template}"
    memories: list[dict[str, Any]] = []
    if utterance.kind is not None:
        last = len(steps) - 1
        sources = [{"turn": last, "role": "user", "quote": steps[last]["user"]}]
        if utterance.proposal:
            sources.insert(0, {"turn": 0, "role": "assistant", "quote": utterance.proposal})
        content = utterance.proposal or steps[last]["user"]
        # the title is the case id: the cross-repo invariant pairs cases and looks for one's texts in the
        # other, so a title shared by every case of a template would count as a leak it is not
        memories.append({"key": "m1", "kind": utterance.kind, "sources": sources, "title": case_id, "content": content})
    return Case.model_validate(
        {
            "id": case_id,
            "category": utterance.category,
            "language": utterance.language,
            "note": "generated",
            "steps": steps,
            "memories": memories,
            "expect": {
                "kinds": [utterance.kind] if utterance.kind else [],
                "forbidden_kinds": [] if utterance.kind else _PD,
            },
        }
    )


def generated_corpus(
    *, seed: int = DEFAULT_SEED, per_side: int = DEFAULT_PER_SIDE, folder: CorpusFolder | None = None
) -> Corpus:
    """The generated set, from the vocabulary of `folder` (the checkout's by default), as a corpus that
    `evaluate` runs like any other part."""
    vocab = load_vocab(folder)
    cases = [to_case(u, i) for i, u in enumerate(generate(seed=seed, per_side=per_side, vocab=vocab))]
    problems = [f"{case.id}: {p}" for case in cases for p in case_problems(case)]
    if problems:
        raise RuntimeError("the paraphrase generator built invalid cases: " + "; ".join(problems[:5]))
    version = f"{vocab['version']}.0.{seed}"
    return Corpus(
        version=version,
        changelog=[ChangelogEntry(version=version, date="generated", changes=f"seed {seed}, {per_side} per side")],
        cases=cases,
    )
