"""What the user adopts of someone else's message quoted in the turn (the relay path of Stage 1).

A message the user pastes with a quote marker and that is no slice of the assistant's answer
(`blocks.quoted_rows`: "> 张工：以后数据库迁移一律用 Flyway …", an e-mail's "> …" lines) is material,
and so is a document the user pastes (`documents.py`: a forwarded message, a standard, minutes): it
never states anything of the user's. What the user writes after it is the user's own words. It
adopts the message when

- the message states something: the sentence reader (`reader.py`), reading the message as if it were
  a user turn, reads at least one of its sentences as a preference or decision with at least
  `EVIDENCE_THRESHOLD` (a report — "I moved the index yesterday, my bad" — proposes nothing), and
- the user's prose after the message assents to it the way a reply assents to an assistant proposal
  (`AssentReader.reply` with the message in place of the answer: "agreed, do that.", "ok 就这么定了",
  "同意，就这么办"); an assent with content of its own must share a word with the message ("ok so not
  our bug" answers nothing it said) — or, with no assent word, its first sentence names the message's
  sender and the reader reads it, in its turn, as a statement ("就按刘总这个来").

The decision is then the message's: the kind its words give (`Lexicon.proposal_kind`), the content
its stated sentences without the sender's label ("张工：") — or, for an assent with content of its own
("yes, and the same for the mobile repo"), the user's words — and the sources are the stated
sentences and the user's assent, all quoted from the user's turn. Prose before the message never
answers it, and neither does prose after another paste below it (a report line and a code block
between the message and "is he right"): the reply is the prose right under the message.

A document pasted in the turn before is adopted by number too (`RelayReader.items`): the first sentence
of the turn pointing at its numbered items ("纪要第一、三项已经确认，按此执行", "第 3 条、第 5 条适用于本项目",
"items 1 and 3 apply") that is an assent or that the sentence reader reads as a statement makes one
decision per item, the item's words, quoting the item and the sentence.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from autopatch_j.memory.assent import Assent, AssentReader
from autopatch_j.memory.blocks import LIST_ITEM, QUOTE_MARK, is_header
from autopatch_j.memory.contracts import CandidateOut, SourceOut
from autopatch_j.memory.reader import EVIDENCE_THRESHOLD, STATEMENTS, ReaderModel, default_reader_model, turn_features
from autopatch_j.memory.records import MemoryKind, Turn
from autopatch_j.memory.replacement import stemmed
from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.structure import Line, parse

# The sender's label opening a message ("张工：", "Dana:"), as the assent path strips a lead label.
_SENDER = re.compile(r"^\s*[^\s:：]{1,12}[:：]\s*(?=\S)")


@dataclass(frozen=True, slots=True)
class RelayReader:
    assent: AssentReader
    reader: ReaderModel | None = None  # None: the shipped one

    def read(self, raw_turn: Turn, turn: Turn, answer: str) -> Assent | None:
        """The decision the prose of `turn` (the prose of `raw_turn`, its RAW text) makes by assenting
        to the last message quoted from someone else in it; `answer`: the assistant's answer before
        the turn, "" for none."""
        message, end = relayed_message(raw_turn.user_text, answer)
        stated = self.stated(message)
        if not stated:
            return None
        following = [ln for ln in parse(raw_turn.user_text, answer).lines if ln.start > end and ln.text.strip()]
        if not following or following[0].label != "prose":
            return None  # the reply opens right under the message, not under another paste
        after = parse(raw_turn.user_text[end:], answer).prose()
        relay = dataclasses.replace(raw_turn, user_text="", assistant_text=message)
        reply = self.assent.reply(dataclasses.replace(turn, user_text=after), relay)
        lexicon = self.assent.lexicon
        if reply is None or reply.quoted:
            quote, own = self.endorsing(raw_turn.user_text, answer, after, message), None
        elif reply.own is not None and not stemmed(lexicon.anchor_tokens(reply.own)) & stemmed(
            lexicon.anchor_tokens(message)
        ):
            return None
        else:
            quote, own = reply.quote, reply.own
        if not quote or quote not in turn.user_text:
            return None
        body = _SENDER.sub("", " ".join(stated), count=1)
        candidate = CandidateOut(
            kind=MemoryKind(lexicon.proposal_kind(body)),
            content=body if own is None else own,
            sources=[
                *(SourceOut(turn_id=turn.id, role="user", quote=s) for s in stated),
                SourceOut(turn_id=turn.id, role="user", quote=quote),
            ],
        )
        return Assent((candidate,), _without(turn, quote))

    def items(self, raw_turn: Turn, turn: Turn, before: Turn | None) -> Assent | None:
        """The decision the prose of `turn` makes by adopting numbered items of a document the user
        pasted the turn `before` (`document_items`): its first sentence pointing at some of them by
        number ("纪要第一、三项已经确认，按此执行", "第 3 条、第 5 条适用于本项目", "items 1 and 3 we follow")
        that is an assent or that the sentence reader reads as a statement. One decision per item: the
        item's words, quoting the item and the user's sentence."""
        items = document_items(before.user_text) if before is not None else {}
        if before is None or not items:
            return None
        model = self.reader or default_reader_model()
        lexicon = self.assent.lexicon
        for sentence, feats in turn_features(raw_turn.user_text, before.assistant_text or "", lexicon):
            pointed = [n for n in sorted(pointed_items(sentence)) if n in items]
            if not pointed or sentence not in turn.user_text:
                continue
            if not (self.assent.is_assent(sentence) or model.reading(feats).label in STATEMENTS):
                continue
            candidates = tuple(
                CandidateOut(
                    kind=MemoryKind(lexicon.proposal_kind(items[n])),
                    content=items[n],
                    sources=[
                        SourceOut(turn_id=before.id, role="user", quote=items[n]),
                        SourceOut(turn_id=turn.id, role="user", quote=sentence),
                    ],
                )
                for n in pointed
            )
            return Assent(candidates, _without(turn, sentence))
        return None

    def endorsing(self, raw_user_text: str, answer: str, after: str, message: str) -> str:
        """The first sentence of `after` when it names the message's sender and the reader reads it, in
        its turn, as a statement ("就按刘总这个来"); "" otherwise."""
        sender = _SENDER.match(message)
        first = split_sentences(after)[:1]
        name = sender.group(0).strip().rstrip(":：").strip() if sender else ""
        if not name or not first or name not in first[0]:
            return ""
        model = self.reader or default_reader_model()
        for sentence, feats in turn_features(raw_user_text, answer, self.assent.lexicon):
            if sentence == first[0] and model.reading(feats).label in STATEMENTS:
                return sentence
        return ""

    def stated(self, message: str) -> list[str]:
        """The sentences of `message` the sentence reader reads as a preference or decision."""
        if not message:
            return []
        model = self.reader or default_reader_model()
        found = []
        for sentence, feats in turn_features(message, "", self.assent.lexicon):
            p = model.probabilities(feats)
            if sum(p[label] for label in STATEMENTS) >= EVIDENCE_THRESHOLD:
                found.append(sentence)
        return found


_CN_NUMBER = "[一二三四五六七八九十]{1,3}|\\d{1,2}"
# Items pointed at by number: "第一、三项", "第 3 条、第 5 条", "items 1 and 3", "point 2".
_ZH_POINTER = re.compile(rf"第\s*((?:{_CN_NUMBER})(?:\s*[、,，和及与]\s*第?\s*(?:{_CN_NUMBER}))*)\s*[项条点]")
_EN_POINTER = re.compile(r"(?i)\b(?:items?|points?|clauses?)\s+(\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})*)\b")
_NUMBER = re.compile(_CN_NUMBER)
_CN_VALUES = {"十": 10, **{ch: n for n, ch in enumerate("一二三四五六七八九", start=1)}}


def _number(token: str) -> int:
    """The value of a number of one or two digits or a Chinese numeral up to 99; 0 for none."""
    if token.isdigit():
        return int(token)
    if "十" in token:
        tens, _, ones = token.partition("十")
        return (_CN_VALUES.get(tens, 0) if tens else 1) * 10 + _CN_VALUES.get(ones, 0)
    return _CN_VALUES.get(token, 0)


def pointed_items(sentence: str) -> set[int]:
    """The item numbers `sentence` points at ("第一、三项" → {1, 3}, "items 2 and 4" → {2, 4})."""
    found: set[int] = set()
    for pattern in (_ZH_POINTER, _EN_POINTER):
        for match in pattern.finditer(sentence):
            found.update(_number(n) for n in _NUMBER.findall(match.group(1)))
    return found - {0}


def document_items(raw_user_text: str) -> dict[int, str]:
    """The numbered items of the documents pasted in a user's turn (`documents.py`), by their number:
    each item's words without its marker ("1. 单个方法不超过 80 行。" → {1: "单个方法不超过 80 行。"})."""
    items: dict[int, str] = {}
    for line in parse(raw_user_text, "").lines:
        marker = LIST_ITEM.match(line.text) if line.shape == "document" else None
        number = _number(_NUMBER.findall(marker.group(0))[0]) if marker and _NUMBER.search(marker.group(0)) else 0
        body = line.text[marker.end() :].strip() if marker else ""
        if number and body and number not in items:
            items[number] = body
    return items


def relayed_message(raw_user_text: str, answer: str) -> tuple[str, int]:
    """The last block of `>` lines in `raw_user_text` that quotes someone else (`blocks.quoted_rows`) or
    of lines of a pasted document, one line each without its quote marker, header lines (a name and a
    time alone) left out, and the offset where the block ends; ("", 0) when there is none."""
    block: list[str] = []
    end = 0
    previous = False
    for line in parse(raw_user_text, answer).lines:
        here = _someone_elses(line)
        if here:
            if not previous:
                block = []
            block.append(QUOTE_MARK.sub("", line.text, count=1))
            end = line.end
        previous = here
    return "\n".join(line for line in block if line.strip() and not is_header(line)), end


def in_relayed(raw_user_text: str, answer: str, quote: str) -> bool:
    """An occurrence of `quote` in `raw_user_text` touches a `>` line quoting someone else."""
    spans = [(line.start, line.end) for line in parse(raw_user_text, answer).lines if _someone_elses(line)]
    at = raw_user_text.find(quote) if quote.strip() else -1
    while at >= 0:
        if any(start < at + len(quote) and at < end for start, end in spans):
            return True
        at = raw_user_text.find(quote, at + 1)
    return False


def _someone_elses(line: Line) -> bool:
    """`line` is someone else's message the user may adopt: a `>` line quoting someone else, or a line
    of a pasted document (`documents.py`)."""
    return (line.shape == "relayed" and bool(QUOTE_MARK.match(line.text))) or line.shape == "document"


def _without(turn: Turn, sentence: str) -> Turn | None:
    """`turn` with `sentence` blanked, None when nothing is left."""
    at = turn.user_text.find(sentence)
    text = turn.user_text[:at] + " " * len(sentence) + turn.user_text[at + len(sentence) :]
    return dataclasses.replace(turn, user_text=text) if text.strip() else None
