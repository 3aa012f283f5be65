"""The LLM provider of a process, for every face: by default the OpenAI-compatible provider built from
`app.llm_settings()`; tests replace the module attribute `provider_factory` to inject a canned or
loopback provider. No LLM configured → `LLMConfigError` naming the variables to set (exit 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from autopatch_j.app.context import AppContext
from autopatch_j.llm.errors import LLMConfigError

if TYPE_CHECKING:
    from autopatch_j.llm.provider import LLMProvider

NO_LLM_MESSAGE = (
    "No LLM is configured: set AUTOPATCH_LLM_API_KEY, AUTOPATCH_LLM_BASE_URL and AUTOPATCH_LLM_MODEL "
    "(or api_key, base_url and model in .autopatch-j/config.toml)."
)

ProviderFactory = Callable[[AppContext], "LLMProvider"]


def default_provider_factory(app: AppContext) -> LLMProvider:
    """The OpenAI-compatible provider from the environment and config file (H-1)."""
    from autopatch_j.llm.openai_provider import OpenAIProvider

    settings = app.llm_settings()
    if settings is None:
        raise LLMConfigError(NO_LLM_MESSAGE)
    return OpenAIProvider(settings=settings)


provider_factory: ProviderFactory = default_provider_factory
"""How `build_host` gets its provider when none is passed; tests monkeypatch this attribute."""
