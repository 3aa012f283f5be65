"""The `publish` setting as a settings class of the one configuration mechanism (imported only when
the setting is mentioned somewhere: `settings.read_publish_targets`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator
from pydantic_settings import NoDecode

from autopatch_j.app.publish import TARGETS
from autopatch_j.configuration import LayeredSettings, settings_config


def targets_value(value: object) -> object:
    """The setting's validator: a list (or, from the environment, a comma-separated string) of names."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        raise ValueError('it must be a list of "agents" and "claude", such as ["agents", "claude"]')
    for entry in value:
        if entry not in TARGETS:
            raise ValueError(f'{entry!r} is not a file it can publish to: use "agents" and/or "claude"')
    return tuple(dict.fromkeys(value))


class PublishSettings(LayeredSettings):
    model_config = settings_config("AUTOPATCH_")

    publish: Annotated[tuple[str, ...], NoDecode, BeforeValidator(targets_value)] = ()
