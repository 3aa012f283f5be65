"""The schema of `fillers.json` (pydantic; unknown fields are refused). Kept apart from languages.py so
that tokenizing never imports pydantic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class VarietyData(BaseModel):
    """A written variety of a language (Cantonese of Chinese): its own question words and fillers,
    each mapped to the word of the language it stands for (几耐 → 多久, 入面 → 里面, 咗 → 了). They
    weigh what the language's own lists weigh: nothing."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    question_words: dict[str, str] = Field(min_length=1)
    fillers: dict[str, str] = Field(min_length=1)

    @model_validator(mode="after")
    def _glossed(self) -> VarietyData:
        for table in (self.question_words, self.fillers):
            for word, standard in table.items():
                if not word.strip() or not standard.strip():
                    raise ValueError(f"a variety's word and the word it stands for are not empty: {word!r}")
        both = set(self.question_words) & set(self.fillers)
        if both:
            raise ValueError(f"a word is a question word or a filler, not both: {sorted(both)}")
        return self


class LanguageData(BaseModel):
    """One language's words that carry no weight: `question_words` say how a question asks (what,
    怎么), `fillers` are the other function words (the, 的), and `varieties` the same two lists of a
    written variety of the language (Cantonese's 几多, 点样, 咗: one language with Mandarin)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    script: Literal["latin", "cjk"]
    question_words: list[str] = Field(min_length=1)
    fillers: list[str] = Field(min_length=1)
    varieties: dict[str, VarietyData] = Field(default_factory=dict)


class FillerData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    languages: dict[Literal["en", "zh"], LanguageData]
