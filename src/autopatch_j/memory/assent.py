"""What an assent to an assistant proposal decides (the offline extractor's assent path).

The assistant answer just before a user turn proposes something (`Lexicon.proposals_in`); the user
turn may assent to it:

- a **bare assent** ("sure, go ahead", "可以", "yep that one", or an assent repeating only the
  proposal's words: "Yep, cap it at 100.") — the whole turn, or its first sentence when the turn
  goes on with statements of its own ("ok do it. and no pkg/errors ever again"; not with questions
  only: "ok. what does this do?" acknowledges) — decides the proposal: the memory quotes the
  proposal sentence(s) that *name* what is chosen and the assent;
- an **assent with its own content** ("yes, go with poetry, lock file committed", "可以，ruff 一家全包，
  black/isort/flake8 都删") is the user's own decision: its content is the user's sentence without
  the assent word, quoting the proposal it answers and the user's sentence;
- an **assent by quoting** ("> use pnpm workspaces — yes, that one"): the quoted line names the
  proposal sentence chosen, whatever else the answer proposed.

Which proposal sentence names the choice: the one quoted; else the one sharing the most content
words with the user's reply; else the first that names a thing (a Latin name, a code span, a
number) — the suggestion itself, not the rationale after it ("… because it keeps one lockfile").
The rest of the turn is read for statements as any other turn.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.replacement import names_in, stemmed
from autopatch_j.memory.sentences import CJK_RUN, fold, split_sentences

_QUOTE_LINE = re.compile(r"^[ \t]*>[ \t]?(.*)$", re.MULTILINE)
# A name as English writes it: a capital, a digit, a dot, a dash or an underscore in or at the start of it.
_NAME = re.compile(r"\b[A-Za-z][\w.+-]*[A-Z0-9._-][\w.+-]*\b|\b[A-Z][a-z]+\w*\b")
_LATIN = re.compile(r"[A-Za-z]{2,}")
_THING = re.compile(r"`[^`]+`|\d")
# Where an assent word may end: a word boundary of a leading run of words.
_WORD_END = re.compile(r"[\s,，。.!！:：;；—-]+")
_ASSENT_WORDS = 4
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MIN_QUOTED = 6
_TRIM = " \t\n,，。.!！:：;；—-"


@dataclass(frozen=True, slots=True)
class Assent:
    """What an assenting turn decides, and the turn's text left to read for statements (None: none)."""

    candidate: CandidateOut
    rest: Turn | None


@dataclass(frozen=True, slots=True)
class AssentReader:
    lexicon: Lexicon

    def read(self, turn: Turn, previous: Turn | None) -> Assent | None:
        """The decision `turn` makes by assenting to a proposal of `previous`'s answer, if any."""
        if previous is None or not previous.assistant_text:
            return None
        proposals = self.lexicon.proposals_in(previous.assistant_text)
        quoted, reply = self._quoted(turn.user_text, previous.assistant_text, proposals)
        if quoted:  # quoting a sentence of the answer proposes it, whatever its words
            turn = dataclasses.replace(turn, user_text=reply)
            proposals = [*quoted, *(p for p in proposals if p not in quoted)]
        if not proposals:
            return None
        if self._bare(reply, proposals, previous.assistant_text):
            chosen = quoted or self.chosen(proposals, reply)
            quote = _longest_piece(reply) if quoted else reply.strip()
            return Assent(self._decision(previous, chosen, turn, quote, " ".join(chosen)), None)
        sentences = split_sentences(reply)
        if not sentences:
            return None
        first = sentences[0]
        # "ok. what does the flaky test do?": an assent followed only by questions acknowledges
        asks_on = all(self.lexicon.is_question(s) for s in sentences[1:])
        if not asks_on and self._bare(first, proposals, previous.assistant_text):
            chosen = quoted or self.chosen(proposals, first)
            rest = _without(turn, first)
            return Assent(self._decision(previous, chosen, turn, first, " ".join(chosen)), rest)
        prefix = self.assent_prefix(first)
        own = first[len(prefix) :].strip(_TRIM)
        if not prefix or not self.lexicon.anchor_tokens(own) or not self.lexicon.passes_gates(first):
            return None
        if _not_deciding().search(fold(own)):
            return None  # "OK, thanks for explaining the decorator.", "好，我先看看 pnpm 的文档。"
        chosen = quoted or self.chosen(proposals, own)
        if not quoted and not stemmed(self.lexicon.anchor_tokens(own)) & stemmed(
            self.lexicon.anchor_tokens(" ".join(chosen))
        ):
            return None  # "ok. what about the cache?": the content answers nothing the proposal said
        return Assent(self._decision(previous, chosen, turn, first, own), _without(turn, first))

    def assent_prefix(self, sentence: str) -> str:
        """The leading assent of `sentence` ("ok", "yes,", "可以，", "行") — the shortest run of at most a
        few leading words that is a confirmation on its own — or ""."""
        for n, end in enumerate(_WORD_END.finditer(sentence)):
            if n >= _ASSENT_WORDS:
                break
            head = sentence[: end.end()]
            if head.strip(_TRIM) and self.lexicon.is_confirmation(head.strip(_TRIM)):
                return head
        return ""

    def chosen(self, proposals: list[str], reply: str) -> list[str]:
        """The proposal sentence naming what `reply` assents to (see the module docstring)."""
        words = stemmed(self.lexicon.anchor_tokens(reply))
        shared = [len(words & stemmed(self.lexicon.anchor_tokens(p))) for p in proposals]
        if max(shared, default=0) > 0:
            return [proposals[shared.index(max(shared))]]
        # The suggestion names a thing and stands on its own; the rationale after it points back ("It
        # keeps …", "这样 …"); the earliest of equals.
        ranked = max(
            range(len(proposals)),
            key=lambda n: (
                _names_a_thing(proposals[n]),
                not self.lexicon.points_back(proposals[n]),
                -n,
            ),
        )
        return [proposals[ranked]]

    def _bare(self, text: str, proposals: list[str], answer: str) -> bool:
        """An assent and nothing else, or one repeating only words of a proposal ("Yep, cap it at 100.")."""
        if self.lexicon.is_confirmation(text):
            return True
        # a name of its own ("yes, go with poetry, lock file committed") makes it the user's own decision
        lx = self.lexicon
        rest = lx.echo_fillers.blank(
            lx.confirmation_fillers.blank(lx.echo_assents.blank(lx.confirmations.blank(fold(text))))
        )
        names = names_in(lx.anchor_tokens(rest))
        return any(
            self.lexicon.is_echo_confirmation(text, p, turn=answer) and names <= names_in(self.lexicon.anchor_tokens(p))
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
            kind=MemoryKind(self.lexicon.proposal_kind(chosen[0])),
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
    if set(data) != {"note", "gratitude", "own_step"} or any(set(data[k]) - {"en", "zh"} for k in data if k != "note"):
        raise MemoryEngineError("assent_words.json holds an unknown category or language.")
    words = [w for key in ("gratitude", "own_step") for lang, ws in data[key].items() for w in ws]
    parts = [re.escape(fold(w)) if CJK_RUN.search(w) else rf"\b{re.escape(fold(w))}\b" for w in words]
    return re.compile("|".join(sorted(parts, key=len, reverse=True)))


def _names_a_thing(sentence: str) -> bool:
    """A code span, a number, a Latin word in a Chinese sentence, or a name in an English one."""
    if _THING.search(sentence):
        return True
    return bool(_LATIN.search(sentence)) if CJK_RUN.search(sentence) else bool(_NAME.search(sentence))


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
