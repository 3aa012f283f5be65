"""What a correction corrects (the offline extractor's Stage 1): the kind a correction or restatement
takes, the statement in view it quotes, and a correction marker spanning sentences.

A correction or restatement ("说错了，是 3 秒，不是 30 秒。", "Scratch that. …", "Let me restate that: …")
takes the kind of the statement in view that it corrects; one that names nothing of it quotes it too,
and one with nothing in view to correct is no statement (unless it names the switch itself: "之前说用
MySQL，现在改成 PostgreSQL。"). A correction marker spanning sentences ("Actually, I know Kotlin by now.
Skip the basics instead.") makes one statement of them, and a sentence explicit only by its revision
marker before the switch it carries over to gives the reason: the switch is the statement.
"""

from __future__ import annotations

from collections.abc import Callable

from autopatch_j.memory.contracts import CandidateOut
from autopatch_j.memory.lexicon import Lexicon, Subject
from autopatch_j.memory.records import Turn
from autopatch_j.memory.replacement import stemmed
from autopatch_j.memory.sentences import names_a_thing, split_sentences
from autopatch_j.memory.validation import MAX_CONTENT_CHARS


class CorrectionReader:
    """The correction rules over one lexicon."""

    def __init__(self, lexicon: Lexicon) -> None:
        self.lexicon = lexicon

    def judge(
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

    def span(self, turn_text: str, before: list[str], sentence: str) -> str:
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
