"""Which sentences of an assistant answer a user's assent chooses, learned from data.

An answer proposes in many ways: one sentence naming the choice ("I'd pin Node 20 in CI."), a
line introducing a list or a code block ("建议四条：", "I suggest the RWMutex version:") whose
items or code hold the choice, options side by side ("**Option 1 — zap**", "**Option 2 —
log/slog**"), a rationale after the suggestion ("Option 1 keeps the gate for new code;"), a
question offering a one-off action ("Want me to fix those?"). The reply says which: by its words
("tag 和 diskSelector 那个同意"), by pointing ("the second one", "第二个", "2 可以", "option B"), or
by nothing at all ("ok").

Every sentence of the answer (as the extractor reads it: pasted material cut, the lines introducing
it kept) is a candidate, read by `choice_features` — where it sits (position, paragraph end, list
item and its number, option label, bold, heading), what it is (a proposal signal and which one, a
question, a colon at its end, a word pointing back, a name, its first word, its length, its scope —
`scope.py`: one thing or a class, an offer to act once or to set a rule), and what
the reply shares with it (content words, the best share of the answer, an ordinal or option the
reply points to), and the option of the answer it lies in (`options.py`: a list item, a lettered or
labelled option) with what the reply selects over them: this option, another, every one, all but
this one, the option whose words the reply names, and how the answer offers its options
(`options.offered_by`: a proposal signal introducing them or inside them, a line naming them as
options, or not at all). A logistic regression gives each candidate a
probability: the likeliest is chosen, and every other from `also` on; when no candidate reaches
`floor`, a bare assent chooses nothing (the answer offered no standing choice: an action, a
question back, an explanation).

The weights are `assent_model.json`, trained by `scripts/train_assent.py` on the realistic
sessions' gold (which assistant sentences each confirmed proposal quotes); the package only reads
them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from autopatch_j.memory.blocks import LIST_ITEM
from autopatch_j.memory.errors import MemoryEngineError
from autopatch_j.memory.joining import first_word
from autopatch_j.memory.lexicon import Lexicon
from autopatch_j.memory.lists import layout
from autopatch_j.memory.options import offered_by, options_in, read_selection
from autopatch_j.memory.ordinals import CODE_SPAN, ordinal, reply_pointers
from autopatch_j.memory.replacement import stemmed
from autopatch_j.memory.scope import scope_keys
from autopatch_j.memory.sentences import CJK_RUN, fold, split_sentences
from autopatch_j.memory.shapes import COLON_END
from autopatch_j.memory.speech_model import logistic

MODEL_FILE = "assent_model.json"
FORMAT = 1

_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*|[\u4e00-\u9fff]")
_NAME = re.compile(r"\b[A-Za-z][\w.+-]*[A-Z0-9._-][\w.+-]*\b|\b[A-Z][a-z]+\w*\b")
_LATIN = re.compile(r"[A-Za-z]{2,}")
# An option the answer labels: "Option 2", "方案 B", "**A:**", "选项二", "Plan B".
_LABEL = re.compile(
    r"(?i:\b(?:option|plan|approach|choice)\s*|方案\s*|选项\s*|做法\s*)([1-9A-Fa-f一二三四五六])(?![A-Za-z])"
    r"|^\W*([A-F])\s*[:：)）.—-]"
)
# A sentence opening with a past participle or 已/刚: it reports work done ("Fixed the link …", "已改完").
_DONE = re.compile(r"\s*(?:[A-Z][a-z]+ed\b|已|刚)")
_ALL = re.compile(r"\b(?:both|all|each)\b|都|全部|两条|两个|几条|三条")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One sentence of the answer and where it starts in it."""

    text: str
    start: int


def candidates(answer: str, lexicon: Lexicon) -> list[Candidate]:
    """The sentences of `answer` (the extractor's view of it), in order, each with its offset: a
    proposal of several sentences (`Lexicon.proposals_in`: "We could shard the suite. Should I make
    that the standard pipeline?") is one candidate, and a question that only points back ("Shall we
    adopt that?") is none — it stands for the sentence before it."""
    proposals = lexicon.proposals_in(answer)
    out: list[Candidate] = []
    at = 0
    for sentence in split_sentences(answer):
        start = answer.find(sentence, at)
        if start < 0:
            continue
        at = start + len(sentence)
        if (out and out[-1].start + len(out[-1].text) > start) or not _WORD.search(sentence):
            continue  # inside the proposal before it, or a list marker alone ("2.")
        if out and lexicon.only_points_back(sentence):
            continue
        whole = next((p for p in proposals if p != sentence and answer.startswith(p, start)), sentence)
        out.append(Candidate(whole, start))
    return out


def _marker(text: str) -> int:
    match = LIST_ITEM.match(text)
    return match.end() if match else 0


def _bucket(n: int) -> str:
    return "1" if n <= 3 else "2" if n <= 8 else "3" if n <= 16 else "4" if n <= 32 else "5"


def _names_a_thing(sentence: str) -> bool:
    if CODE_SPAN.search(sentence) or any(ch.isdigit() for ch in sentence):
        return True
    return bool(_LATIN.search(sentence)) if CJK_RUN.search(sentence) else bool(_NAME.search(sentence))


def _own_ordinal(answer: str, candidate: Candidate, items: list[tuple[int, int]]) -> tuple[int, bool]:
    """The number of the option `candidate` is (its label, else its place in its list; 0: none) and
    whether it is the last item of its list."""
    label = _LABEL.search(candidate.text[:40])
    if label:
        return ordinal(label.group(1) or label.group(2)), False
    for n, (start, end) in enumerate(items):
        if start <= candidate.start < end:
            marker = re.match(r"\s*(\d{1,2})[.)、）]", answer[start:end])
            run = n
            while run > 0 and _adjacent(answer, items[run - 1], items[run]):
                run -= 1
            last = n + 1 == len(items) or not _adjacent(answer, items[n], items[n + 1])
            return (int(marker.group(1)) if marker else n - run + 1), last
    return 0, False


def _adjacent(answer: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """Two items of one list: nothing but space between them."""
    return not answer[first[1] : second[0]].strip()


#: How an assent was read (`assent.Reply.reading`): "" — to a signalled proposal, the answer's
#: closing question or options it offers; "unsignalled" — to an answer with none of those;
#: "unoffered" — pointing by number or letter at options the answer lists but does not offer.
AssentReading = Literal["", "unsignalled", "unoffered"]


def choice_features(
    answer: str, reply: str, bare: bool, lexicon: Lexicon, *, reading: AssentReading = ""
) -> list[dict[str, float]]:
    """The features of each candidate of `answer` (`candidates`) as the choice `reply` makes (`bare`:
    the reply says nothing but assent; `reading`: how the assent was read, `assent.Reply.reading` —
    "unsignalled" or "unoffered" is a feature of every candidate, alone and with `bare`)."""
    proposals = lexicon.proposals_in(answer)
    found = candidates(answer, lexicon)
    if not found:
        return []
    lists = layout(answer)
    items = list(lists.items)
    words = stemmed(lexicon.anchor_tokens(reply))
    shares = [len(words & stemmed(lexicon.anchor_tokens(c.text))) for c in found]
    best = max(shares)
    pointers = reply_pointers(reply)
    proposed = sum(1 for c in found if any(c.text in p or p in c.text for p in proposals))
    regex = lexicon.proposal_signals.regex
    points_all = bool(_ALL.search(fold(reply)))
    options = options_in(answer)
    selection = read_selection(reply, answer, lexicon) if options else None
    offered = offered_by(answer, lexicon.has_proposal_signal) if selection is not None else ""
    out: list[dict[str, float]] = []
    total = len(found)
    for n, cand in enumerate(found):
        text = cand.text
        folded = fold(text)
        after = answer[cand.start + len(text) : cand.start + len(text) + 2]
        own_ordinal, last_item = _own_ordinal(answer, cand, items)
        item = lists.item_at(cand.start) is not None or bool(LIST_ITEM.match(text))
        signal = regex.search(folded) if regex is not None else None
        f: dict[str, float] = {
            "bias_bare" if bare else "bias_own": 1.0,
            f"pos={min(n, 4)}": 1.0,
            f"from_end={min(total - 1 - n, 4)}": 1.0,
            f"count={_bucket(total)}": 1.0,
            "signal": float(signal is not None),
            "proposal": float(any(text in p or p in text for p in proposals)),
            f"proposals={min(proposed, 3)}": 1.0,
            "question": float(lexicon.is_question(text)),
            "question_mark": float(text.rstrip().endswith(("?", "？"))),
            "question_short": float(lexicon.is_question(text) and len(lexicon.anchor_tokens(text)) <= 4),
            "colon": float(bool(COLON_END.search(text))),
            "colon_paragraph_end": float(bool(COLON_END.search(text)) and (not after.strip() or "\n\n" in after)),
            "paragraph_end": float(not after.strip() or "\n\n" in after),
            "item": float(item),
            "introduces": float(lists.introduces(cand.start, cand.start + len(text))),
            "bold": float("**" in text),
            "heading": float(text.lstrip().startswith("#")),
            "points_back": float(lexicon.points_back(text)),
            "names": float(_names_a_thing(text)),
            "code": float(bool(CODE_SPAN.search(text))),
            "han": float(bool(CJK_RUN.search(text))),
            f"first={first_word(text[_marker(text) :])}": 1.0,
            "reports_done": float(bool(_DONE.match(text[_marker(text) :]))),
            f"len={_bucket(len(lexicon.anchor_tokens(text)))}": 1.0,
            "share": float(min(shares[n], 6)),
            "share_best": float(best > 0 and shares[n] == best),
            "share_only": float(best > 0 and shares[n] == best and shares.count(best) == 1),
            "share_none": float(best > 0 and shares[n] == 0),
        }
        for name, phrases in (
            ("standing", lexicon.standing),
            ("defaults", lexicon.defaults),
            ("conduct", lexicon.conduct_hints),
            ("decision", lexicon.decision_hints),
            ("norm", lexicon.norm_hints),
            ("scope", lexicon.scope_hints),
            ("alternatives", lexicon.alternatives),
        ):
            if phrases.search(folded):
                f[name] = 1.0
        if lexicon.is_explicit(text):
            f["explicit"] = 1.0
        for key in scope_keys(text):
            f["scope:" + key] = 1.0
            if bare:
                f["bare&scope:" + key] = 1.0
        if signal is not None:
            f[f"signal={signal.group(0).strip()}"] = 1.0
        if own_ordinal:
            f["labelled" if not item else "numbered"] = 1.0
        if pointers:
            if own_ordinal and (own_ordinal in pointers or (-1 in pointers and last_item)):
                f["pointer_match"] = 1.0
            elif own_ordinal:
                f["pointer_other"] = 1.0
            else:
                f["pointer_unlabelled"] = 1.0
        if points_all and item:
            f["all_items"] = 1.0
        option = next((o for o in options if o.holds(cand.start)), None)
        if option is not None:
            f["option"] = 1.0
            f["option_head" if cand.start <= option.start + 8 else "option_tail"] = 1.0
            if selection is not None:
                f["selected" if selection.picks(option) else "unselected"] = 1.0
                f[f"offered={offered or 'no'}"] = 1.0
                if option.ordinal in selection.excluded:
                    f["excluded"] = 1.0
                if option.ordinal in selection.named:
                    f["named_option"] = 1.0
                if selection.every and not selection.chosen:
                    f["selected_every"] = 1.0
        elif selection is not None:
            f["beside_options"] = 1.0
        if bare:
            for key in ("question", "colon_paragraph_end", "item", "signal", "points_back", "names", "standing"):
                f[f"bare&{key}"] = f.get(key, 0.0)
        if reading:
            f[f"reading={reading}"] = 1.0
            f[f"reading={reading}&{'bare' if bare else 'own'}"] = 1.0
            for key in ("share_only", "share_best", "item", "names", "code", "question"):
                if f.get(key):
                    f[f"reading={reading}&{key}"] = 1.0
        out.append(f)
    return out


@dataclass(frozen=True, slots=True)
class AssentModel:
    """The trained weights; `floor` and `also` as the module docstring says; `unsignalled_floor`: the
    floor of an assent to an answer with no proposal signal (`assent.Reply.reading` "unsignalled";
    None: `floor`), chosen on those assents alone — a choice lost there costs less, since the
    sentence reader still reads the reply."""

    bias: float
    weights: dict[str, float]
    floor: float
    also: float
    unsignalled_floor: float | None = None

    def probability(self, features: dict[str, float]) -> float:
        return logistic(self.bias, self.weights, features)

    def choose(self, probabilities: list[float], *, bare: bool, reading: AssentReading = "") -> list[int]:
        """The indices chosen (in order) from the candidates' probabilities; [] when a bare assent (`bare`:
        one the floor applies to) chooses none — below `unsignalled_floor` when read as "unsignalled"."""
        if not probabilities:
            return []
        top = max(range(len(probabilities)), key=lambda n: (probabilities[n], -n))
        floor = (
            self.unsignalled_floor if reading == "unsignalled" and self.unsignalled_floor is not None else self.floor
        )
        if bare and probabilities[top] < floor:
            return []
        return [n for n, p in enumerate(probabilities) if n == top or p >= self.also]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> AssentModel:
        if data.get("format") != FORMAT:
            raise MemoryEngineError(f"The assent model's format {data.get('format')!r} is not {FORMAT}; retrain it.")
        return cls(
            bias=float(data["bias"]),
            weights={str(k): float(v) for k, v in data["weights"].items()},
            floor=float(data["floor"]),
            also=float(data["also"]),
            unsignalled_floor=float(data["unsignalled_floor"]) if "unsignalled_floor" in data else None,
        )


@lru_cache(maxsize=1)
def default_assent_model() -> AssentModel:
    """The model shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return AssentModel.from_data(json.loads(text))
