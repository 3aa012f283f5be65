"""What the LLM's configuration sources say, field by field (H-1).

`LLMSources` is read through the project's one configuration mechanism (`autopatch_j.configuration`):
`AUTOPATCH_LLM_*` variables over the keys of `.autopatch-j/config.toml` over the defaults. Each field
is checked on its own here (types, ranges, URL, JSON object); `llm.config.load_llm_settings` then
turns it into the frozen `LLMSettings` the code passes down, with the checks that need several
fields (a model when anything is set, a key for a remote endpoint). Imported only when settings are
read, so `import autopatch_j.llm.config` stays cheap.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_settings import NoDecode

from autopatch_j.configuration import ConfigurationError, LayeredSettings, read_settings, settings_config
from autopatch_j.llm.errors import LLMConfigError
from autopatch_j.llm.setting_names import (
    DEFAULT_DEADLINE_SECONDS,
    DEFAULT_MAX_OUTPUT_TOKENS,
    ENV_PREFIX,
    MIN_CONTEXT_TOKENS,
    env_name,
)

JSON_EXAMPLE = '{"top_p": 0.9}'


def _blank_is_unset(value: object) -> object:
    if isinstance(value, str):
        return value.strip() or None
    return value


def _http_url(value: object) -> object:
    value = _blank_is_unset(value)
    if not isinstance(value, str):
        return value  # None, or a non-string the type check reports
    parsed = urllib.parse.urlsplit(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ValueError("it must be an http(s) URL, such as https://api.deepseek.com/v1")
    return value.rstrip("/")


def _json_object(value: object) -> object:
    """A TOML table, or a JSON object in a string (the environment's only form)."""
    value = _blank_is_unset(value)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            problem = f"{exc.msg} at char {exc.pos}"
            raise ValueError(f"it is not valid JSON ({problem}); use an object such as {JSON_EXAMPLE}") from exc
    if value is not None and not isinstance(value, dict):
        raise ValueError(f"it must be a JSON object such as {JSON_EXAMPLE}, not {type(value).__name__}")
    return value


def _number(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("it must be a number, not true or false")
    return value


Text = Annotated[str | None, BeforeValidator(_blank_is_unset)]
HttpUrl = Annotated[str | None, BeforeValidator(_http_url)]
JsonObject = Annotated[dict[str, Any] | None, NoDecode, BeforeValidator(_json_object)]
PositiveWhole = Annotated[int, Field(gt=0), BeforeValidator(_number)]
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False), BeforeValidator(_number)]
ContextTokens = Annotated[int | None, Field(ge=MIN_CONTEXT_TOKENS), BeforeValidator(_number)]


class LLMSources(LayeredSettings):
    """The LLM keys, each as its sources give it; None = set nowhere."""

    model_config = settings_config(ENV_PREFIX)

    api_key: Text = Field(default=None, repr=False)
    base_url: HttpUrl = None
    model: Text = None
    extra_body: JsonObject = None
    debug: bool = False  # the file's switch; the variable is AUTOPATCH_DEBUG (see read_llm_sources)
    context_tokens: ContextTokens = None
    max_output_tokens: PositiveWhole = DEFAULT_MAX_OUTPUT_TOKENS
    deadline_seconds: PositiveSeconds = DEFAULT_DEADLINE_SECONDS

    @property
    def configured(self) -> bool:
        """Anything that says "use an LLM" is set (the limits and `debug` alone do not)."""
        return any(value is not None for value in (self.api_key, self.base_url, self.model, self.extra_body))


def read_llm_sources(environ: Mapping[str, str], config_file: Path | None) -> LLMSources:
    """Read the sources once; a bad value is an `LLMConfigError`, one sentence naming where it is."""
    # `AUTOPATCH_DEBUG` is the whole CLI's switch, read by `debug_enabled`; the prefix would make the
    # field's variable AUTOPATCH_LLM_DEBUG, which is not a documented name, so it is not read.
    ignored = env_name("debug")
    environ = {name: value for name, value in environ.items() if name.upper() != ignored}
    try:
        return read_settings(LLMSources, environ, toml_file=config_file)
    except ConfigurationError as exc:
        raise LLMConfigError(str(exc)) from exc
