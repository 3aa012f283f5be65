"""The schema of `fillers.json` (pydantic; unknown fields are refused). Kept apart from languages.py so
that tokenizing never imports pydantic."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class LanguageData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    script: Literal["latin", "cjk"]
    fillers: list[str] = Field(min_length=1)


class FillerData(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    languages: dict[Literal["en", "zh"], LanguageData]
