"""Bounded Stage-1 and Stage-2 requests: excerpts of long texts and a total budget.

A real model has a finite context: one 200,000-character answer must not turn a whole batch into a
`context_length_exceeded` error. Every text of a request is therefore cut to an *excerpt* — verbatim
pieces of the RAW text (its beginning, the sentences carrying an explicit statement or a proposal,
its end) joined by an omission marker — so any quote the model copies from one piece is still an
exact substring of the full RAW text the validators check (M-42). The whole user message must fit
`PromptBudget`: at most `max_chars` characters and, when the model's context is known
(`AUTOPATCH_LLM_CONTEXT_TOKENS`), at most the tokens left after the system prompt, the output cap and
a margin, estimated conservatively (one token per non-ASCII character, one per 2.5 ASCII characters).
The per-field caps shrink until the payload fits.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_CHARS = 32_000
TOKEN_MARGIN = 256
ASCII_CHARS_PER_TOKEN = 2.5
MIN_SCALE = 0.02
SHRINK = 0.7
MARKER = "\n[… {n} characters omitted …]\n"
MAX_SENTENCE_CHARS = 1_000
_SENTENCE = re.compile(r"[^\n。！？!?]*(?:[。！？!?]+|\n|$)")


def estimate_tokens(text: str) -> int:
    """A deliberately high estimate of the tokens `text` costs, whatever the tokenizer."""
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return (len(text) - ascii_chars) + math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN)


@dataclass(frozen=True, slots=True)
class PromptBudget:
    """How large one request's user message may be."""

    max_chars: int = DEFAULT_MAX_CHARS
    context_tokens: int | None = None

    def token_room(self, *, system: str, max_output_tokens: int) -> int | None:
        """Tokens left for the user message, or None when the model's context is unknown."""
        if self.context_tokens is None:
            return None
        return max(self.context_tokens - max_output_tokens - estimate_tokens(system) - TOKEN_MARGIN, 0)

    def fits(self, text: str, *, system: str, max_output_tokens: int) -> bool:
        if len(text) > self.max_chars:
            return False
        room = self.token_room(system=system, max_output_tokens=max_output_tokens)
        return room is None or estimate_tokens(text) <= room


def excerpt(text: str, cap: int, *, important: Callable[[str], bool] | None = None) -> str:
    """`text` itself when it fits `cap`, else verbatim pieces of it (≈ `cap` characters in all)."""
    if len(text) <= cap:
        return text
    cap = max(cap, 2)
    head, tail = cap // 3, cap // 4
    spans = [(0, head), (len(text) - tail, len(text))]
    room = cap - head - tail
    if important is not None and room > 0:
        for match in _SENTENCE.finditer(text, head, len(text) - tail):
            start, end = match.span()
            sentence = text[start:end]
            if not sentence.strip() or len(sentence) > min(room, MAX_SENTENCE_CHARS):
                continue
            if important(sentence):
                spans.append((start, end))
                room -= len(sentence)
                if room <= 0:
                    break
    pieces: list[str] = []
    last = 0
    for start, end in sorted(spans):
        start = max(start, last)
        if start >= end:
            continue
        if start > last:
            pieces.append(MARKER.format(n=start - last))
        pieces.append(text[start:end])
        last = end
    return "".join(pieces)


def fit(build: Callable[[float], dict[str, Any]], budget: PromptBudget, *, system: str, max_output_tokens: int) -> str:
    """The JSON text of `build(scale)` for the largest scale (1, 0.7, 0.49 …) that fits the budget."""
    scale = 1.0
    while True:
        text = json.dumps(build(scale), ensure_ascii=False)
        if scale <= MIN_SCALE or budget.fits(text, system=system, max_output_tokens=max_output_tokens):
            return text
        scale *= SHRINK
