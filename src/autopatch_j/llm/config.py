"""LLM settings (H-1): read once at the edge, passed down as a frozen value.

Sources, highest first: the environment (`AUTOPATCH_LLM_API_KEY`, `AUTOPATCH_LLM_BASE_URL`,
`AUTOPATCH_LLM_MODEL`, `AUTOPATCH_LLM_EXTRA_BODY`, `AUTOPATCH_DEBUG`, and the limits
`AUTOPATCH_LLM_CONTEXT_TOKENS`, `AUTOPATCH_LLM_MAX_OUTPUT_TOKENS`, `AUTOPATCH_LLM_DEADLINE_SECONDS`), then
the project's `.autopatch-j/config.toml` with the same keys in lowercase without the prefix (`api_key`,
`base_url`, `model`, `extra_body`, `debug`, `context_tokens`, `max_output_tokens`, `deadline_seconds`).
Nothing configured means no LLM (Memory still works offline);
anything half-configured or invalid is an `LLMConfigError` whose message is one sentence saying what
to set. Only the CLI entry point calls `load_llm_settings`; the core never reads the environment.
"""

from __future__ import annotations

import ipaddress
import json
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from autopatch_j.llm.errors import LLMConfigError
from autopatch_j.llm.provider import MAIN_DEADLINE_S, MAIN_MAX_OUTPUT_TOKENS

ENV_PREFIX = "AUTOPATCH_LLM_"
DEBUG_ENV = "AUTOPATCH_DEBUG"
CONFIG_FILE_NAME = "config.toml"  # inside the project's `.autopatch-j/`
DEFAULT_BASE_URL = "https://api.openai.com/v1"
LOCAL_PLACEHOLDER_KEY = "no-key"  # sent to loopback servers (llama.cpp, Ollama) when no key is set

_KEYS = ("api_key", "base_url", "model", "extra_body")
_LIMIT_KEYS = ("context_tokens", "max_output_tokens", "deadline_seconds")
DEFAULT_MAX_OUTPUT_TOKENS = MAIN_MAX_OUTPUT_TOKENS  # the main answer's cap: a model cannot fill its context
DEFAULT_DEADLINE_SECONDS = MAIN_DEADLINE_S  # the main answer's overall deadline, whatever the gaps between events
MIN_CONTEXT_TOKENS = 1024
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def _empty_body() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class LLMLimits:
    """Bounds of every request (issue 17): the model's context when known, the main answer's output
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
    """`AUTOPATCH_DEBUG` is on (`1`, `true`, `yes`, `on`, any case)."""
    return environ.get(DEBUG_ENV, "").strip().lower() in _TRUE


def env_name(key: str) -> str:
    return ENV_PREFIX + key.upper()


def load_llm_settings(environ: Mapping[str, str], config_file: Path | None = None) -> LLMSettings | None:
    """Read the LLM settings once; None when no LLM is configured at all (H-1)."""
    file_values = _read_config_file(config_file) if config_file is not None else {}
    values: dict[str, object] = {}
    where: dict[str, str] = {}
    for key in _KEYS:
        raw_env = environ.get(env_name(key))
        if raw_env is not None and raw_env.strip():
            values[key] = raw_env.strip()
            where[key] = env_name(key)
        elif key in file_values:
            values[key] = file_values[key]
            where[key] = f"`{key}` in {config_file}"
    debug = debug_enabled(environ) or _file_debug(file_values, config_file)
    if not values:
        return None

    for key, value in values.items():
        if key != "extra_body" and not isinstance(value, str):
            raise LLMConfigError(f"{where[key]} must be a string: set {env_name(key)} or fix the file.")

    model = str(values.get("model", "")).strip()
    if not model:
        raise LLMConfigError(
            f"The LLM is partly configured but has no model: set {env_name('model')} "
            "(or `model` in .autopatch-j/config.toml) to the model name, such as gpt-4o-mini."
        )
    base_url = _check_base_url(str(values.get("base_url", DEFAULT_BASE_URL)).strip(), where)
    api_key = str(values.get("api_key", "")).strip()
    if not api_key:
        if not _is_loopback(base_url):
            raise LLMConfigError(
                f"The LLM has no API key: set {env_name('api_key')} (or `api_key` in "
                ".autopatch-j/config.toml) to your provider's key."
            )
        api_key = LOCAL_PLACEHOLDER_KEY
    extra_body = _parse_extra_body(values.get("extra_body"), where)
    limits = load_llm_limits(environ, file_values, config_file)
    return LLMSettings(
        api_key=api_key, base_url=base_url, model=model, extra_body=extra_body, debug=debug, limits=limits
    )


def load_llm_limits(
    environ: Mapping[str, str], file_values: Mapping[str, object] | None = None, config_file: Path | None = None
) -> LLMLimits:
    """The request bounds; each must be a positive number, else one sentence saying what to set."""
    file_values = file_values or {}
    found: dict[str, float] = {}
    for key in _LIMIT_KEYS:
        raw: object = environ.get(env_name(key), "").strip() or file_values.get(key)
        if raw is None or raw == "":
            continue
        source = env_name(key) if environ.get(env_name(key), "").strip() else f"`{key}` in {config_file}"
        try:
            value = float(raw) if isinstance(raw, str | int | float) and not isinstance(raw, bool) else float("nan")
        except (TypeError, ValueError):
            value = float("nan")
        integral = key != "deadline_seconds"
        if not value > 0 or value == float("inf") or (integral and value != int(value)):
            kind = "a positive whole number" if integral else "a positive number of seconds"
            raise LLMConfigError(f"{source} must be {kind}, not {raw!r}: fix it or unset it.")
        if key == "context_tokens" and value < MIN_CONTEXT_TOKENS:
            raise LLMConfigError(f"{source} must be at least {MIN_CONTEXT_TOKENS} tokens, not {raw!r}.")
        found[key] = value
    return LLMLimits(
        context_tokens=int(found["context_tokens"]) if "context_tokens" in found else None,
        max_output_tokens=int(found.get("max_output_tokens", DEFAULT_MAX_OUTPUT_TOKENS)),
        deadline_s=found.get("deadline_seconds", DEFAULT_DEADLINE_SECONDS),
    )


def _read_config_file(path: Path) -> dict[str, object]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMConfigError(f"Cannot read {path} ({exc}): fix its permissions or remove it.") from exc
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LLMConfigError(f"{path} is not valid TOML ({exc}): fix it or remove it.") from exc


def _file_debug(file_values: Mapping[str, object], config_file: Path | None) -> bool:
    value = file_values.get("debug", False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise LLMConfigError(f"`debug` in {config_file} must be true or false: fix it or remove it.")


def _check_base_url(base_url: str, where: Mapping[str, str]) -> str:
    parsed = urllib.parse.urlsplit(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        source = where.get("base_url", env_name("base_url"))
        raise LLMConfigError(
            f"{source} is not an http(s) URL ({base_url!r}): set {env_name('base_url')} to the "
            "endpoint's base URL, such as https://api.deepseek.com/v1."
        )
    return base_url.rstrip("/")


def _is_loopback(base_url: str) -> bool:
    host = urllib.parse.urlsplit(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parse_extra_body(value: object, where: Mapping[str, str]) -> Mapping[str, Any]:
    if value is None:
        return _empty_body()
    source = where.get("extra_body", env_name("extra_body"))
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise LLMConfigError(
                f"{source} is not valid JSON ({exc.msg} at char {exc.pos}): set "
                f'{env_name("extra_body")} to a JSON object such as {{"top_p": 0.9}}.'
            ) from exc
    if not isinstance(value, dict):
        raise LLMConfigError(
            f"{source} must be a JSON object, not {type(value).__name__}: set "
            f'{env_name("extra_body")} to a JSON object such as {{"top_p": 0.9}}.'
        )
    return MappingProxyType(dict(value))
