"""`autopatch_j.set_variable`: the one answer to "is this setting given in the environment?"."""

from __future__ import annotations

from autopatch_j import set_variable


def test_a_variable_is_set_in_any_case_and_named_as_written() -> None:
    assert set_variable({"autopatch_debug": "1"}, "AUTOPATCH_DEBUG") == "autopatch_debug"
    environ = {"PATH": "/bin", "AUTOPATCH_DEBUG": "on"}
    assert set_variable(environ, "AUTOPATCH_X", "AUTOPATCH_DEBUG") == "AUTOPATCH_DEBUG"


def test_a_blank_value_or_another_name_is_not_set() -> None:
    assert set_variable({"AUTOPATCH_DEBUG": "  \t"}, "AUTOPATCH_DEBUG") is None
    assert set_variable({"AUTOPATCH_DEBUGGER": "1", "DEBUG": "1"}, "AUTOPATCH_DEBUG") is None
    assert set_variable({}, "AUTOPATCH_DEBUG") is None


def test_a_prefix_matches_every_variable_that_starts_with_it() -> None:
    assert set_variable({"Autopatch_LLM_Model": "m"}, prefix="AUTOPATCH_LLM_") == "Autopatch_LLM_Model"
    assert set_variable({"AUTOPATCH_LLM_MODEL": " ", "AUTOPATCH_LLMX": "1"}, prefix="AUTOPATCH_LLM_") is None
