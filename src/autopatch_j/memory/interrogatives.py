"""The interrogative form: a clause that asks, with or without a question mark.

A user often types a question without its mark ("are we actually exposed on 816", "LFS 按文件数收费还是
按大小"); read as a statement, it would be stored as a decision nobody made. The form is read from the
clause's structure, with closed word classes as data (`interrogatives.json`):

- English **subject–auxiliary inversion**: a clause opens (after at most two opening words such as
  "and", "ok", "so") with an auxiliary directly followed by a subject that can follow it — "are we",
  "is that", "did they", "should it", "has he". An auxiliary of "do" takes only a personal pronoun
  ("do that for every module" is an instruction), and a modal takes no "you" ("can you keep it short
  from now on" is a request, read elsewhere).
- Chinese **alternative question** "A 还是 B" whose halves are built alike: the character right after
  还是 is one the run of text right before it (back to a space) already holds ("缩略图按宽度切还是按高度
  切", "用redis还是用memcached"), or that run opens with 是 ("是走HTTP还是gRPC"). A repeated word of the closed
  class `zh_alternative_blank` ("这个还是这样处理") and a clause ending in 吧 settle rather than ask;
  "以后日志还是按天切" (nothing repeated) says what stays.
- English **question word before an inverted auxiliary**: a clause opens (after the same opening words)
  with a question word, an auxiliary and a subject or determiner — "how do we rotate the keys", "what
  is the default", "what's the retention". A relative "which is faster" has no subject after its
  auxiliary and asks nothing; a question word that can open a relative clause ("which", "who") asks
  only at the start of the sentence (", which is the default" is a relative clause).
- Chinese **A-not-A**: a character, 不 or 没, the same character ("默认开没开", "是不是太短",
  "要不要摘掉"), unless a concessive word opens the clause's condition ("不管是不是紧急修复都…").
- Chinese **closing particle** 吗 ("acks 配的 all 吗").
- Chinese **question word closing the clause**: a question word with at most two characters after it
  ("要重启 咋弄", "放哪", "要 3 秒 为什么"), unless it is indefinite — negated or after a demonstrative
  right before it ("没什么", "这几个"), taken up by 都/也 after it ("改什么都先提 PR"), one of a
  correlative pair ("谁提供谁维护", "改到哪算哪") — or a concessive word holds it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.sentences import CJK, clauses, fold

DATA_FILE = "interrogatives.json"

_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")
_OPENERS_AT_MOST = 2
_ALTERNATIVE = "还是"
_SETTLING_END = re.compile(r"吧[\s。.!！~～]*$")
_CJK_CHAR = re.compile(f"[{CJK}]")
_CLOSING = re.compile(r"[\s。.!！~～…]+$")
_AFTER_QUESTION_WORD_AT_MOST = 2


@dataclass(frozen=True, slots=True)
class Interrogatives:
    """`subjects_after[auxiliary]`: the subjects that make "auxiliary subject" an inverted question."""

    subjects_after: dict[str, frozenset[str]]
    openers: frozenset[str]
    zh_blank: frozenset[str]
    question_words: frozenset[str] = frozenset()
    relatives: frozenset[str] = frozenset()
    determiners: frozenset[str] = frozenset()
    zh_question_words: tuple[str, ...] = ()
    zh_particles: frozenset[str] = frozenset()
    zh_negators: frozenset[str] = frozenset()
    zh_indefinite_before: frozenset[str] = frozenset()
    zh_free_choice: frozenset[str] = frozenset()
    zh_concessive: tuple[str, ...] = ()
    zh_embedding: tuple[str, ...] = ()

    def asks(self, text: str) -> bool:
        """Some clause of `text` has the interrogative form (module docstring)."""
        folded = fold(text)
        return any(self._clause_asks(folded[a:b], folded[:a]) for a, b in clauses(folded))

    def yes_half(self, question: str) -> str:
        """The character a "yes" to the first A-not-A form of `question` repeats ("要" of "要不要加一个
        guard？", "开" of "开不开"), folded; "" when no clause asks by A-not-A."""
        folded = fold(question)
        for a, b in clauses(folded):
            body = _CLOSING.sub("", folded[a:b])
            at = self._a_not_a(body)
            if at >= 0 and not any(word in folded[:a] + body[:at] for word in self.zh_embedding):
                return body[at]
        return ""

    def _clause_asks(self, clause: str, before: str) -> bool:
        return (
            self._inverted(clause)
            or self._question_word_inverted(clause, len(before))
            or self._alternative(clause)
            or self._zh_asks(clause, before)
        )

    def _inverted(self, clause: str) -> bool:
        words = _WORDS.findall(clause[:80])
        for at in range(min(_OPENERS_AT_MOST, len(words)) + 1):
            if at and words[at - 1] not in self.openers:
                return False
            if at + 1 < len(words) and words[at + 1] in self.subjects_after.get(words[at], frozenset()):
                return True
        return False

    def _question_word_inverted(self, clause: str, clause_at: int) -> bool:
        words = _WORDS.findall(clause[:80])
        for at in range(min(_OPENERS_AT_MOST, len(words)) + 1):
            if at and words[at - 1] not in self.openers:
                return False
            if at < len(words) and self._asks_from(words, at, clause_at):
                return True
        return False

    def _asks_from(self, words: list[str], at: int, clause_at: int) -> bool:
        """`words[at]` is a question word followed by an auxiliary and what can be its subject."""
        word, _, clitic = words[at].partition("'")
        if word not in self.question_words or (clause_at and word in self.relatives):
            return False
        rest = words[at + 1 : at + 3]
        if clitic in ("s", "re"):  # "what's the", "where're we"
            return bool(rest) and self._subject(rest[0])
        return len(rest) == 2 and rest[0] in self.subjects_after and self._subject(rest[1])

    def _subject(self, word: str) -> bool:
        return word in self.determiners or any(word in subjects for subjects in self.subjects_after.values())

    def _alternative(self, clause: str) -> bool:
        at = clause.find(_ALTERNATIVE)
        if at <= 0 or _SETTLING_END.search(clause):
            return False
        half = clause[:at].split()  # the first half: the run of text right before 还是
        before = _CJK_CHAR.findall(half[-1]) if half else []
        after = _CJK_CHAR.search(clause[at + len(_ALTERNATIVE) :].lstrip()[:1])
        if not before:
            return False
        if before[0] == "是":
            return True
        return after is not None and after.group() in before and after.group() not in self.zh_blank

    def _zh_asks(self, clause: str, before: str) -> bool:
        if not _CJK_CHAR.search(clause) or any(word in clause for word in self.zh_concessive):
            return False
        body = _CLOSING.sub("", clause)
        if body[-1:] in self.zh_particles:
            return True
        at = max(self._a_not_a(body), self._closing_question_word(body))
        return at >= 0 and not any(word in before + body[:at] for word in self.zh_embedding)

    def _a_not_a(self, body: str) -> int:
        """Where an A-not-A form starts in `body` (-1: none)."""
        for at in range(1, len(body) - 1):
            first = body[at - 1]
            if (
                body[at] in self.zh_negators
                and first == body[at + 1]
                and _CJK_CHAR.match(first)
                and first not in self.zh_negators
                and body[at - 2 : at - 1] not in self.zh_negators  # "不对不对" repeats a negation
            ):
                return at - 1
        return -1

    def _closing_question_word(self, body: str) -> int:
        """Where a question word closing `body` starts (-1: none or indefinite)."""
        for word in self.zh_question_words:
            at = body.rfind(word)
            if at < 0:
                continue
            after = body[at + len(word) :]
            if len(_CJK_CHAR.findall(after)) > _AFTER_QUESTION_WORD_AT_MOST or _WORDS.search(fold(after)):
                continue
            if (at and body[at - 1] in self.zh_indefinite_before) or after.lstrip()[:1] in self.zh_free_choice:
                continue
            if body.find(word) < at:  # "谁提供谁维护", "改到哪算哪": a correlative pair
                continue
            return at
        return -1


@lru_cache(maxsize=1)
def default_interrogatives() -> Interrogatives:
    """The shipped closed classes (`interrogatives.json`)."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath(DATA_FILE).read_text(encoding="utf-8"))
    known = {
        "note",
        "auxiliaries",
        "subjects",
        "openers",
        "zh_alternative_blank",
        "question_words",
        "relatives",
        "determiners",
        "zh_question_words",
        "zh_particles",
        "zh_negators",
        "zh_indefinite_before",
        "zh_free_choice",
        "zh_concessive",
        "zh_embedding",
    }
    unknown = set(data) - known
    if unknown:
        raise MemoryEngineError(f"{DATA_FILE} holds unknown keys: {', '.join(sorted(unknown))}.")
    subjects_after: dict[str, frozenset[str]] = {}
    for group, auxiliaries in data["auxiliaries"].items():
        for auxiliary in auxiliaries:
            subjects_after[auxiliary] = frozenset(data["subjects"][group])
    return Interrogatives(
        subjects_after=subjects_after,
        openers=frozenset(data["openers"]),
        zh_blank=frozenset(data["zh_alternative_blank"]),
        question_words=frozenset(data["question_words"]),
        relatives=frozenset(data["relatives"]),
        determiners=frozenset(data["determiners"]),
        zh_question_words=tuple(sorted(data["zh_question_words"], key=len, reverse=True)),
        zh_particles=frozenset(data["zh_particles"]),
        zh_negators=frozenset(data["zh_negators"]),
        zh_indefinite_before=frozenset(data["zh_indefinite_before"]),
        zh_free_choice=frozenset(data["zh_free_choice"]),
        zh_concessive=tuple(data["zh_concessive"]),
        zh_embedding=tuple(data["zh_embedding"]),
    )
