"""The `publish` setting: which files `memory drain` (and the agent hooks) republish after a drain.

    # .autopatch-j/config.toml
    publish = ["agents", "claude"]      # or ["agents"], ["claude"]; [] or absent: off (the default)

`AUTOPATCH_PUBLISH=agents,claude` sets it from the environment (over the file), like every setting
(docs/configuration.md). Read once, at the entry point, through the one configuration mechanism; with
no file and no variable the answer (off) comes without loading it. A bad value is a
`PublishConfigError`: one sentence naming where it came from, exit 5.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import BeforeValidator
from pydantic_settings import NoDecode

from autopatch_j.app.errors import PublishConfigError
from autopatch_j.configuration import ConfigurationError, LayeredSettings, read_settings, settings_config

ENV_NAME = "AUTOPATCH_PUBLISH"
TARGET_NAMES = ("agents", "claude")


def _targets(value: object) -> object:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        raise ValueError('it must be a list of "agents" and "claude", such as ["agents", "claude"]')
    for entry in value:
        if entry not in TARGET_NAMES:
            raise ValueError(f'{entry!r} is not a file it can publish to: use "agents" and/or "claude"')
    return tuple(dict.fromkeys(value))


class PublishSettings(LayeredSettings):
    model_config = settings_config("AUTOPATCH_")

    publish: Annotated[tuple[str, ...], NoDecode, BeforeValidator(_targets)] = ()


def read_publish_targets(environ: Mapping[str, str], config_file: Path) -> tuple[str, ...]:
    """The configured targets ("agents", "claude"), in the order given; () when publishing is off."""
    if not _mentioned(environ, config_file):
        return ()
    try:
        return read_settings(PublishSettings, environ, toml_file=config_file).publish
    except ConfigurationError as exc:
        raise PublishConfigError(str(exc)) from exc


def _mentioned(environ: Mapping[str, str], config_file: Path) -> bool:
    """The variable is set, or the file has a `publish` key (or cannot be parsed, which the full read reports)."""
    if any(name.upper() == ENV_NAME and value.strip() for name, value in environ.items()):
        return True
    if not config_file.exists():
        return False
    try:
        with config_file.open("rb") as handle:
            return "publish" in tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return True
