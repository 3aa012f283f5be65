"""The sentences the sentence reader (`memory/reader.py`) learns from, with their features.

Realistic sessions (`eval/realistic/`, dev and test parts): each prose sentence of each user turn
(`structure.parse` drops pasted material and the lines introducing it) is labelled from the gold:

- quoted by a gold memory's user source (half of the sentence, or half of the quote): that memory's
  kind — except a bare assent of a memory that also quotes the assistant ("sure, go ahead"), which
  states nothing on its own words (`assent`);
- else quoted by a not-memory: its `why` (`one_off`, `question`, `report`, `code_fact`,
  `temporary`, `deferred`, `hypothetical`, `chit_chat`; `pasted` prose counts as a `report`);
- else, for a gold memory that ends `retired` (taken back with no new value), the sentence of a
  later user turn that retires it (`retirement`): of the sentences labelled nothing else and passing
  the lexicon's gates, the one sharing the most content words with the memory (its quotes, content,
  title and subject), the earliest on a tie; none when no sentence shares a word;
- else `none`.

The dev files of the quality corpus add their user sentences, labelled by their gold memories the
same way; the ordinary-talk negatives and the labelled fixes of the speech model add single
sentences with no context. The reader's own labelled fixes (`READER_FIXES`) are single sentences too,
or, given the user turn they were said in (`turn`), that turn's sentence read with its neighbours
(`reader_fix_examples`). Every label that is not a kind is `none` when the reader predicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.reader import RETIREMENT, TurnView, sentence_features, turn_features
from autopatch_j.quality.corpus import Case
from autopatch_j.quality.realistic import RealisticPart, Session
from autopatch_j.quality.speech_data import QuotedMemory

#: The reader's own labelled fixes in the corpus folder (`eval/corpus/`), beside the speech model's.
READER_FIXES = "reader_fixes.json"


@dataclass(frozen=True, slots=True)
class ReaderExample:
    text: str
    label: str
    features: dict[str, float]


def _overlaps(text: str, start: int, end: int, quote: str) -> bool:
    at = text.find(quote)
    if at < 0:
        return False
    overlap = max(0, min(end, at + len(quote)) - max(start, at))
    return overlap >= 0.5 * (end - start) or overlap >= 0.5 * len(quote)


def gold_label(
    memories: Sequence[QuotedMemory],
    not_memories: Iterable[tuple[int, str, str]],
    turn: int,
    text: str,
    sentence: str,
    lexicon: Lexicon,
) -> str:
    """The label of `sentence` of the user turn number `turn` (RAW `text`), as the module docstring
    says: the kind of a gold memory quoting it (`assent` for a bare assent of a proposal), else the
    `why` of a not-memory quoting it, else `none`."""
    start = text.find(sentence)
    end = start + len(sentence)
    for memory in memories:
        for src in memory.sources:
            if src.turn == turn and src.role == "user" and _overlaps(text, start, end, src.quote):
                assent = any(s.role == "assistant" for s in memory.sources) and lexicon.is_confirmation(sentence)
                return "assent" if assent else memory.kind
    for at, quote, why in not_memories:
        if at == turn and _overlaps(text, start, end, quote):
            return "report" if why == "pasted" else why
    return "none"


def session_examples(session: Session, lexicon: Lexicon) -> list[ReaderExample]:
    """One example per prose sentence of each user turn of a realistic session."""
    not_memories = [(nm.turn, nm.quote, nm.why) for nm in session.not_memories if nm.role == "user"]
    found: list[ReaderExample] = []
    turn_of: list[int] = []
    for index, turn in enumerate(session.turns):
        previous = session.turns[index - 1].assistant if index else ""
        for sentence, feats in turn_features(turn.user, previous, lexicon):
            label = gold_label(session.memories, not_memories, index, turn.user, sentence, lexicon)
            found.append(ReaderExample(text=sentence, label=label, features=feats))
            turn_of.append(index)
    for n in _retiring(session, found, turn_of, lexicon):
        found[n] = ReaderExample(text=found[n].text, label=RETIREMENT, features=found[n].features)
    return found


def _retiring(session: Session, examples: list[ReaderExample], turn_of: list[int], lexicon: Lexicon) -> set[int]:
    """The indices (into `examples`) of the sentences that retire a gold memory ending `retired`."""
    chosen: set[int] = set()
    for memory in session.memories:
        if memory.state != "retired":
            continue
        said = max(src.turn for src in memory.sources)
        words = lexicon.anchor_tokens(
            " ".join([*(src.quote for src in memory.sources), memory.content, memory.title, memory.subject])
        )
        best: tuple[int, int] | None = None
        for n, example in enumerate(examples):
            if turn_of[n] <= said or example.label != "none" or n in chosen:
                continue
            shared = len(words & lexicon.anchor_tokens(example.text))
            if shared and lexicon.passes_gates(example.text) and (best is None or shared > best[0]):
                best = (shared, n)
        if best is not None:
            chosen.add(best[1])
    return chosen


def case_examples(case: Case, lexicon: Lexicon) -> list[ReaderExample]:
    """One example per prose sentence of each user turn of a quality-corpus case."""
    found: list[ReaderExample] = []
    turns = case.turns
    for index, turn in enumerate(turns):
        previous = turns[index - 1].assistant if index else ""
        for sentence, feats in turn_features(turn.user, previous, lexicon):
            label = gold_label(case.memories, (), index, turn.user, sentence, lexicon)
            found.append(ReaderExample(text=sentence, label=label, features=feats))
    return found


def single_examples(sentences: Iterable[tuple[str, ...]], lexicon: Lexicon) -> list[ReaderExample]:
    """Sentences given alone (one turn each), with their labels: `(text, label)`, no assistant answer
    before it, or `(text, label, after)`, read after the assistant's answer `after`."""
    found: list[ReaderExample] = []
    for text, label, *rest in sentences:
        after = rest[0] if rest else ""
        view = TurnView.of(text, proposed=bool(after) and bool(lexicon.proposals_in(after)))
        feats = sentence_features(text, view=view, index=0, count=1, lexicon=lexicon)
        found.append(ReaderExample(text=text, label=label, features=feats))
    return found


def reader_fix_examples(fixes: Iterable[Mapping[str, str]], lexicon: Lexicon) -> list[ReaderExample]:
    """The reader's labelled fixes, in order: each `{"text", "label"}` read alone, after the assistant's
    answer `after` when given, and — given `turn`, a whole user turn holding `text` as one of its prose
    sentences — read in that turn, with its neighbours' word classes and its place among them. A
    `turn` whose prose sentences do not include `text` is an error (the fix would teach nothing)."""
    found: list[ReaderExample] = []
    for fix in fixes:
        text, label, after = fix["text"], fix["label"], fix.get("after", "")
        if "turn" not in fix:
            found.extend(single_examples([(text, label, after)], lexicon))
            continue
        read = dict(turn_features(fix["turn"], after, lexicon))
        if text not in read:
            raise ValueError(f"{text!r} is not a prose sentence of its turn {fix['turn']!r}: {list(read)}")
        found.append(ReaderExample(text=text, label=label, features=read[text]))
    return found


def realistic_groups(part: RealisticPart, lexicon: Lexicon) -> dict[str, list[ReaderExample]]:
    """The examples of a realistic part, one group per author (`realistic/<author>`)."""
    groups: dict[str, list[ReaderExample]] = {}
    for session in part.sessions:
        groups.setdefault(f"realistic/{part.authors[session.id]}", []).extend(session_examples(session, lexicon))
    return groups
