"""The one configuration mechanism, shared by the LLM and the cloud settings.

Every settings class derives from `LayeredSettings` (pydantic-settings) and is read once, at the
entry point, by `read_settings`. The sources, highest first:

1. explicit values (the command's options), passed as `overrides`;
2. the environment — the mapping handed in (the CLI's copy of `os.environ`, a test's dict), never
   `os.environ` behind the caller's back; names are the class's prefix + the field name, any case;
   values are stripped and a blank value counts as unset;
3. a TOML file, when the caller names one (the same keys, lowercase, without the prefix; a missing
   file is empty);
4. the field defaults.

Unknown keys and unknown prefixed variables are ignored (the file may hold other tables). Anything
wrong is a `ConfigurationError` whose message is one sentence naming where the bad value came
from — the option, the variable or the key in the file — and what to do; each package re-raises it
as its own root error. User documentation: docs/configuration.md.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from autopatch_j import set_variable


class ConfigurationError(ValueError):
    """The configuration is invalid; the message is one sentence saying where and what to do."""


def settings_config(env_prefix: str) -> SettingsConfigDict:
    """The policy every settings class uses: its own prefix, unknown keys ignored, frozen values."""
    return SettingsConfigDict(env_prefix=env_prefix, extra="ignore", frozen=True, env_ignore_empty=True)


@dataclass(frozen=True, slots=True)
class _Inputs:
    environ: Mapping[str, str]
    toml_file: Path | None


_INPUTS: ContextVar[_Inputs | None] = ContextVar("autopatch_j_settings_inputs", default=None)


class EnvironSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping: values stripped, blank = unset."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._given = {name: value.strip() for name, value in environ.items() if value.strip()}
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        if self.case_sensitive:
            return dict(self._given)
        return {name.lower(): value for name, value in self._given.items()}


class LayeredSettings(BaseSettings):
    """Options over environment over TOML file over defaults; see the module docstring."""

    model_config = settings_config("AUTOPATCH_")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Built directly (`CloudSettings(db=…)` in tests) there is no `read_settings` call: the
        # process environment and no file, through the same source.
        inputs = _INPUTS.get() or _Inputs(environ=os.environ, toml_file=None)
        sources: list[PydanticBaseSettingsSource] = [init_settings, EnvironSource(settings_cls, inputs.environ)]
        if inputs.toml_file is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=inputs.toml_file))
        return tuple(sources)


SettingsT = TypeVar("SettingsT", bound=LayeredSettings)


def read_settings(
    cls: type[SettingsT],
    environ: Mapping[str, str],
    *,
    toml_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> SettingsT:
    """Read `cls` from the overrides (None = not given), `environ` and `toml_file`, in that order.

    The overrides are a command's options; an error names one as `--field-name`."""
    given = {name: value for name, value in (overrides or {}).items() if value is not None}
    if toml_file is not None:
        _check_file(toml_file)
    token = _INPUTS.set(_Inputs(environ=environ, toml_file=toml_file))
    try:
        return cls(**given)
    except ValidationError as exc:
        raise ConfigurationError(_describe(exc, cls, environ, toml_file, given)) from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{toml_file} is not valid TOML ({exc}): fix it or remove it.") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"Cannot read {toml_file} ({exc}): fix its permissions or remove it.") from exc
    finally:
        _INPUTS.reset(token)


def _check_file(path: Path) -> None:
    """A missing file is empty; something else at its place (a directory) is an error, not ignored."""
    if path.exists() and not path.is_file():
        raise ConfigurationError(f"Cannot read {path}: it is not a regular file; remove it or replace it.")


def env_variable(cls: type[LayeredSettings], field: str) -> str:
    return f"{cls.model_config.get('env_prefix', '')}{field}".upper()


def _describe(
    exc: ValidationError,
    cls: type[LayeredSettings],
    environ: Mapping[str, str],
    toml_file: Path | None,
    given: Mapping[str, Any],
) -> str:
    """The first problem as one sentence: where the value came from, what it was, what is wrong."""
    problem = exc.errors()[0]
    field = str(problem["loc"][0]) if problem["loc"] else ""
    if field in given:
        where, fix = f"--{field.replace('_', '-')}", "fix the option"
    elif (variable := _variable_set(cls, field, environ)) is not None:
        where, fix = variable, "fix it or unset it"
    elif toml_file is not None:
        where, fix = f"`{field}` in {toml_file}", "fix the file"
    else:
        where, fix = f"the setting `{field}`", "fix it"
    error = problem.get("ctx", {}).get("error")
    reason = str(error) if problem["type"] == "value_error" and error is not None else problem["msg"]
    reason = reason[:1].lower() + reason[1:]
    info = cls.model_fields.get(field)
    if info is not None and not info.repr:  # a key: never echoed
        return f"{where} is invalid ({reason}): {fix}."
    return f"{where} is {problem['input']!r}, but {reason}: {fix}."


def _variable_set(cls: type[LayeredSettings], field: str, environ: Mapping[str, str]) -> str | None:
    return set_variable(environ, env_variable(cls, field))


class ProcessSettings(LayeredSettings):
    """The process-wide switches (`AUTOPATCH_DEBUG`, `AUTOPATCH_MEMORY_EXTRACTOR`, `AUTOPATCH_LIVE_EVAL`,
    `AUTOPATCH_EVAL_SEED`): environment only, read once by the entry point (docs/configuration.md)."""

    model_config = settings_config("AUTOPATCH_")

    debug: bool = False
    memory_extractor: str | None = None  # `rules` or `llm`; checked where the extractor is chosen
    live_eval: bool = False
    eval_seed: int | None = None
