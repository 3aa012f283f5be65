"""What a failed Stage-1/Stage-2 attempt leads to: retry later, split the batch, or give up.

A job must not loop forever. Errors fall into three kinds:

- `too_large`: the provider rejected the request as too large for its context (HTTP 413, or 400
  with `context_length_exceeded` or a message saying the context/prompt is too long). Asking again
  with the same input cannot succeed.
- `contract`: the model's answer broke the JSON contract or a structural validation rule. At
  temperature 0 the same input tends to give the same answer.
- `transient`: anything else (timeouts, connection errors, 429/5xx, a busy store).

A *repeat* is a `contract` error identical (same RAW text) to the last error of one of the claim's
jobs. The verdict: a batch of several turns is *split* in halves on `too_large` or a repeat (each
half runs at once, recursively); a single job *fails* terminally on `too_large`, on a repeat, or when
`max_attempts` attempts have failed; otherwise the claim waits in `retry_wait` with the M-48 backoff.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from autopatch_j.llm.errors import LLMProviderError, LLMResponseError
from autopatch_j.memory.errors import ConsolidationRejected, ExtractionRejected
from autopatch_j.memory.records import Job

MAX_ATTEMPTS = 6  # 5 s + 30 s + 2 min + 10 min + 1 h of backoff, then `failed`
_TOO_LARGE_WORDS = ("context", "too long", "too large", "maximum", "exceed", "token")


class FailureKind(enum.StrEnum):
    TOO_LARGE = "too_large"
    CONTRACT = "contract"
    TRANSIENT = "transient"


class Verdict(enum.StrEnum):
    RETRY = "retry"
    SPLIT = "split"
    FAIL = "fail"


def classify(exc: BaseException) -> FailureKind:
    if isinstance(exc, LLMProviderError):
        message = str(exc).lower()
        code = (exc.code or "").lower()
        if exc.status == 413 or "context_length" in code:
            return FailureKind.TOO_LARGE
        if exc.status == 400 and sum(word in message for word in _TOO_LARGE_WORDS) >= 2:
            return FailureKind.TOO_LARGE
        return FailureKind.TRANSIENT
    if isinstance(exc, LLMResponseError | ExtractionRejected | ConsolidationRejected):
        return FailureKind.CONTRACT
    return FailureKind.TRANSIENT


def decide(kind: FailureKind, jobs: Sequence[Job], raw_error: str, *, max_attempts: int = MAX_ATTEMPTS) -> Verdict:
    """The verdict for a claim whose attempt just failed with `raw_error` of `kind`."""
    repeat = kind is FailureKind.CONTRACT and any(job.last_error == raw_error for job in jobs)
    if kind is FailureKind.TOO_LARGE or repeat:
        return Verdict.SPLIT if len(jobs) > 1 else Verdict.FAIL
    if max(job.attempts for job in jobs) + 1 >= max_attempts:
        return Verdict.FAIL
    return Verdict.RETRY
