"""The offline extractor's compaction: a bounded rolling digest of the turns (Stage 1's output beside
its candidates)."""

from __future__ import annotations

from autopatch_j.memory.batches import ExtractionRequest
from autopatch_j.memory.metadata import clip
from autopatch_j.memory.validation import MAX_COMPACTION_CHARS

_DIGEST_CHARS = 160


def compaction(request: ExtractionRequest) -> str:
    """The request's compaction followed by one line per turn and side (`[seq] user: …`, whitespace
    folded, each clipped), its oldest lines dropped until it fits the validator's bound."""
    lines = [line for line in request.compaction.splitlines() if line.strip()]
    for turn in request.turns:
        lines.append(f"[{turn.seq}] user: {_digest(turn.user_text)}")
        if turn.assistant_text:
            lines.append(f"[{turn.seq}] assistant: {_digest(turn.assistant_text)}")
    while lines and len("\n".join(lines)) > MAX_COMPACTION_CHARS:
        lines.pop(0)
    return "\n".join(lines)


def _digest(text: str) -> str:
    return clip(" ".join(text.split()), _DIGEST_CHARS)
