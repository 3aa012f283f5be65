"""The base of every contract a model's or an extractor's answer must keep (M-41, M-44).

Unknown fields are errors and values are immutable. The LLM layer parses answers into such models
(`llm.json_contract.parse_json_object`); the Memory contracts (`memory.contracts`) subclass it too,
so the offline path needs no LLM module.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A contract: unknown fields are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)
