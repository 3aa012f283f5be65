"""The process's own switches, read once per invocation through the one configuration mechanism.

`AUTOPATCH_DEBUG`, `AUTOPATCH_MEMORY_EXTRACTOR`, `AUTOPATCH_LIVE_EVAL` and `AUTOPATCH_EVAL_SEED`
(docs/configuration.md) are fields of `configuration.ProcessSettings`: a boolean takes what every
boolean setting takes, a blank value is unset, and a bad value is a `SettingsError` — one sentence
naming the variable, exit 5 like every configuration error. When none of them is set, the defaults
are answered without loading pydantic (the cold start of `memory status`, `--help`); so are they
when only `AUTOPATCH_MEMORY_EXTRACTOR` is, a text field whose value pydantic takes as it is (stripped,
the last of its spellings in any case, as `configuration.EnvironSource` reads it) — a hook or MCP
setup that names the extractor starts as fast as one that does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from autopatch_j import set_variable
from autopatch_j.app.errors import SettingsError

#: Every variable of `configuration.ProcessSettings` (tests/app/test_settings.py keeps them in step).
_NAMES = ("AUTOPATCH_DEBUG", "AUTOPATCH_MEMORY_EXTRACTOR", "AUTOPATCH_LIVE_EVAL", "AUTOPATCH_EVAL_SEED")
#: The one switch of any text: read without pydantic when it alone is set.
_TEXT = "autopatch_memory_extractor"


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
    given = _given(environ)
    if given.keys() == {_TEXT}:
        return Switches(memory_extractor=given[_TEXT])
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


def _given(environ: Mapping[str, str]) -> dict[str, str]:
    """The switches set in `environ` as `configuration.EnvironSource` reads them: lower-case name →
    stripped value, blanks left out, the last spelling of a name winning."""
    names = {name.lower() for name in _NAMES}
    return {name.lower(): value.strip() for name, value in environ.items() if name.lower() in names and value.strip()}
