"""The process's own switches, read once per invocation through the one configuration mechanism.

`AUTOPATCH_DEBUG`, `AUTOPATCH_MEMORY_EXTRACTOR`, `AUTOPATCH_LIVE_EVAL` and `AUTOPATCH_EVAL_SEED`
(docs/configuration.md) are fields of `configuration.ProcessSettings`: a boolean takes what every
boolean setting takes, a blank value is unset, and a bad value is a `SettingsError` — one sentence
naming the variable, exit 5 like every configuration error. When none of them is set, the defaults
are answered without loading pydantic (the cold start of `memory status`, `--help`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from autopatch_j import set_variable
from autopatch_j.app.errors import SettingsError

#: Every variable of `configuration.ProcessSettings` (tests/app/test_settings.py keeps them in step).
_NAMES = ("AUTOPATCH_DEBUG", "AUTOPATCH_MEMORY_EXTRACTOR", "AUTOPATCH_LIVE_EVAL", "AUTOPATCH_EVAL_SEED")


@dataclass(frozen=True, slots=True)
class Switches:
    """The switches' values for this process."""

    debug: bool = False
    memory_extractor: str | None = None
    live_eval: bool = False
    eval_seed: int | None = None


def read_switches(environ: Mapping[str, str]) -> Switches:
    """The switches from `environ` (a copy of the process environment)."""
    if set_variable(environ, *_NAMES) is None:
        return Switches()
    from autopatch_j.configuration import ConfigurationError, ProcessSettings, read_settings

    try:
        settings = read_settings(ProcessSettings, environ)
    except ConfigurationError as exc:
        raise SettingsError(str(exc)) from exc
    return Switches(
        debug=settings.debug,
        memory_extractor=settings.memory_extractor,
        live_eval=settings.live_eval,
        eval_seed=settings.eval_seed,
    )
