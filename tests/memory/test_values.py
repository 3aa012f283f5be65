"""The values a statement sets, read by shape (`memory/values.py`), behind terse revisions (M-45)."""

from __future__ import annotations

import pytest

from autopatch_j.memory.values import values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("too tight. make it 45s", {("duration", "45000")}),
        ("以后服务间调用 deadline 统一 800ms", {("duration", "800")}),
        ("改成 1.5 秒", {("duration", "1500")}),
        ("cap uploads at 20MB", {("size", "20971520")}),
        ("灰度先放 5%", {("percent", "5")}),
        ("pin `~> 5.31.0` in every stack", {("version", "5.31.0")}),
        ("node 20.11 everywhere", {("version", "20.11")}),
        ("不行，还是 int64 吧", {("int_type", "int64")}),
        ("kebab-case for every route", {("style", "kebab")}),
        ("make it 120 only", {("number", "120")}),
        ("use the repository pattern", set()),
    ],
)
def test_a_statement_s_values_are_read_by_their_shape(text: str, expected: set[tuple[str, str]]) -> None:
    assert values(text) == expected


def test_the_same_duration_in_other_units_is_one_value() -> None:
    assert values("timeout 2m") == values("timeout 120 seconds")


def test_a_version_inside_a_quantity_is_not_read_twice() -> None:
    assert values("retry after 1.5s") == {("duration", "1500")}
