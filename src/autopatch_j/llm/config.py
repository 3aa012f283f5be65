"""LLM settings (H-1): read once at the edge, passed down as a frozen value.

Sources, highest first: the environment (`AUTOPATCH_LLM_API_KEY`, `AUTOPATCH_LLM_BASE_URL`,
`AUTOPATCH_LLM_MODEL`, `AUTOPATCH_LLM_EXTRA_BODY`, the limits `AUTOPATCH_LLM_CONTEXT_TOKENS`,
`AUTOPATCH_LLM_MAX_OUTPUT_TOKENS`, `AUTOPATCH_LLM_DEADLINE_SECONDS`), then the project's
`.autopatch-j/config.toml` with the same keys in lowercase without the prefix, then the defaults —
read by the project's one configuration mechanism (`autopatch_j.configuration`, pydantic-settings;
the fields are in `llm/sources.py`). `debug` is on when `AUTOPATCH_DEBUG` or the file's `debug` says
so. Nothing configured means no LLM (Memory still works offline); anything half-configured or invalid
is an `LLMConfigError` whose message is one sentence saying what to set. Only the CLI entry point
calls `load_llm_settings`; the core never reads the environment. Users: docs/configuration.md.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from autopatch_j import set_variable
from autopatch_j.llm.errors import LLMConfigError
from autopatch_j.llm.setting_names import DEFAULT_DEADLINE_SECONDS, DEFAULT_MAX_OUTPUT_TOKENS, ENV_PREFIX, env_name

if TYPE_CHECKING:
    from autopatch_j.llm.sources import LLMSources

DEBUG_ENV = "AUTOPATCH_DEBUG"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_PLACEHOLDER_KEY = "no-key"  # sent to loopback servers (llama.cpp, Ollama) when no key is set


def _empty_body() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class LLMLimits:
    """Bounds of every request: the model's context when known, the main answer's output
    cap and its overall deadline (the 60 s request timeout only bounds the gaps between events)."""

    context_tokens: int | None = None
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    deadline_s: float = DEFAULT_DEADLINE_SECONDS


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """How to reach an OpenAI-compatible endpoint. The key never appears in `repr`."""

    api_key: str = field(repr=False)
    base_url: str
    model: str
    extra_body: Mapping[str, Any] = field(default_factory=_empty_body)
    debug: bool = False
    limits: LLMLimits = field(default_factory=LLMLimits)

    def describe(self) -> str:
        """A one-line, key-free description for status output."""
        return f"{self.model} at {self.base_url}"


def debug_enabled(environ: Mapping[str, str]) -> bool:
    """`AUTOPATCH_DEBUG` is on: the process switch, read like every boolean setting
    (`configuration.ProcessSettings`); a bad value is an `LLMConfigError`."""
    if set_variable(environ, DEBUG_ENV) is None:
        return False
    from autopatch_j.configuration import ConfigurationError, ProcessSettings, read_settings

    try:
        return read_settings(ProcessSettings, environ).debug
    except ConfigurationError as exc:
        raise LLMConfigError(str(exc)) from exc


def load_llm_settings(environ: Mapping[str, str], config_file: Path | None = None) -> LLMSettings | None:
    """Read the LLM settings once; None when no LLM is configured at all (H-1)."""
    if not _anything_set(environ, config_file):
        return None  # the common offline case, answered without loading pydantic-settings (cold start)
    from autopatch_j.llm.sources import read_llm_sources

    sources = read_llm_sources(environ, config_file)
    if not sources.configured:
        return None
    if sources.model is None:
        raise LLMConfigError(
            f"The LLM is partly configured but has no model: set {env_name('model')} "
            "(or `model` in .autopatch-j/config.toml) to the model name, such as gpt-4o-mini."
        )
    base_url = sources.base_url or DEFAULT_BASE_URL
    api_key = sources.api_key
    if api_key is None:
        if not _is_loopback(base_url):
            raise LLMConfigError(
                f"The LLM has no API key: set {env_name('api_key')} (or `api_key` in "
                ".autopatch-j/config.toml) to your provider's key."
            )
        api_key = LOCAL_PLACEHOLDER_KEY
    return LLMSettings(
        api_key=api_key,
        base_url=base_url,
        model=sources.model,
        extra_body=MappingProxyType(dict(sources.extra_body or {})),
        debug=debug_enabled(environ) or sources.debug,
        limits=_limits(sources),
    )


def load_llm_limits(environ: Mapping[str, str], config_file: Path | None = None) -> LLMLimits:
    """The request bounds alone; each must be a positive number, else one sentence saying what to set."""
    from autopatch_j.llm.sources import read_llm_sources

    return _limits(read_llm_sources(environ, config_file))


def _anything_set(environ: Mapping[str, str], config_file: Path | None) -> bool:
    """Some `AUTOPATCH_LLM_*` variable is non-blank, or there is something at the file's place."""
    if config_file is not None and config_file.exists():
        return True
    return set_variable(environ, prefix=ENV_PREFIX) is not None


def _limits(sources: LLMSources) -> LLMLimits:
    return LLMLimits(
        context_tokens=sources.context_tokens,
        max_output_tokens=sources.max_output_tokens,
        deadline_s=sources.deadline_seconds,
    )


def _is_loopback(base_url: str) -> bool:
    host = urllib.parse.urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
