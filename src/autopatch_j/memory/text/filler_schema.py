"""The schema of `fillers.json` (pydantic; unknown fields are refused). Kept apart from languages.py so
that tokenizing never imports pydantic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class LanguageData(BaseModel):
    """One language's words that carry no weight: `question_words` say how a question asks (what,
    怎么, and written Cantonese's 几多, 点样 — one language with Mandarin), `fillers` are the other
    function words (the, 的, 咗)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    script: Literal["latin", "cjk"]
    question_words: list[str] = Field(min_length=1)
    fillers: list[str] = Field(min_length=1)


class FillerData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    languages: dict[Literal["en", "zh"], LanguageData]
