"""The process switches (`app.settings.read_switches`): every `ProcessSettings` variable is read, and
with none of them set the defaults come without parsing."""

from __future__ import annotations

import pytest

from autopatch_j.app.errors import SettingsError
from autopatch_j.app.settings import Switches, read_switches
from autopatch_j.configuration import ProcessSettings, env_variable, read_settings

# one value of each switch that is not its default, as written in the environment and as read
SET = {"debug": ("on", True), "memory_extractor": ("rules", "rules"), "live_eval": ("1", True), "eval_seed": ("7", 7)}


def test_every_process_variable_is_read_when_it_alone_is_set() -> None:
    assert set(SET) == set(ProcessSettings.model_fields)
    for field, (raw, value) in SET.items():
        switches = read_switches({env_variable(ProcessSettings, field): raw})
        assert getattr(switches, field) == value, field


def test_none_set_or_blank_is_the_defaults() -> None:
    assert read_switches({}) == Switches()
    assert read_switches({"AUTOPATCH_DEBUG": "  ", "PATH": "/bin"}) == Switches()


def test_a_bad_value_is_a_settings_error_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match="AUTOPATCH_EVAL_SEED"):
        read_switches({"AUTOPATCH_EVAL_SEED": "six"})


@pytest.mark.parametrize(
    "environ",
    [
        {"AUTOPATCH_MEMORY_EXTRACTOR": "rules"},
        {"AUTOPATCH_MEMORY_EXTRACTOR": "  llm \t"},
        {"autopatch_memory_extractor": "Rules"},
        {"AUTOPATCH_MEMORY_EXTRACTOR": "rules", "Autopatch_Memory_Extractor": "llm", "PATH": "/bin"},
        {"AUTOPATCH_MEMORY_EXTRACTOR": "llm", "autopatch_memory_extractor": "  "},
        {"AUTOPATCH_MEMORY_EXTRACTOR": "null"},
        {"AUTOPATCH_MEMORY_EXTRACTOR": "rules", "AUTOPATCH_DEBUG": "on"},
    ],
)
def test_the_extractor_alone_reads_as_the_settings_class_reads_it(environ: dict[str, str]) -> None:
    """Set alone, the extractor's text is answered without pydantic: exactly what `ProcessSettings`
    answers for the same environment (stripped, the last spelling of the name winning)."""
    settings = read_settings(ProcessSettings, environ)
    expected = Switches(settings.debug, settings.memory_extractor, settings.live_eval, settings.eval_seed)
    assert read_switches(environ) == expected
