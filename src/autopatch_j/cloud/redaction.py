"""Secret redaction applied before anything derived from a task is stored (C-24).

`redact(text)` is a pure function: call it *before* opening a write transaction (it never touches
the database). It runs in time linear in the length of the text: every rule in `secret_rules` is a
regular expression whose work per start position is bounded (possessive or bounded quantifiers,
lookbehinds that admit one start per run), checked by `bench/redaction_bench.py`.

Escape sequences cannot hide a secret: the rules run on a *decoded view* of the text in which
`\\n`, `\\t`, `\\"`, `\\uXXXX`, `\\xXX` … stand for the characters they encode, and every match is
mapped back to the original text, so `"…\\nghp_…"` inside JSON is caught like `ghp_…` on a line of
its own. Distinctive token prefixes (`ghp_`, `AKIA`, `sk-proj-`, `xoxb-` …) need no word boundary
before them, so an adjacent word character does not hide one either. All matches are merged and each
merged span becomes `[REDACTED]`; the result is idempotent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NewType

from autopatch_j.cloud.secret_rules import REDACTED, RULES, Rule

__all__ = ["REDACTED", "RedactedText", "contains_secret", "redact", "redacted", "secret_spans"]

RedactedText = NewType("RedactedText", str)
"""Text that went through `redact` (so a function that stores it inside a transaction needs no
redaction of its own)."""

_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrtbfv0\"'\\/])")
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "b": " ", "f": " ", "v": " ", "0": " "}


def _decode(escape: str) -> str:
    kind = escape[1]
    if kind in "ux":
        return chr(int(escape[2:], 16))
    return _SIMPLE.get(kind, kind)


def decoded_view(text: str) -> tuple[str, list[int] | None]:
    """The text with escape sequences decoded, and for each view index the original index (plus one
    trailing entry for the end); None when the text has no backslash (the view is the text)."""
    if "\\" not in text:
        return text, None
    parts: list[str] = []
    index: list[int] = []
    pos = 0
    for match in _ESCAPE.finditer(text):
        start = match.start()
        parts.append(text[pos:start])
        index.extend(range(pos, start))
        parts.append(_decode(match.group()))
        index.append(start)
        pos = match.end()
    parts.append(text[pos:])
    index.extend(range(pos, len(text)))
    index.append(len(text))
    return "".join(parts), index


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def secret_spans(text: str, rules: tuple[Rule, ...] = RULES) -> list[tuple[int, int]]:
    """Merged (start, end) spans of `text` that hold secrets."""
    view, index = decoded_view(text)
    spans = [span for rule in rules for span in rule.find(view)]
    if index is not None:
        spans = [(index[start], index[end]) for start, end in spans]
    return _merge(spans)


def redact(text: str) -> str:
    """Replace every secret the rules know with `[REDACTED]`; idempotent, linear time, no I/O."""
    spans = secret_spans(text)
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(text[pos:start])
        out.append(REDACTED)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redacted(text: str) -> RedactedText:
    """`redact(text)` typed as already redacted: call it before the write transaction opens."""
    return RedactedText(redact(text))


def contains_secret(text: str) -> bool:
    """True when any rule finds a secret in the text."""
    return bool(secret_spans(text))
