"""The versioned zh/en lexicon (`lexicon.json`) behind the semantic gates and the offline extractor.

Every phrase list lives in the data file, never as scattered literals: speech acts, temporary
expressions, undecided questions, speculation, proposal signals, confirmations (and the filler words
allowed around them), code-fact patterns, kind hints, discussion markers, anchor stop words and the
normalized subjects the offline consolidator deduplicates by. Chinese phrases match as substrings,
English phrases on word boundaries, `patterns` are regular expressions; all on NFKC-casefolded text.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

LEXICON_FILE = "lexicon.json"
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{_CJK}]+")
_WORD = re.compile(f"[^\\W_{_CJK}]+", re.UNICODE)
_QUESTION_END = re.compile(r"([?？]|[吗呢嘛][\s。.!！]*)\s*$")
_LEFTOVER = re.compile(r"[\s\W_]+", re.UNICODE)


def fold(text: str) -> str:
    """NFKC + casefold, with typographic apostrophes made plain (so "let’s" matches "let's")."""
    return unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'").replace("\u2018", "'")


@dataclass(frozen=True, slots=True)
class PhraseSet:
    """One lexicon category compiled into a single alternation (longest phrases first)."""

    name: str
    regex: re.Pattern[str] | None

    @classmethod
    def build(cls, name: str, spec: dict[str, Any]) -> PhraseSet:
        zh = [re.escape(fold(p)) for p in spec.get("zh", [])]
        en = [r"(?<![a-z0-9'])" + re.escape(fold(p)) + r"(?![a-z0-9])" for p in spec.get("en", [])]
        parts = sorted(zh + en, key=len, reverse=True) + list(spec.get("patterns", []))
        return cls(name=name, regex=re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None)

    def search(self, folded: str) -> bool:
        return self.regex is not None and self.regex.search(folded) is not None

    def blank(self, folded: str) -> str:
        """`folded` with every match replaced by a space."""
        return folded if self.regex is None else self.regex.sub(" ", folded)


@dataclass(frozen=True, slots=True)
class Subject:
    """A normalized subject ("python_version") with its bilingual title and retrieval keywords."""

    key: str
    kind: str
    title_zh: str
    title_en: str
    pattern: re.Pattern[str]
    keywords: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Lexicon:
    version: int
    speech_acts: PhraseSet
    temporary: PhraseSet
    undecided: PhraseSet
    speculation: PhraseSet
    proposal_signals: PhraseSet
    confirmations: PhraseSet
    confirmation_fillers: PhraseSet
    code_facts: PhraseSet
    preference_hints: PhraseSet
    decision_hints: PhraseSet
    discussion_markers: PhraseSet
    anchor_stopwords: frozenset[str]
    subjects: tuple[Subject, ...]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Lexicon:
        sets = {
            name: PhraseSet.build(name, data.get(name, {}))
            for name in (
                "speech_acts",
                "temporary",
                "undecided",
                "speculation",
                "proposal_signals",
                "confirmations",
                "confirmation_fillers",
                "code_facts",
                "preference_hints",
                "decision_hints",
                "discussion_markers",
            )
        }
        subjects = tuple(
            Subject(
                key=s["key"],
                kind=s["kind"],
                title_zh=s["title_zh"],
                title_en=s["title_en"],
                pattern=re.compile("|".join(f"(?:{p})" for p in s["patterns"])),
                keywords=tuple(s["keywords"]),
            )
            for s in data.get("subjects", [])
        )
        return cls(
            version=int(data["version"]),
            anchor_stopwords=frozenset(fold(w) for w in data.get("anchor_stopwords", [])),
            subjects=subjects,
            **sets,
        )

    # -- single-quote judgements --------------------------------------------------------------

    def is_explicit(self, text: str) -> bool:
        """Carries an explicit zh/en speech act ("以后", "from now on", "let's use" …)."""
        return self.speech_acts.search(fold(text))

    def is_temporary(self, text: str) -> bool:
        return self.temporary.search(fold(text))

    def is_question(self, text: str) -> bool:
        """An undecided question: ends like a question or asks whether ("要不要", "should we")."""
        folded = fold(text).strip()
        return bool(_QUESTION_END.search(folded)) or self.undecided.search(folded)

    def is_speculative(self, text: str) -> bool:
        return self.speculation.search(fold(text))

    def is_code_fact(self, text: str) -> bool:
        """States how the code or build is configured now ("pom.xml 里现在配置的是 Java 17")."""
        return self.code_facts.search(fold(text))

    def has_proposal_signal(self, text: str) -> bool:
        return self.proposal_signals.search(fold(text))

    def is_confirmation(self, text: str) -> bool:
        """Nothing but confirmation phrases and fillers ("同意", "好的，就这么办", "OK, let's do that.")."""
        folded = fold(text)
        rest = self.confirmation_fillers.blank(self.confirmations.blank(folded))
        return bool(_LEFTOVER.sub("", folded)) and not _LEFTOVER.sub("", rest)

    def is_discussion(self, text: str) -> bool:
        return self.discussion_markers.search(fold(text))

    def supports_statement(self, text: str) -> bool:
        """A user quote that can carry a preference or decision on its own words."""
        return (
            self.is_explicit(text)
            and not self.is_temporary(text)
            and not self.is_question(text)
            and not self.is_speculative(text)
            and not self.is_code_fact(text)
        )

    # -- content anchors ------------------------------------------------------------------------

    def anchor_tokens(self, text: str) -> frozenset[str]:
        """Content words of `text` without speech acts, hedges and confirmations: Latin words and CJK bigrams."""
        folded = fold(text)
        for phrases in (self.speech_acts, self.temporary, self.confirmations, self.proposal_signals):
            folded = phrases.blank(folded)
        tokens = {w for w in _WORD.findall(folded) if len(w) >= 2 and w not in self.anchor_stopwords}
        for run in _CJK_RUN.findall(folded):
            tokens.update(run[i : i + 2] for i in range(len(run) - 1))
        return frozenset(tokens)

    def anchored(self, content: str, quote: str) -> bool:
        """`content` shares at least one content word with `quote`."""
        return bool(self.anchor_tokens(content) & self.anchor_tokens(quote))

    def kind_hint(self, text: str) -> str:
        """'user_preference' or 'project_decision' for an explicit statement (preference hints win)."""
        folded = fold(text)
        if self.preference_hints.search(folded):
            return "user_preference"
        if self.decision_hints.search(folded):
            return "project_decision"
        return "user_preference"

    def subject_of(self, text: str) -> Subject | None:
        folded = fold(text)
        for subject in self.subjects:
            if subject.pattern.search(folded):
                return subject
        return None


def load_lexicon_file(path: Path) -> Lexicon:
    return Lexicon.from_data(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The lexicon shipped with the package (loaded on first use, then cached)."""
    text = resources.files("autopatch_j.memory").joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    return Lexicon.from_data(json.loads(text))
