"""The versioned zh/en lexicon (`lexicon.json`) behind the semantic gates and the offline extractor.

Version 3 holds *word classes* (`classes`: standing markers, collective subjects, verbs of
deciding, of adopting and of retiring, modal verbs, preference verbs, words addressing the agent,
the project's own artefacts) and states the categories as *structures* over them: a category's
pattern may name a class as `{class}`, e.g. `{collective}…{decide}` ("团队决定…", "our team agreed
to …") or `{modal}…{adopt}` ("新代码必须使用…", "All services must use …"). Every list lives in the
data file, never as scattered literals: speech acts, temporary expressions, undecided questions,
speculation, proposal signals, confirmations (and the filler words allowed around them), code-fact
patterns, kind hints, discussion markers, anchor stop words and the normalized subjects the offline
consolidator deduplicates by. Chinese entries match as substrings, English entries on word
boundaries (a spec with `"inflect": true` also in the regular forms of each entry's head word),
`patterns` are regular expressions; all on NFKC-casefolded text (what each version added is in
CHANGELOG.md). Beside the lists, a learned speech model (`speech_model.py`) reads a rule no marker
announces; the gates here still apply to it (docs/pipeline.md).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from autopatch_j.memory.phrases import PhraseSet, alternation
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.sentences import CJK, CJK_RUN, NUMBER, WORD, fold, names_a_thing, split_sentences
from autopatch_j.memory.sentences import clauses as clause_spans
from autopatch_j.memory.speech_model import SpeechModel, default_speech_model

LEXICON_FILE = "lexicon.json"
_QUESTION_END = re.compile(r"([?？]|[吗呢嘛][\s。.!！]*)\s*$")
_LEFTOVER = re.compile(r"[\s\W_]+", re.UNICODE)
# A Chinese yes/no question asks "A 不 A" ("要不要…", "行不行"); answering with A says yes ("要。").
_A_NOT_A = re.compile(f"([{CJK}]{{1,2}}?)不\\1")
# What a question points back with ("make that the rule", "就这样定下来").
_ANAPHOR = re.compile(r"\b(?:that|this|it|so)\b|这样|这么|这个|那样")
# A demonstrative subject: the sentence names what it speaks of elsewhere ("That's …", "这就是…").
_POINTS_OUTSIDE = re.compile(r"\W*(?:(?:that|this|it)(?:'s|’s|\s+is|\s+was)\b|(?:这|那)(?:个|条)?(?:就|也)?是)")
# Below this distance from 0 or 1 the learned kind overrules the kind rule's hints (statement_kind).
_KIND_DOUBT = 0.02
_CLAUSE = re.compile(r"[,，.。!！;；:：、—–]+|\s-\s")


def _fits_slack(text: str, words: int, chars: int) -> bool:
    """At most `words` Latin words and `chars` CJK characters, and not empty."""
    n_words = len(WORD.findall(text))
    n_chars = sum(len(run) for run in CJK_RUN.findall(text))
    return n_words <= words and n_chars <= chars and n_words + n_chars > 0


@dataclass(frozen=True, slots=True)
class Subject:
    """A normalized subject ("python_version") with its bilingual title and retrieval keywords."""

    key: str
    kind: MemoryKind
    title_zh: str
    title_en: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lexicon:
    version: int
    speech_acts: PhraseSet
    temporary: PhraseSet
    milestone_scopes: PhraseSet
    open_scopes: PhraseSet
    undecided: PhraseSet
    settled_deliberation: PhraseSet
    speculation: PhraseSet
    prohibited_hedges: PhraseSet
    proposal_signals: PhraseSet
    confirmations: PhraseSet
    confirmation_fillers: PhraseSet
    confirmation_blockers: PhraseSet
    settling_assents: PhraseSet
    fault_negations: PhraseSet
    code_facts: PhraseSet
    preference_hints: PhraseSet
    addressed_hints: PhraseSet
    decision_hints: PhraseSet
    norm_hints: PhraseSet
    topic_hints: PhraseSet
    scope_hints: PhraseSet
    switch_markers: PhraseSet
    conduct_hints: PhraseSet
    discussion_markers: PhraseSet
    corrections: PhraseSet
    affirmations: PhraseSet
    extensions: PhraseSet
    echo_fillers: PhraseSet
    echo_assents: PhraseSet
    answer_topics: PhraseSet
    requests: PhraseSet
    asked_for_me: PhraseSet
    codebase_hints: PhraseSet
    instruction_hints: PhraseSet
    agent_hints: PhraseSet
    weighing: PhraseSet
    weighing_requested: PhraseSet
    ratifications: PhraseSet
    project_hints: PhraseSet
    adopted: PhraseSet
    alternatives: PhraseSet
    personal_ratifications: PhraseSet
    recall_questions: PhraseSet
    tag_questions: PhraseSet
    retirements: PhraseSet
    replaced_markers: PhraseSet
    anchor_blanks: PhraseSet
    standing: PhraseSet  # the classes `standing` ("from now on", "以后…都") and `defaults` ("默认",
    defaults: PhraseSet  # "by default"), for the order of the gates
    anchor_stopwords: frozenset[str]
    subjects: tuple[Subject, ...]
    function_characters: frozenset[str] = frozenset()
    slack_words: int = 0
    slack_chars: int = 0
    clause_words: int = 0
    clause_chars: int = 0
    # the learned reading of explicit speech (speech_model.py), loaded on first use
    speech: Callable[[], SpeechModel] | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Lexicon:
        classes: dict[str, str] = {}
        for class_name, spec in data.get("classes", {}).items():  # a class may use the classes before it
            classes[class_name] = alternation(spec, classes)
        sets = {name: PhraseSet.build(name, data.get(name, {}), classes) for name in _CATEGORIES}
        # Anchors drop the words of the speech-act classes and phrase lists, never a structure's span.
        words = [data.get(name, {}) for name in ("speech_acts", "temporary", "confirmations", "proposal_signals")] + [
            data["classes"][name] for name in data.get("anchor_blank_classes", [])
        ]
        blanks = {
            "zh": [w for spec in words for w in spec.get("zh", [])],
            "en": [w for spec in words for w in spec.get("en", [])],
        }
        sets["anchor_blanks"] = PhraseSet.build("anchor_blanks", blanks)
        for name in ("standing", "defaults"):
            sets[name] = PhraseSet.build(name, data.get("classes", {}).get(name, {}), classes)
        subjects = tuple(
            Subject(
                key=s["key"],
                kind=MemoryKind(s["kind"]),
                title_zh=s["title_zh"],
                title_en=s["title_en"],
                pattern=re.compile("|".join(f"(?:{p})" for p in s["patterns"])),
                keywords=tuple(s["keywords"]),
            )
            for s in data.get("subjects", [])
        )
        slack = data.get("confirmation_slack", {})
        return cls(
            version=int(data["version"]),
            slack_words=int(slack.get("latin_words", 0)),
            slack_chars=int(slack.get("cjk_chars", 0)),
            clause_words=int(slack.get("clause_latin_words", 0)),
            clause_chars=int(slack.get("clause_cjk_chars", 0)),
            anchor_stopwords=frozenset(fold(w) for w in data.get("anchor_stopwords", [])),
            function_characters=frozenset(data.get("function_characters", "")),
            subjects=subjects,
            speech=None,
            **sets,
        )

    # -- single-quote judgements --------------------------------------------------------------

    def is_explicit(self, text: str) -> bool:
        """Carries an explicit zh/en speech act ("以后", "from now on", "let's use" …), a correction
        ("Scratch that", "说错了") or an affirmation of a rule ("that's the rule", "以这个为准")."""
        folded = fold(text)
        return self.speech_acts.search(folded) or self.corrections.search(folded) or self.affirmations.search(folded)

    def points_back(self, text: str) -> bool:
        """Refers to what was just said ("that", "this", "it", 这样, 这个)."""
        return bool(_ANAPHOR.search(fold(text)))

    def left_to_the_model(self, text: str) -> bool:
        """No listed marker says whether `text` states a rule, and its subject is its own: a sentence
        whose subject points outside it ("That's the rule I read in the old wiki.", "这就是…") has no
        rule of its own words to read. The speech model decides these (and its trainer measures them)."""
        return not self.is_explicit(text) and not _POINTS_OUTSIDE.match(fold(text))

    def reads_as_statement(self, text: str) -> bool:
        """No listed marker, but the learned speech model reads a standing rule in the sentence's own
        words ("All services log in structured JSON to stdout; …"); the gates still apply."""
        return self.speech is not None and self.left_to_the_model(text) and self.speech().states(text)

    def explicit_beyond_correction(self, text: str) -> bool:
        """Explicit on more than a correction marker: "Scratch that, I was wrong about the stack trace."
        is not, "Scratch that — we're moving the API gateway to Envoy." is."""
        folded = fold(text)
        return self.speech_acts.search(folded) or self.affirmations.search(folded)

    def is_temporary(self, text: str) -> bool:
        """Scoped to the session, the day or the run ("今天先这样", "for today's bench run only"). An
        open marker ("先这样", "for now") whose end is a project milestone ("量产前先这样", "until
        launch, … for now") scopes a standing decision instead, unless another marker ends it sooner."""
        folded = fold(text)
        if not self.temporary.search(folded):
            return False
        return not self.milestone_scopes.search(folded) or self.temporary.search(self.open_scopes.blank(folded))

    def scoped_to_milestone(self, text: str) -> bool:
        """Names a project milestone as the end of a scope ("量产前", "第一版先这样", "until launch")."""
        return self.milestone_scopes.search(fold(text))

    def is_question(self, text: str) -> bool:
        """An undecided question: ends like a question, asks whether ("要不要", "should we"), or weighs
        options ("pros and cons", "权衡") — unless listing them is what is asked for ("先列 trade-offs").
        A polite request for a standing rule ("Could you … from now on?", "能不能以后…？") is none."""
        folded = fold(text).strip()
        if self.requests.search(folded):
            return False  # "Could you keep explanations short from now on?" asks for a standing rule
        untagged = self.tag_questions.blank(folded).strip()  # "Do that for me going forward, yeah?" asks nothing
        if untagged != folded and not self.instruction_hints.search(untagged):
            return True  # "By default this client retries three times, right?" asks whether it does
        # "We're done debating it:", "别再纠结了", "看得我更纠结": a deliberation ended or felt asks nothing
        folded = self.settled_deliberation.blank(untagged)
        if _QUESTION_END.search(folded) or self.undecided.search(folded):
            return True
        # Weighing options is undecided, unless the weighing is what is asked for ("…先列 trade-offs").
        return self.weighing.search(folded) and not self.weighing_requested.search(folded)

    def is_speculative(self, text: str) -> bool:
        """Hedges ("也许", "I guess") — not a hedge the rule prohibits ("别上来就猜", "don't guess")."""
        return self.speculation.search(self.prohibited_hedges.blank(fold(text)))

    def is_code_fact(self, text: str) -> bool:
        """States how the code or build is configured now ("pom.xml 里现在配置的是 Java 17")."""
        return self.code_facts.search(fold(text))

    def has_proposal_signal(self, text: str) -> bool:
        return self.proposal_signals.search(fold(text))

    def proposals_in(self, assistant_text: str) -> list[str]:
        """The sentences of an assistant turn that propose something: those with a proposal signal and
        content, where a question that only points back ("My recommendation: … . Should we make that
        the rule?", "…。要不要就这样定下来？") stands for the sentence before it, and one that points back
        with words of its own ("… . Want to make that the standard for our Dockerfiles?") is quoted
        with it."""
        sentences = split_sentences(assistant_text)
        found: list[str] = []
        for n, sentence in enumerate(sentences):
            before = sentences[n - 1] if n else ""
            if found and found[-1] == before and self._asks_back(sentence) and not self.only_points_back(sentence):
                # "We could pin … . Want to make that the rule for our Helm charts?": one proposal quoting
                # both sentences (the question adds where it applies).
                start = assistant_text.find(before)
                found[-1] = assistant_text[start : assistant_text.find(sentence, start) + len(sentence)]
                continue
            if not self.has_proposal_signal(sentence):
                continue
            if before and self.only_points_back(sentence) and self.anchor_tokens(before):
                sentence = before  # "… I can end every explanation with a recap. Shall I do that from now on?"
            elif not self.anchor_tokens(sentence):
                continue
            if sentence not in found:
                found.append(sentence)
        return found

    def _asks_back(self, sentence: str) -> bool:
        folded = fold(sentence).strip()
        return bool(_QUESTION_END.search(folded) and _ANAPHOR.search(folded))

    def only_points_back(self, sentence: str) -> bool:
        """A question pointing back with few words of its own ("Shall we adopt that?"): it stands for
        the sentence before it."""
        return self._asks_back(sentence) and len(self.anchor_tokens(sentence)) <= 2

    def is_confirmation(self, text: str) -> bool:
        """Confirmation phrases and fillers, with at most a word of slack ("同意", "好的，就这么办",
        "Perfect, let's go that way.") or, clause by clause, a word or two of evaluation beside the
        assent ("Makes sense. Do it.", "挺合适的，用它。", "可以，这样清楚多了。", "没毛病，就这样。"); nothing
        left that negates, doubts, defers or asks."""
        folded = fold(text)
        if not _LEFTOVER.sub("", folded) or not (
            self.confirmations.search(folded) or self.fault_negations.search(folded)
        ):
            return False  # a fault negated is assent by itself ("没毛病，定了。", "No objection.")
        rest = self.confirmation_fillers.blank(self.confirmations.blank(folded))
        if not _LEFTOVER.sub("", rest):
            return True
        # A fault negated is praise ("没毛病", "no objection"); what is left may not negate or doubt.
        rest = self.fault_negations.blank(rest)
        if self.confirmation_blockers.search(rest) or _QUESTION_END.search(folded.strip()):
            return False
        if _fits_slack(rest, self.slack_words, self.slack_chars):
            return True
        # An evaluation names no value: "Sure, 200 is fine." after "cap it at 100" proposes another.
        clauses = [c for c in _CLAUSE.split(rest) if _LEFTOVER.sub("", c)]
        return not NUMBER.search(rest) and all(_fits_slack(c, self.clause_words, self.clause_chars) for c in clauses)

    def is_discussion(self, text: str) -> bool:
        """Weighs options: a comparison marker, unless it is a yes/no musing ("monorepo 值不值得折腾，…
        分析下利弊", "纠结要不要加一层 GraphQL") that names no alternatives."""
        folded = fold(text)
        if not self.discussion_markers.search(folded) or self.recall_questions.search(folded):
            return False  # "What did we conclude about sessions vs JWT?" recalls; it weighs nothing
        return not (_A_NOT_A.search(folded) and not self.alternatives.search(folded))

    def supports_statement(self, text: str) -> bool:
        """A user quote that can carry a preference or decision on its own words."""
        return self.is_explicit(text) and self.passes_gates(text)

    def _asks_the_assistant(self, text: str) -> bool:
        """A standing instruction for the user (给我/帮我/for me) or a polite request to the assistant:
        its "could"/"可能" hedge the object or the politeness, not the rule."""
        folded = fold(text)
        return self.asked_for_me.search(folded) or self.requests.search(folded)

    def passes_gates(self, text: str, *, by_clause: bool = False) -> bool:
        """Not temporary, not an undecided question, not speculation, not a current code fact. A hedge
        inside a standing instruction or a polite request to the assistant ("以后帮我看 SQL 的时候，顺便
        指出哪些 query 可能全表扫描", "Could you keep explanations short from now on?") hedges its object
        or its politeness, not the instruction. A standing marker says a sentence is no description of
        the code as it is ("From now on every base image is pinned to a SHA.", "以后 action 都 pin 到
        commit SHA，上个月吃过亏"): the code-fact gate loses to it — but not to the markers of a default
        ("默认", "by default"), which describe configured code as often — and the other three gates
        never do ("如果以后…" stays hypothetical). With `by_clause` the code-fact gate reads each clause:
        a sentence with one clause that describes no code passes it (a retirement giving its reason,
        "预发冒烟那条规矩取消吧，大家反馈太拖了")."""
        return (
            not self.is_temporary(text)
            and not self.is_question(text)
            and (not self.is_speculative(text) or self._asks_the_assistant(text))
            and (
                not self.is_code_fact(text)
                or bool(self.standing.search(self.defaults.blank(fold(text))))
                or (by_clause and any(not self.is_code_fact(text[a:b]) for a, b in clause_spans(text)))
            )
        )

    # -- content anchors ------------------------------------------------------------------------

    def anchor_tokens(self, text: str) -> frozenset[str]:
        """Content words of `text` without speech acts, hedges and confirmations: Latin words and CJK bigrams."""
        folded = self.anchor_blanks.blank(fold(text))
        tokens = {w for w in WORD.findall(folded) if len(w) >= 2 and w not in self.anchor_stopwords}
        for run in CJK_RUN.findall(folded):
            tokens.update(run[i : i + 2] for i in range(len(run) - 1))
        return frozenset(tokens)

    def spans_two_words(self, word: str) -> bool:
        """A CJK bigram holding a function character ("率的", "就失"): it spans two words."""
        return not word.isascii() and bool(self.function_characters & set(word))

    def keyword_order(self, word: str) -> tuple[bool, int, str]:
        """Sort key of a memory's own words as keywords (bounded): longest first, bigrams that span two
        words after the ones that do not."""
        return (self.spans_two_words(word), -len(word), word)

    def anchored(self, content: str, quote: str) -> bool:
        """`content` shares at least one content word with `quote`."""
        return bool(self.anchor_tokens(content) & self.anchor_tokens(quote))

    def kind_hint(self, text: str) -> MemoryKind:
        """'user_preference' or 'project_decision' for an explicit statement without a known subject.

        The kind rule (docs/pipeline.md), first match wins, on the text without its correction
        markers ("我重新说一下", "I misspoke" say nothing of whose rule it is): a collective decision
        ("我们决定…", "团队…改用…", "let's …", "we will …") → decision; the user speaking of themselves
        or to the assistant (我/你, I/you, "I'd rather …") → preference; a norm on a thing ("新代码必须使用…",
        "All services must use …") or a rule located in the code ("代码里的 log message 一律…") →
        decision; a topic of answering (回答, 格式, examples …) → preference; the project's own artefacts
        or a switch of tool → decision; weak topic words (格式, 中文) → preference; a standing or bare
        imperative instruction ("以后跑测试先跑单测再跑集成", "Never use wildcard imports.") → preference; a
        rule that names a concrete thing ("单元测试覆盖率的门槛定成 90%", "HTTP 客户端就用 httpx") →
        decision; anything else → preference.
        """
        folded = self.without_corrections(text)
        for hints, kind in self._kind_hints():
            if hints.search(folded):
                return kind
        # A standing or bare imperative instruction ("以后变量名别用缩写", "Never use wildcard imports.")
        # tells the assistant how to work for this user; a rule that names a concrete thing and
        # addresses no one ("HTTP 客户端就用 httpx", "门槛定成 90%", "no more Friday deploys") is the
        # project's; anything else stays a preference.
        if self.instruction_hints.search(folded) or not names_a_thing(text):
            return MemoryKind.USER_PREFERENCE
        return MemoryKind.PROJECT_DECISION

    def _kind_hints(self) -> tuple[tuple[PhraseSet, MemoryKind], ...]:
        return (
            (self.decision_hints, MemoryKind.PROJECT_DECISION),
            (self.addressed_hints, MemoryKind.USER_PREFERENCE),
            (self.preference_hints, MemoryKind.USER_PREFERENCE),
            (self.norm_hints, MemoryKind.PROJECT_DECISION),
            (self.codebase_hints, MemoryKind.PROJECT_DECISION),
            (self.topic_hints, MemoryKind.USER_PREFERENCE),
            (self.scope_hints, MemoryKind.PROJECT_DECISION),
            (self.agent_hints, MemoryKind.USER_PREFERENCE),
        )

    def names_an_owner(self, text: str) -> bool:
        """Says whose rule it is: a collective decision, the user or the assistant ("plain-text log
        lines won't pass review anymore." says no one's)."""
        folded = self.without_corrections(text)
        owners = (self.decision_hints, self.addressed_hints, self.preference_hints, self.agent_hints)
        return any(hints.search(folded) for hints in owners)

    def statement_kind(self, text: str, subject: Subject | None) -> MemoryKind:
        """The kind of an explicit statement: its subject's kind, unless it is a standing instruction
        addressed to the assistant for this user ("以后给我的示例代码都用 Python 3.12 的语法", "From now on,
        use pytest fixtures …", "Going forward, don't suggest …": a standing marker with 给我/for me, or
        followed by a bare imperative in a sentence naming no project artefact, or by a verb of the
        assistant's conduct toward the user) and no collective decision — then a preference."""
        folded = self.without_corrections(text)
        if self.addressed_hints.search(folded) and not self.decision_hints.search(folded):
            return MemoryKind.USER_PREFERENCE
        if subject is None:
            if self.speech is not None:
                # No marker said whose rule it is, or the learned kind is all but certain (out of fold,
                # at ≤ 0.02 or ≥ 0.98 it was right on 1,063 of 1,063 dev statements): it decides.
                decision = self.speech().decision_probability(text)
                if self.reads_as_statement(text) or not _KIND_DOUBT < decision < 1 - _KIND_DOUBT:
                    return MemoryKind.PROJECT_DECISION if decision >= 0.5 else MemoryKind.USER_PREFERENCE
            return self.kind_hint(text)
        # A subject's kind is its usual one; a rule it states for the project's own artefacts
        # ("项目代码缩进统一用 Tab" under indentation) is the project's.
        if subject.kind is MemoryKind.USER_PREFERENCE and self.project_hints.search(folded):
            return MemoryKind.PROJECT_DECISION
        # A project subject's rule for the examples the assistant writes this user ("以后 code example 都用
        # Java 21 的写法") is how the agent answers: a preference. The subject's own words ("Java 21")
        # name no project scope here.
        if subject.kind is MemoryKind.PROJECT_DECISION and self._about_answers(subject.pattern.sub(" ", folded)):
            return MemoryKind.USER_PREFERENCE
        return subject.kind

    def proposal_kind(self, proposal: str) -> MemoryKind:
        """The kind of a confirmed assistant proposal: a standing promise about the assistant's own
        conduct ("How about I always run clippy first?", "要不我以后每次改完都先跑测试？") or a proposal about
        how the assistant answers ("要不要以后回答都先给结论？") that names no project artefact, switch or
        norm is how the agent works for this user — a preference; any other proposal is a project
        decision."""
        folded = fold(proposal)
        if self.conduct_hints.search(folded):
            return MemoryKind.USER_PREFERENCE
        return MemoryKind.USER_PREFERENCE if self._about_answers(folded) else MemoryKind.PROJECT_DECISION

    def _about_answers(self, folded: str) -> bool:
        """About how the assistant answers (回答, 示例, examples …), naming no decision, norm or scope."""
        return self.answer_topics.search(folded) and not any(
            hints.search(folded) for hints in (self.decision_hints, self.norm_hints, self.scope_hints)
        )

    def is_switch(self, text: str) -> bool:
        """Replaces or retires something ("改用 Vue，不用 React 了", "switch to Vue instead of React")."""
        return self.switch_markers.search(fold(text))

    def is_correction(self, text: str) -> bool:
        """Corrects or reverses an earlier statement ("说错了，是 3 秒", "Scratch that", "Update on that:")."""
        return self.corrections.search(fold(text))

    def without_corrections(self, text: str) -> str:
        """`text` (folded) without its correction and affirmation markers ("我重新说一下", "I misspoke"
        say nothing of whose rule it is)."""
        return self.affirmations.blank(self.corrections.blank(fold(text)))

    def is_affirmation(self, text: str) -> bool:
        """Restates or affirms a rule ("Let me restate that:", "that's the rule", "以这个为准")."""
        return self.affirmations.search(fold(text))

    def opens_correction(self, turn_text: str, sentence: str) -> bool:
        """`sentence` (or a quote) follows, in the same turn, nothing but a correction or affirmation
        marker ("Scratch that. After the meeting we switched to PostgreSQL …", "算了，还是用中文回答我"):
        the marker carries over."""
        before = turn_text[: max(turn_text.find(sentence), 0)]
        if not before.strip() or not self.is_explicit(before):
            return False
        if not self.anchor_tokens(self.without_corrections(before)):
            return True
        # A revision opening the turn carries over a reason to the switch after it ("Change of heart —
        # GitBook's pricing is nuts. Docs go on Read the Docs instead.").
        folded = fold(before)
        opening = self.corrections.regex.search(folded) if self.corrections.regex else None
        return bool(opening and self.is_switch(sentence) and not self.anchor_tokens(folded[: opening.start()]))

    def adopted_values(self, text: str) -> set[str]:
        """The Chinese words a verb of adopting takes ("中文" in "代码注释用中文写", "vitest" is Latin and
        not among them): the first two characters of the CJK run right after it."""
        regex = self.adopted.regex
        if regex is None:
            return set()
        folded = fold(text)
        found = (CJK_RUN.match(folded, m.end()) for m in regex.finditer(folded))
        return {run.group()[:2] for run in found if run and len(run.group()) >= 2}

    def ratified_kind(self, text: str) -> MemoryKind | None:
        """The kind a sentence that only ratifies the one before it gives that one: a group settled it
        ("Team decision.", "That's the team standard.", "组里都同意了。") — a project decision; the user
        owns it ("That's how I like it, always.", "这是我的习惯。") — a preference; else None."""
        folded = fold(text).strip()
        if self.ratifications.search(folded):
            return MemoryKind.PROJECT_DECISION
        return MemoryKind.USER_PREFERENCE if self.personal_ratifications.search(folded) else None

    def retires(self, clause: str) -> bool:
        """A clause that retires something and adopts nothing ("Swagger UI 不要了", "Scrap the Jest
        thing", "前面说的 SQLAlchemy 不算了", "RabbitMQ 以后不用了")."""
        folded = fold(clause)
        return self.retirements.search(folded) and not self.adopted.search(folded)

    def replaced_part(self, clause: str) -> tuple[int, str]:
        """Where in `clause` a marker of what it replaces starts ("instead of", "rather than", "而不是" …)
        and the words after it, folded ("every other thursday" in "we're shipping every Monday instead
        of every other Thursday"); (-1, "") when it names nothing it replaces."""
        folded = fold(clause)
        found = self.replaced_markers.regex.search(folded) if self.replaced_markers.regex else None
        if found is None:
            return -1, ""
        return (found.start() if len(folded) == len(clause) else -1), folded[found.end() :]

    def is_aside(self, clause: str) -> bool:
        """A clause that states no rule: no speech act, no switch, no verb of adopting ("Prisma 的
        migration 太难控制", "tables are hard to read on my phone")."""
        return not (self.is_explicit(clause) or self.is_switch(clause) or self.adopted.search(fold(clause)))

    def is_extension(self, text: str) -> bool:
        """Extends the statement before it instead of making a new one ("That applies to every answer.",
        "这条也适用于…")."""
        return self.extensions.search(fold(text))

    def statement_in_turn(self, turn_text: str, sentence: str) -> bool:
        """A user sentence that can carry a preference or decision: on its own words (a listed marker,
        or the speech model's reading), or as the content of a correction marker that opens its turn."""
        explicit = (
            self.is_explicit(sentence)
            or self.opens_correction(turn_text, sentence)
            or self.reads_as_statement(sentence)
        )
        return explicit and self.passes_gates(sentence)

    def is_echo_confirmation(self, text: str, proposal: str, *, turn: str = "") -> bool:
        """Assent with nothing but words of the proposal it confirms ("Yep, cap it at 100." after "We
        could cap every API page size at 100 items", "pnpm, yes.", "ruff it is.", "要。" after "要不要…"):
        an assent word (anywhere) or the answer to the proposal's "A 不 A" question (in the proposal or
        elsewhere in its assistant `turn`; "要，定下来。": the answer with a verb of deciding), nothing that
        negates, defers or asks, and at least three quarters of the other content words (light verbs and
        demonstratives aside) are words of the proposal."""
        folded = fold(text)
        if self.is_question(text) or self.is_temporary(text):
            return False
        # The "A 不 A" question may stand apart in the proposal's `turn` ("…。要不要定成团队规范？").
        asked = _A_NOT_A.search(fold(proposal)) or _A_NOT_A.search(fold(turn))
        if asked:  # "要。", "要的要的，往后都这么讲。" after "要不要…？"
            answer = re.sub(f"(?:那就|就)?{re.escape(asked.group(1))}(?:的|吧|啊|呀)?", " ", folded)
            rest = _LEFTOVER.sub("", self.confirmation_fillers.blank(answer))  # "要的，谢谢"
            # "要，定下来。": the answer and a verb of deciding
            if answer != folded and (not rest or self.is_confirmation(answer) or self.settling_assents.search(rest)):
                return True
        if not (self.confirmations.search(folded) or self.echo_assents.search(folded)):
            return False
        rest = self.echo_fillers.blank(
            self.confirmation_fillers.blank(self.echo_assents.blank(self.confirmations.blank(folded)))
        )
        if self.confirmation_blockers.search(rest):
            return False
        words = self.anchor_tokens(rest)
        # Three quarters, not all: a Chinese echo re-cuts the proposal's phrase ("抽到装饰器里" after
        # "抽到一个装饰器里" has the bigram 到装 the proposal has not).
        return 4 * len(words & self.anchor_tokens(proposal)) >= 3 * len(words)

    def subject_of(self, text: str) -> Subject | None:
        folded = fold(text)
        for subject in self.subjects:
            if subject.pattern.search(folded):
                return subject
        return None


#: The categories read from the data file: every `PhraseSet` field but the derived `anchor_blanks`.
_CATEGORIES = tuple(
    f.name for f in fields(Lexicon) if f.type == "PhraseSet" and f.name not in ("anchor_blanks", "standing", "defaults")
)


def load_lexicon_file(path: Path) -> Lexicon:
    return Lexicon.from_data(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The lexicon shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    return dataclasses.replace(Lexicon.from_data(json.loads(text)), speech=default_speech_model)
