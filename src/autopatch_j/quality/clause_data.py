"""The clause boundaries of statement sentences and their labels from the realistic gold: the data
of `scripts/train_clauses.py`, a tried clause split (docs/quality.md, the clause split) that the
offline extractor does not use.

A user often writes two rules in one sentence ("以后回答用中文，代码注释写英文"). `clause_cuts` cuts a
sentence at its top-level clause boundaries ("，" and a Latin "," before a space, never inside
quotes, code spans or brackets); `clause_features` describes one boundary: the mark, the first words
of each side and the last word of the first, their lengths, the words of each side, the index keys
and thesaurus concepts they share, the subject model's same-subject probability and its voted
subjects, the lexicon's classes of the second side (a subject of its own, a speech act, a switch, a
word pointing back, an aside, a temporary scope), and what the sentence reader reads in each side
alone. With `pauses` (`scripts/train_clauses.py --pauses`, round 29) a sentence holding Chinese is also
cut at each pause of dictation (white space next to a Chinese character: "以后回答都用中文 然后 sql
关键字全部大写"), each side of a boundary is the whole sentence on that side, the features add what the
reader reads in the unit on each side (`local_units`), and a boundary belongs to the nearest gold
memory on each side. `session_boundaries` labels them: in each user turn, each prose sentence
(`joining.prose_sentences`) that quotes a gold preference or decision is cut; a clause belongs to
the gold preferences and decisions whose user quotes of that turn overlap it; each pair of adjacent
clauses where each belongs to at most one memory and at least one to some memory is a boundary —
two memories when each belongs to a different one, one when both belong to the same one or one of
them to none (a cut there would leave a part that is no memory).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from autopatch_j.memory.joining import first_word, last_word, prose_sentences
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.reader import STATEMENTS, ReaderModel, turn_features
from autopatch_j.memory.subjects import SubjectModel, _keys, statement_of
from autopatch_j.memory.text import tokens
from autopatch_j.quality.realistic import Session

_OPEN = {"(": ")", "（": "）", "[": "]", "【": "】", "{": "}", "《": "》", "「": "」", "『": "』", "“": "”", "‘": "’"}
_SYMMETRIC = {'"', "`"}


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a sentence: its offsets (separator and outer space excluded, the sentence's final
    mark kept) and the mark that ends it ("" for the last)."""

    start: int
    end: int
    mark: str


def clause_cuts(sentence: str, *, pauses: bool = False) -> list[Clause]:
    """The top-level clauses of `sentence`, in order: cut after "，" and after a Latin "," followed by
    a space, never inside brackets, quotes or code spans; a sentence without a cut is one clause.
    With `pauses`, a sentence holding Chinese is also cut at each pause of dictation: a run of white
    space with a Chinese character on at least one side (its mark `_pause_mark`: what is on each side)."""
    out: list[Clause] = []
    stack: list[str] = []
    symmetric: str | None = None
    start = 0
    han = pauses and any(_is_han(ch) for ch in sentence)
    for n, ch in enumerate(sentence):
        if symmetric is not None:
            if ch == symmetric:
                symmetric = None
            continue
        if ch in _SYMMETRIC:
            symmetric = ch
        elif ch in _OPEN:
            stack.append(_OPEN[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
        elif not stack and (ch == "，" or (ch == "," and sentence[n + 1 : n + 2].isspace())):
            out.append(_clause(sentence, start, n, ch))
            start = n + 1
        elif han and not stack and ch.isspace() and n > start and not sentence[n - 1].isspace():
            mark = _pause_mark(sentence, n)
            if mark:
                out.append(_clause(sentence, start, n, mark))
                start = n + 1
    out.append(_clause(sentence, start, len(sentence), ""))
    return [c for c in out if c.end > c.start] or [Clause(0, len(sentence), "")]


def _is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _pause_mark(sentence: str, at: int) -> str:
    """The mark of the white space starting at `at`: "pause:" and the kinds of the characters on each
    side (h: Chinese, w: a letter or digit, p: anything else); "" when neither side is Chinese or a
    side is the sentence's end or a separator."""
    end = at
    while end < len(sentence) and sentence[end].isspace():
        end += 1
    if at == 0 or end >= len(sentence) or sentence[end] in "，,":
        return ""

    def kind(ch: str) -> str:
        return "h" if _is_han(ch) else "w" if ch.isalnum() else "p"

    left, right = kind(sentence[at - 1]), kind(sentence[end])
    return f"pause:{left}{right}" if "h" in (left, right) else ""


def _clause(sentence: str, start: int, end: int, mark: str) -> Clause:
    while start < end and sentence[start].isspace():
        start += 1
    while end > start and sentence[end - 1].isspace():
        end -= 1
    return Clause(start, end, mark)


def _length_bucket(n: int) -> str:
    return "1" if n <= 2 else "2" if n <= 4 else "3" if n <= 8 else "4" if n <= 16 else "5"


def _reading(reader: ReaderModel, lexicon: Lexicon, text: str) -> tuple[str, float]:
    """What the reader reads in `text` alone: the likelier statement kind and the summed statement
    probability."""
    read = turn_features(text, "", lexicon)
    if not read:
        return "none", 0.0
    p = reader.probabilities(read[0][1])
    return max(STATEMENTS, key=lambda k: p[k]), p[STATEMENTS[0]] + p[STATEMENTS[1]]


def clause_features(
    sentence: str,
    left: Clause,
    right: Clause,
    kind: str,
    subjects: SubjectModel,
    reader: ReaderModel,
    lexicon: Lexicon,
    local: tuple[str, str] | None = None,
) -> dict[str, float]:
    """The features of the boundary between the adjacent clauses `left` and `right` of `sentence`, a
    statement of `kind`; `local`, the units next to the boundary (`local_units`), adds what the reader
    reads in each of them alone, their lengths and whether each holds content words."""
    a = sentence[left.start : left.end]
    b = sentence[right.start : right.end]
    a_len, b_len = sum(1 for _ in tokens(a)), sum(1 for _ in tokens(b))
    own_a, thesaurus_a = _keys(a)
    own_b, thesaurus_b = _keys(b)
    every_a, every_b = own_a | thesaurus_a, own_b | thesaurus_b
    subject_a, subject_b = lexicon.subject_of(a), lexicon.subject_of(b)
    kind_a, stated_a = _reading(reader, lexicon, a)
    kind_b, stated_b = _reading(reader, lexicon, b)
    features: dict[str, float] = {
        f"mark={left.mark}": 1.0,
        f"kind={kind}": 1.0,
        f"a_first={first_word(a)}": 1.0,
        f"b_first={first_word(b)}": 1.0,
        f"a_last={last_word(a)}": 1.0,
        f"a_len={_length_bucket(a_len)}": 1.0,
        f"b_len={_length_bucket(b_len)}": 1.0,
        "first_clause": float(left.start == 0),
        "last_clause": float(not right.mark),
        "share": len(own_a & own_b) / max(1, min(len(own_a), len(own_b))),
        "concepts": len(every_a & every_b) / max(1, min(len(every_a), len(every_b))),
        "same_subject": subjects.same_subject(statement_of(lexicon, b, kind), statement_of(lexicon, a, kind)),
        "a_subject": float(subject_a is not None),
        "b_subject": float(subject_b is not None),
        "subjects_differ": float(subject_a is not None and subject_b is not None and subject_a.key != subject_b.key),
        "b_explicit": float(bool(lexicon.is_explicit(b))),
        "b_statement": float(lexicon.reads_as_statement(b)),
        "b_switch": float(lexicon.is_switch(b)),
        "b_points_back": float(lexicon.points_back(b)),
        "b_aside": float(lexicon.is_aside(b)),
        "b_temporary": float(lexicon.is_temporary(b)),
        "b_anchored": float(bool(lexicon.anchor_tokens(b))),
        "a_stated": stated_a,
        "b_stated": stated_b,
        "both_stated": float(stated_a >= 0.5 and stated_b >= 0.5),
        "read_same_kind": float(kind_a == kind_b),
        "han": float(any("\u4e00" <= ch <= "\u9fff" for ch in b)),
        "b_digit": float(any(ch.isdigit() for ch in b)),
        "b_question": float("?" in b or "？" in b),
    }
    voted_a, voted_b = subjects.voted(a), subjects.voted(b)
    if voted_a and voted_b:
        features["voted_same" if voted_a == voted_b else "voted_different"] = 1.0
    if local is not None:  # the units next to the boundary, between the pauses and commas around it
        unit_a, unit_b = local
        kind_ua, stated_ua = _reading(reader, lexicon, unit_a)
        kind_ub, stated_ub = _reading(reader, lexicon, unit_b)
        features["unit_a_stated"] = stated_ua
        features["unit_b_stated"] = stated_ub
        features["unit_both_stated"] = float(stated_ua >= 0.5 and stated_ub >= 0.5)
        features["unit_same_kind"] = float(kind_ua == kind_ub)
        features[f"unit_a_len={_length_bucket(sum(1 for _ in tokens(unit_a)))}"] = 1.0
        features[f"unit_b_len={_length_bucket(sum(1 for _ in tokens(unit_b)))}"] = 1.0
        features["unit_b_anchored"] = float(bool(lexicon.anchor_tokens(unit_b)))
        features["unit_a_anchored"] = float(bool(lexicon.anchor_tokens(unit_a)))
    for word in {t.text for t in tokens(a)}:
        features[f"a_word={word}"] = 1.0
    for word in {t.text for t in tokens(b)}:
        features[f"b_word={word}"] = 1.0
    return features


#: The gold memories (key, kind) a clause belongs to.
Owners = set[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class ClauseBoundary:
    author: str
    session: str
    sentence: str
    left: str
    right: str
    features: dict[str, float]
    two: bool


def session_boundaries(
    session: Session,
    author: str,
    subjects: SubjectModel,
    reader: ReaderModel,
    lexicon: Lexicon,
    *,
    pauses: bool = False,
) -> list[ClauseBoundary]:
    """The labelled boundaries of one realistic session. With `pauses`, the pauses of dictation are
    boundaries too (`clause_cuts`), each side of a boundary is the whole sentence on that side (a
    pause parts words as often as clauses), and a boundary belongs to the nearest gold memory on each
    side (the words between two quotes — "然后", "还有" — belong to neither)."""
    out: list[ClauseBoundary] = []
    for index, turn in enumerate(session.turns):
        text = turn.user
        quoted = [
            (memory.key, memory.kind, at, at + len(q.quote))
            for memory in session.memories
            if memory.kind in STATEMENTS
            for q in memory.sources
            if q.turn == index and q.role == "user" and q.quote and (at := text.find(q.quote)) >= 0
        ]
        if not quoted:
            continue
        for start, end in prose_sentences(text):
            sentence = text[start:end]
            cuts = clause_cuts(sentence, pauses=pauses)
            if len(cuts) < 2:
                continue
            owners: list[Owners] = [
                {(key, str(kind)) for key, kind, s, e in quoted if s < start + c.end and start + c.start < e}
                for c in cuts
            ]
            sides = _nearest(owners) if pauses else list(itertools.pairwise(owners))
            for n, ((left, right), (own_l, own_r)) in enumerate(zip(itertools.pairwise(cuts), sides, strict=True)):
                if len(own_l) > 1 or len(own_r) > 1 or not (own_l or own_r):
                    continue
                kind = next(iter(own_l or own_r))[1]
                two = bool(own_l and own_r and own_l != own_r)
                a, b = left, right
                local = None
                if pauses:  # each side is the whole sentence on that side, and the units next to it
                    a, b = Clause(0, left.end, left.mark), Clause(right.start, len(sentence), "")
                    local = local_units(sentence, cuts, n)
                features = clause_features(sentence, a, b, kind, subjects, reader, lexicon, local)
                out.append(
                    ClauseBoundary(
                        author,
                        session.id,
                        sentence,
                        sentence[left.start : left.end],
                        sentence[right.start : right.end],
                        features,
                        two,
                    )
                )
    return out


MAJOR = ("，", ",", "pause:hh")  # the marks that end a unit (`local_units`)


def local_units(sentence: str, cuts: list[Clause], n: int) -> tuple[str, str]:
    """The units on each side of the boundary after `cuts[n]`: from the last comma or pause between two
    Chinese characters before it to the boundary, and from the boundary to the next one (a pause
    next to a Latin word parts words of one clause as often as clauses)."""
    first = n
    while first > 0 and cuts[first - 1].mark not in MAJOR:
        first -= 1
    last = n + 1
    while last < len(cuts) - 1 and cuts[last].mark not in MAJOR:
        last += 1
    return sentence[cuts[first].start : cuts[n].end], sentence[cuts[n + 1].start : cuts[last].end]


def _nearest(owners: list[Owners]) -> list[tuple[Owners, Owners]]:
    """For each boundary between adjacent clauses, the owners of the nearest owned clause on each side
    (empty when no clause on that side is owned)."""
    out: list[tuple[Owners, Owners]] = []
    for n in range(1, len(owners)):
        left = next((o for o in reversed(owners[:n]) if o), set())
        right = next((o for o in owners[n:] if o), set())
        out.append((left, right))
    return out
