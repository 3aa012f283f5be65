"""Errors of the LLM layer.

`LLMError` is the root; SDK and transport exceptions are translated where the SDK is called
(`raise LLMProviderError(...) from exc`), so callers only ever catch `LLMError` subclasses.
"""

from __future__ import annotations


class LLMError(Exception):
    """The language model call failed."""


class LLMConfigError(LLMError):
    """Set AUTOPATCH_LLM_MODEL, AUTOPATCH_LLM_API_KEY and AUTOPATCH_LLM_BASE_URL to use the LLM."""


class LLMTimeoutError(LLMError):
    """The language model did not answer within the request timeout."""


class LLMResponseError(LLMError):
    """The language model answered with something that breaks the expected contract."""

    def __init__(self, message: str = "", *, raw: str | None = None) -> None:
        super().__init__(message)
        self.raw = raw  # the model's own text (bounded), kept for RAW diagnostics


class LLMProviderError(LLMError):
    """The LLM provider answered with an error."""

    def __init__(
        self,
        message: str = "",
        *,
        status: int | None = None,
        code: str | None = None,
        body: object | None = None,
        response_text: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status  # HTTP status, when there was a response
        self.code = code  # the provider's structured error code, when it sent one
        self.body = body  # the error body as the SDK decoded it (JSON value or text)
        self.response_text = response_text  # the provider's raw response body, unmodified


class LLMConnectionError(LLMProviderError):
    """The LLM provider could not be reached."""


class CannedQueueEmpty(LLMError):
    """The canned LLM provider has no response queued for this purpose."""

    def __init__(self, purpose: str) -> None:
        super().__init__(f"no canned LLM response queued for purpose {purpose!r}")
        self.purpose = purpose


class LLMCancelled(LLMError):
    """The request was cancelled; it was abandoned without waiting for the provider."""
