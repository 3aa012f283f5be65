"""The table of tool alternatives (`memory/alternatives.py`): its schema and how a text names a tool.

What a new rule naming an alternative does to the rule it replaces is a behaviour case of
`offline/cases/revisions.json` (through `autopatch-j eval`)."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from pydantic import ValidationError

from autopatch_j.memory.alternatives import Alternatives, AlternativesTable, default_alternatives


def table(**concepts: list[str]) -> Alternatives:
    return Alternatives(AlternativesTable.model_validate({"version": 1, "comment": "", "concepts": concepts}))


def test_the_shipped_table_holds_hundreds_of_tools_in_many_concepts() -> None:
    raw = json.loads(resources.files("autopatch_j.memory").joinpath("alternatives.json").read_text(encoding="utf-8"))
    shipped = default_alternatives()
    members = {m for ms in shipped.concepts.values() for m in ms}
    assert (len(shipped.concepts) >= 150, len(members) >= 1000) == (True, True)
    assert set(raw) == {"version", "comment", "concepts"}


@pytest.mark.parametrize(
    "raw",
    [
        {"version": 1, "comment": "", "concepts": {"logging": ["zap", "zerolog"]}, "groups": {}},
        {"version": 2, "comment": "", "concepts": {"logging": ["zap", "zerolog"]}},
        {"version": 1, "comment": "", "concepts": {"logging": ["zap"]}},
        {"version": 1, "comment": "", "concepts": {"logging": ["Zap", "zerolog"]}},
        {"version": 1, "comment": "", "concepts": {"logging": ["zap", "zap"]}},
    ],
    ids=["unknown field", "unknown version", "one member", "not folded", "a member twice"],
)
def test_a_malformed_table_is_an_error(raw: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        AlternativesTable.model_validate(raw)


def test_a_member_inside_a_longer_name_is_not_named() -> None:
    t = table(frontend=["react", "vue"], fetching=["react-query", "swr"], bundler=["vite", "webpack"])
    assert t.named("Use react-query; the build is run.vite and vue-router stays.") == {
        "fetching": frozenset({"react-query"})
    }


def test_a_new_member_of_a_concept_the_old_text_names_replaces_it() -> None:
    t = table(go_logging=["zap", "zerolog", "logrus"], node_logging=["pino", "winston"])
    assert [
        t.replaced_concept("还是换成 zerolog 吧", "日志统一用 zap。"),
        t.replaced_concept("use zerolog instead of zap", "log with zap"),
        t.replaced_concept("the gateway logs with pino", "log with zap"),
        t.replaced_concept("keep zap, add sampling", "log with zap"),
    ] == ["go_logging", "go_logging", "", ""]


def test_siblings_are_the_other_members_of_each_named_concept() -> None:
    t = table(go_logging=["zap", "zerolog", "logrus"], ci=["jenkins", "github actions"])
    assert t.siblings("switch to zerolog, CI stays on jenkins") == ["zap", "logrus", "github actions"]


def test_the_shipped_table_knows_image_loading_libraries_per_platform() -> None:
    shipped = default_alternatives()
    assert shipped.replaced_concept("we'll use Kingfisher on iOS after all", "iOS stays on AsyncImage") == (
        "image loading library (ios)"
    )
    assert shipped.replaced_concept("Coil it is for Android", "images load with Glide") == (
        "image loading library (android)"
    )
