"""Errors of the LLM layer."""

from __future__ import annotations


class LLMError(Exception):
    """The language model call failed."""


class LLMConfigError(LLMError):
    """The LLM is not configured: set AUTOPATCH_LLM_API_KEY and AUTOPATCH_LLM_BASE_URL (and AUTOPATCH_LLM_MODEL)."""


class LLMTimeoutError(LLMError):
    """The language model did not answer within the request timeout."""


class LLMResponseError(LLMError):
    """The language model answered with something that breaks the expected contract."""
