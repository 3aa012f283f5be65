"""A take-back that names the rule it cancels by the rule's own words ("release/1.8 只合 bug fix 那条取消",
"diff 那个不要了", "UI Toolkit 那个先不搞了").

Chinese shorthand names a standing rule by repeating a few of its words, points at it ("那条", "那个")
and cancels it in a short predicate that ends the phrase (at a space, a clause separator or the end).
The shape is read by structure, with the words of `takeback_words.json`:

- *the pointer*: one of the pointers, right after the named words, with at most one of the nouns
  that name the rule itself after it ("那条规则");
- *the predicate*: the non-space run after the pointer, its noun and leading fillers ("先", "就") dropped,
  that the lexicon reads as retiring and naming nothing else ("不要了", "不搞了", "作废") or that
  opens with a cancelling verb ("取消", "撤了");
- *the named words*: the whitespace-separated words before the pointer in its clause.

The pointer may also open the clause and the named words follow it up to a 的 that ends them, the
predicate right after ("那个 double 全换 float 的先撤了": the rule that holds "float").

In English the cancelling verb opens a short clause and at most three words after it (an article
passed over) name the rule, ending the clause ("forget the mailgun upgrade", "scrap polish."); a
clause the lexicon reads as retiring by itself ("forget the factory_boy rule") is left to it.

Without a pointer, a phrase of the clause (a whitespace-separated run of Chinese, not its first) that
is such a predicate by itself and opens with a negation or a cancelling verb ("算了 remote cache 先不搞了":
no longer done) names its rule by the words before it in the clause; an action done once ("把旧的 webhook
删掉", "revert to …") is no take-back, and such a take-back never stands beside a statement read in its
sentence (`supersede.py`).

`named_rule` then finds the rule a take-back names: the rule holding the longest run of the named
words that ends at the pointer (a word is held when the rule's quotes and content hold all its content
tokens; a word without content tokens is passed over) — at least one word — the latest on a tie. Words
the rule does not hold ("刚收到 苹果审核过了 release/1.8 只合 bug fix 那条取消": "苹果审核过了") end the run,
so the words of the report before the take-back never decide it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TypeVar

from autopatch_j.memory.contracts import CandidateOut
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.sentences import CJK_RUN, clauses, fold
from autopatch_j.memory.validation import RETIREMENT

T = TypeVar("T")
# A word named by a take-back this long or longer is looked for inside a rule's words too.
_SHARED_WORD_AT_LEAST = 3


@dataclass(frozen=True, slots=True)
class TakebackWords:
    pointers: re.Pattern[str]
    leading: re.Pattern[str]
    nouns: re.Pattern[str]
    negations: re.Pattern[str]
    fillers: re.Pattern[str]
    cancels: re.Pattern[str]
    verb_first: re.Pattern[str]


@lru_cache(maxsize=1)
def takeback_words() -> TakebackWords:
    """The words of `takeback_words.json`, one pattern per field (longest first)."""
    data = json.loads(resources.files("autopatch_j.memory").joinpath("takeback_words.json").read_text("utf-8"))
    if set(data) != {"note", "pointers", "nouns", "negations", "fillers", "cancels"} or any(
        set(data[k]) - {"zh", "en"} for k in data if k != "note"
    ):
        raise MemoryEngineError("takeback_words.json holds an unknown field or language.")

    def pattern(key: str, language: str | None = None) -> str:
        lists = [ws for lang, ws in data[key].items() if language in (None, lang)]
        words = sorted({fold(w) for ws in lists for w in ws}, key=len, reverse=True)
        return "|".join(re.escape(w) for w in words)

    return TakebackWords(
        pointers=re.compile(rf"\s*(?:{pattern('pointers')})\s*(?P<predicate>\S{{1,8}})(?=\s|$)"),
        leading=re.compile(rf"^\s*(?:{pattern('pointers')})\s*(?P<named>\S.*?)\s*的(?P<predicate>\S{{1,8}})(?=\s|$)"),
        nouns=re.compile(rf"^(?:{pattern('nouns')})"),
        negations=re.compile(rf"^(?:{pattern('negations')})"),
        fillers=re.compile(rf"^(?:{pattern('fillers')})+"),
        cancels=re.compile(rf"^(?:{pattern('cancels', 'zh')})"),
        verb_first=re.compile(
            rf"^(?:(?:ok|so|and|also|just|pls|please)\W+)*(?:{pattern('cancels', 'en')})\s+(?:the\s+)?"
            r"(?P<named>[\w./-]+(?:\s+[\w./-]+){0,2})\W*$"
        ),
    )


def named_words(lexicon: Lexicon, sentence: str, *, pointed: bool = False) -> list[str]:
    """The words a take-back in `sentence` names its rule by, nearest the pointer (or the predicate)
    last; [] when no clause of it has the shape (named words, pointer, cancelling predicate ending the
    phrase — or, failing that, named words and a Chinese phrase that is such a predicate and cancels
    or opens with a negation; with `pointed`, only the shape with a pointer)."""
    words = takeback_words()
    for start, end in clauses(sentence):
        clause = fold(sentence[start:end])
        for match in words.pointers.finditer(clause):
            predicate = words.fillers.sub("", words.nouns.sub("", match.group("predicate")))
            if not predicate or not (words.cancels.match(predicate) or _only_retires(lexicon, predicate)):
                continue
            named = [w for w in clause[: match.start()].split() if w]
            if any(lexicon.anchor_tokens(w) for w in named):
                return named
        leading = words.leading.match(clause)  # "那个 double 全换 float 的先撤了": the pointer first
        if leading is not None:
            predicate = words.fillers.sub("", leading.group("predicate"))
            named = leading.group("named").split()
            if (
                predicate
                and (words.cancels.match(predicate) or _only_retires(lexicon, predicate))
                and any(lexicon.anchor_tokens(w) for w in named)
            ):
                return named
        if pointed:
            continue
        # "forget the mailgun upgrade", "scrap polish." ("forget the X rule" is the lexicon's retirement)
        english = words.verb_first.match(clause)
        if english is not None and lexicon.anchor_tokens(english.group("named")) and not lexicon.retires(clause):
            return english.group("named").split()
        phrases = clause.split()
        for n, phrase in enumerate(phrases[1:], start=1):
            predicate = words.fillers.sub("", phrase)
            cancelling = CJK_RUN.fullmatch(predicate) and (
                words.cancels.match(predicate)
                or (words.negations.match(predicate) and _only_retires(lexicon, predicate))
            )
            if cancelling and any(lexicon.anchor_tokens(w) for w in phrases[:n]):
                return phrases[:n]
    return []


def _only_retires(lexicon: Lexicon, predicate: str) -> bool:
    """The predicate retires and names nothing besides ("不要了", "不搞了"; not "参数不要了")."""
    return bool(lexicon.retires(predicate)) and not lexicon.anchor_tokens(lexicon.retirements.blank(predicate))


def held_run(lexicon: Lexicon, named: Sequence[str], rule: str) -> int:
    """How many content words of `named`, from the pointer backwards, `rule` holds before one it does not."""
    held = lexicon.anchor_tokens(rule)
    run = 0
    for word in reversed(named):
        tokens = lexicon.anchor_tokens(word)
        if not tokens:
            continue
        if not tokens <= held:
            break
        run += 1
    return run


def joined_with_another(lexicon: Lexicon, sentence: str, quotes: Sequence[str]) -> bool:
    """The rule stored from `quotes` holds a clause that states a rule of its own (an explicit speech
    act) and none of the words of the take-back `sentence`: it was stored joined with another rule
    ("Mapper XML 一律放在 … 下面，禁止在 Mapper 接口上写 … 注解 SQL。"), and retiring it would retire that
    rule too. A reason given beside the rule ("…，我直接 git apply") states none, and a clause cut
    inside a name ("… TL;DR") holds the take-back's words."""
    named = lexicon.anchor_tokens(sentence)
    return any(
        lexicon.anchor_tokens(quote[a:b])
        and not lexicon.anchor_tokens(quote[a:b]) & named
        and lexicon.is_explicit(quote[a:b])
        for quote in quotes
        for a, b in clauses(quote)
    )


def named_rule(lexicon: Lexicon, sentence: str, rules: Sequence[T], text: Callable[[T], str]) -> T | None:
    """The rule of `rules` (in order; `text`: its quotes and content) that the take-back in `sentence`
    names: the longest held run of its named words, at least one, the later rule on a tie; None when
    `sentence` is no such take-back or no rule holds the word nearest its pointer."""
    named = named_words(lexicon, sentence)
    if not named:
        return None
    best: tuple[int, int] | None = None
    for n, rule in enumerate(rules):
        run = held_run(lexicon, named, text(rule))
        if run and (best is None or run >= best[0]):
            best = (run, n)
    return rules[best[1]] if best is not None else None


def names_unstored(lexicon: Lexicon, sentence: str, rules: Sequence[T], text: Callable[[T], str]) -> bool:
    """`sentence` takes back a rule it names by its words and a pointer (`named_words`, pointed: "之前說
    cards 要 pack together 的那條也取消") and no rule of `rules` (`text`: its quotes and content) says
    any of them — no Chinese character of the named words and no word of theirs of at least
    `_SHARED_WORD_AT_LEAST` letters, even inside a longer one ("MiniCluster" in
    "MiniClusterWithClientResource"): what it takes back or revises was never stored."""
    named = named_words(lexicon, sentence, pointed=True)
    if not named:
        return False
    chars = set("".join(CJK_RUN.findall("".join(named))))
    words = [w for w in re.findall(r"[a-z0-9_.-]+", " ".join(named)) if len(w) >= _SHARED_WORD_AT_LEAST]
    for rule in rules:
        said = fold(text(rule))
        if chars & set(said) or any(w in said for w in words):
            return False
    return True


def beside_statements(sentence: str, quoting: Sequence[CandidateOut]) -> bool:
    """A take-back `sentence` of one clause ("刚收到 苹果审核过了 release/1.8 只合 bug fix 那条取消 正常合吧")
    stands beside whatever statement was read in it (`quoting`): when that statement revises the rule,
    Stage 2 leaves the retirement nothing to retire (`supersede.SubjectReader.target`). A sentence with
    a clause of its own after the take-back ("Poetry 那个决定撤回了，team 最后 pick 了 uv。") states
    that: no retirement is added."""
    return len(clauses(sentence)) == 1 and all(
        c.kind != MemoryKind.DISCUSSION_CONTEXT.value and c.subject != RETIREMENT for c in quoting
    )
