"""Strict JSON contracts for model output (M-41, M-44).

`parse_json_object(text, Model)` accepts exactly one JSON object, optionally wrapped in one
```json fence, and validates it against a pydantic model that forbids unknown fields, in strict mode
(no "1" → 1 coercion). Anything else — prose, several objects, an array, unknown or missing fields,
wrong types — is an `LLMResponseError` whose `raw` keeps the model's text (bounded) for diagnostics.
Models subclass `strict_model.StrictModel` (or set `extra="forbid"` themselves).
"""

from __future__ import annotations

import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from autopatch_j.llm.diagnostics import bound_text
from autopatch_j.llm.errors import LLMResponseError
from autopatch_j.runtime import MAX_ERROR_CHARS

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"\A```[ \t]*(?:json)?[ \t]*\r?\n(?P<body>.*?)\r?\n?```\Z", re.DOTALL | re.IGNORECASE)
_MAX_LISTED_ERRORS = 8


def strip_fence(text: str) -> str:
    """The text inside one surrounding ```json (or ```) fence, else the stripped text."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group("body").strip() if match else stripped


def parse_json_object(text: str, model: type[M], *, strict: bool = True) -> M:
    """Validate model output against `model`; `LLMResponseError` (with the RAW text) if it breaks it."""
    if model.model_config.get("extra") != "forbid":
        raise TypeError(f"{model.__name__} must forbid extra fields (extra='forbid') to be a JSON contract")
    body = strip_fence(text)
    name = model.__name__
    if not body.startswith("{"):
        raise LLMResponseError(
            f"the model output is not a JSON object for {name}", raw=bound_text(text, MAX_ERROR_CHARS)
        )
    try:
        return model.model_validate_json(body, strict=strict)
    except ValidationError as exc:
        raise LLMResponseError(
            f"the model output breaks the {name} contract: {_summary(exc)}",
            raw=bound_text(text, MAX_ERROR_CHARS),
        ) from exc


def _summary(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    parts = []
    for error in errors[:_MAX_LISTED_ERRORS]:
        where = ".".join(str(p) for p in error["loc"]) or "(root)"
        parts.append(f"{where}: {error['msg']}")
    if len(errors) > _MAX_LISTED_ERRORS:
        parts.append(f"… {len(errors) - _MAX_LISTED_ERRORS} more")
    return "; ".join(parts)
