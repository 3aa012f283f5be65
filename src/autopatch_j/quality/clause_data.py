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
alone. `session_boundaries` labels them: in each user turn, each prose sentence
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


def clause_cuts(sentence: str) -> list[Clause]:
    """The top-level clauses of `sentence`, in order: cut after "，" and after a Latin "," followed by
    a space, never inside brackets, quotes or code spans; a sentence without a cut is one clause."""
    out: list[Clause] = []
    stack: list[str] = []
    symmetric: str | None = None
    start = 0
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
    out.append(_clause(sentence, start, len(sentence), ""))
    return [c for c in out if c.end > c.start] or [Clause(0, len(sentence), "")]


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
) -> dict[str, float]:
    """The features of the boundary between the adjacent clauses `left` and `right` of `sentence`, a
    statement of `kind`."""
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
    for word in {t.text for t in tokens(a)}:
        features[f"a_word={word}"] = 1.0
    for word in {t.text for t in tokens(b)}:
        features[f"b_word={word}"] = 1.0
    return features


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
    session: Session, author: str, subjects: SubjectModel, reader: ReaderModel, lexicon: Lexicon
) -> list[ClauseBoundary]:
    """The labelled boundaries of one realistic session."""
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
            cuts = clause_cuts(sentence)
            if len(cuts) < 2:
                continue
            owners = [
                {(key, kind) for key, kind, s, e in quoted if s < start + c.end and start + c.start < e} for c in cuts
            ]
            for (left, own_l), (right, own_r) in itertools.pairwise(zip(cuts, owners, strict=True)):
                if len(own_l) > 1 or len(own_r) > 1 or not (own_l or own_r):
                    continue
                kind = next(iter(own_l or own_r))[1]
                two = bool(own_l and own_r and own_l != own_r)
                features = clause_features(sentence, left, right, kind, subjects, reader, lexicon)
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
