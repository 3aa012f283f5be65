"""The sentences the speech model learns from: every user sentence of a corpus, labelled
by the gold memories that quote it.

A sentence is a `statement` when a gold preference or decision quotes at least half of it (or it
holds at least half of the quote) as the user's own words, with its kind. A confirmation's user
quote ("同意", "Yes — ship it like that.") is `none`: it states nothing on its own words, only with
the proposal it answers, which the lexicon reads. Discussion context and every other sentence are
`none`.

The realistic dev part (`eval/realistic/`, multi-turn sessions by spec-only authors) adds one group
per author: the sentences of each user turn's *prose* (`structure.parse`: pasted material and the
lines introducing it are never read, so never learned from), labelled the same way by the gold
memories that quote them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, cast

from autopatch_j.memory.sentences import split_sentences
from autopatch_j.memory.structure import parse
from autopatch_j.quality.corpus import PART_FILES, Case, CorpusFolder, checkout_or, parse_corpus
from autopatch_j.quality.realistic import MANIFEST, RealisticPart, Session, load_realistic

Label = Literal["user_preference", "project_decision", "none"]
NEGATIVES = "speech_negatives.json"
FIXES = "speech_fixes.json"


@dataclass(frozen=True, slots=True)
class Example:
    text: str
    label: Label

    @property
    def states(self) -> bool:
        return self.label != "none"


def case_examples(case: Case) -> list[Example]:
    """One example per sentence of each user turn of `case`."""
    found: list[Example] = []
    for index, turn in enumerate(case.turns):
        text, offset = turn.user, 0
        for sentence in split_sentences(text):
            start = text.find(sentence, offset)
            offset = start + len(sentence)
            found.append(Example(text=sentence, label=_label(case.memories, index, text, start, offset)))
    return found


class QuotedSource(Protocol):
    """A gold memory's source: which turn, whose words, the exact quote."""

    @property
    def turn(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def quote(self) -> str: ...


class QuotedMemory(Protocol):
    """A gold memory of either corpus: its kind and its quoted sources."""

    @property
    def kind(self) -> str: ...
    @property
    def sources(self) -> Sequence[QuotedSource]: ...


def _label(memories: Sequence[QuotedMemory], turn: int, text: str, start: int, end: int) -> Label:
    """The kind of the user-sourced preference or decision whose quote covers most of the sentence
    `text[start:end]` of user turn `turn` (half of the sentence or half of the quote), else none."""
    for memory in memories:
        if memory.kind == "discussion_context" or any(src.role == "assistant" for src in memory.sources):
            continue
        for src in memory.sources:
            if src.turn != turn or src.role != "user":
                continue
            q_start = text.find(src.quote)
            overlap = max(0, min(end, q_start + len(src.quote)) - max(start, q_start))
            if overlap >= 0.5 * (end - start) or overlap >= 0.5 * len(src.quote):
                return cast(Label, memory.kind)
    return "none"


def negative_examples(folder: CorpusFolder | None = None) -> list[Example]:
    """Ordinary talk that states no rule — one-off requests, questions, reports, descriptions,
    complaints, chat, temporary or hypothetical instructions, other people's rules, general
    knowledge — written for training only by a helper that saw neither the rules nor the corpus
    (`NEGATIVES`): the corpus alone is half rules, far more than a real conversation."""
    data = json.loads(checkout_or(folder).file(NEGATIVES).read_text(encoding="utf-8"))
    return [Example(text=s["text"], label="none") for s in data["sentences"]]


def fix_examples(folder: CorpusFolder | None = None) -> list[Example]:
    """Labelled sentences added to fix a reading (`FIXES`): a miss or a false reading of the model is
    fixed by an example and a retrain, never by a pattern."""
    data = json.loads(checkout_or(folder).file(FIXES).read_text(encoding="utf-8"))
    return [Example(text=s["text"], label=s["label"]) for s in data["sentences"]]


def part_examples(part: str, folder: CorpusFolder | None = None) -> dict[str, list[Example]]:
    """The examples of each file of a part of `folder` (the checkout's by default), by file name."""
    folder = checkout_or(folder)
    examples: dict[str, list[Example]] = {}
    for name in PART_FILES[part]:
        corpus = parse_corpus(folder.file(name).read_text(encoding="utf-8"), min_cases=1)
        examples[name] = [e for case in corpus.cases for e in case_examples(case)]
    return examples


def file_digests(names: tuple[str, ...], folder: CorpusFolder | None = None) -> dict[str, str]:
    """The sha256 of each corpus file of `folder` (the checkout's by default): what a model trained on
    them records."""
    folder = checkout_or(folder)
    return {name: hashlib.sha256(folder.file(name).read_bytes()).hexdigest() for name in names}


def session_examples(session: Session) -> list[Example]:
    """One example per prose sentence of each user turn of a realistic session."""
    found: list[Example] = []
    for index, turn in enumerate(session.turns):
        text = turn.user
        for sentence in split_sentences(parse(text).prose()):
            start = text.find(sentence)
            if start < 0:
                continue
            found.append(
                Example(text=sentence, label=_label(session.memories, index, text, start, start + len(sentence)))
            )
    return found


def realistic_examples(part: RealisticPart) -> dict[str, list[Example]]:
    """The examples of the realistic part, one group per author (`realistic/<author>`)."""
    groups: dict[str, list[Example]] = {}
    for session in part.sessions:
        groups.setdefault(f"realistic/{part.authors[session.id]}", []).extend(session_examples(session))
    return groups


def load_realistic_part(directory: Path) -> RealisticPart:
    return load_realistic(directory)


def realistic_digest(directory: Path) -> dict[str, str]:
    """What a model trained on the realistic part records: the sha256 of its manifest (which pins
    every file by its own sha256)."""
    return {"realistic/" + MANIFEST: hashlib.sha256((directory / MANIFEST).read_bytes()).hexdigest()}
