"""Cloud settings: defaults, environment prefix, validation; auto-memory settings validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from autopatch_j.cloud.memory_settings import AutoMemorySettings, describe_validation_error
from autopatch_j.cloud.settings import CloudSettings


def test_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AUTOPATCH_CLOUD_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    s = CloudSettings()
    assert s.db == f"sqlite:///{tmp_path}/autopatch-j/cloud.sqlite3"
    assert (s.host, s.port, s.executor, s.lease_seconds) == ("127.0.0.1", 8000, "scripted", 300.0)


def test_environment_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUTOPATCH_CLOUD_DB", "postgresql+psycopg://u@h/d")
    monkeypatch.setenv("AUTOPATCH_CLOUD_EXECUTOR", "llm")
    monkeypatch.setenv("AUTOPATCH_CLOUD_LLM_MODEL", "m1")
    s = CloudSettings()
    assert (s.db, s.executor, s.llm_model) == ("postgresql+psycopg://u@h/d", "llm", "m1")


@pytest.mark.parametrize("bad", [{"db": "nope"}, {"port": 70000}, {"executor": "x"}, {"lease_seconds": 0}])
def test_invalid_settings_are_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        CloudSettings(**bad)  # type: ignore[arg-type]


def test_auto_memory_defaults_are_all_off() -> None:
    s = AutoMemorySettings()
    assert (s.generate_memories, s.use_memories, s.disable_on_external_context) == (0, 0, 1)
    assert (s.min_rate_limit_remaining_percent, s.idle_seconds, s.min_duration_seconds, s.min_result_chars) == (
        20,
        900,
        30,
        200,
    )


@settings(max_examples=100, derandomize=True, database=None)
@given(
    switch=st.integers(-5, 5),
    percent=st.floats(allow_nan=True, allow_infinity=True),
    idle=st.integers(-10, 40_000_000),
)
def test_validation_accepts_exactly_the_documented_ranges(switch: int, percent: float, idle: int) -> None:
    ok = switch in (0, 1) and 0 <= percent <= 100 and 0 <= idle <= 31_536_000
    try:
        AutoMemorySettings(generate_memories=switch, min_rate_limit_remaining_percent=percent, idle_seconds=idle)
    except ValidationError as exc:
        assert not ok
        assert describe_validation_error(exc).startswith("invalid auto-memory settings — ")
    else:
        assert ok


def test_options_over_the_given_environment_over_defaults() -> None:
    """Issue 16: the same mechanism as the LLM settings, over the mapping handed in (not os.environ)."""
    from autopatch_j.cloud.settings import read_cloud_settings

    environ = {"AUTOPATCH_CLOUD_DB": "sqlite:///env.db", "AUTOPATCH_CLOUD_PORT": " 9000 ", "AUTOPATCH_CLOUD_HOST": "  "}
    s = read_cloud_settings(environ, db="sqlite:///option.db", port=None, executor="llm")
    assert (s.db, s.port, s.host, s.executor) == ("sqlite:///option.db", 9000, "127.0.0.1", "llm")
    assert read_cloud_settings({"autopatch_cloud_max_attempts": "7", "AUTOPATCH_CLOUD_NOPE": "x"}).max_attempts == 7


def test_a_bad_value_is_one_sentence_naming_its_source() -> None:
    from autopatch_j.cloud.errors import ConfigError
    from autopatch_j.cloud.settings import read_cloud_settings

    with pytest.raises(ConfigError, match=r"^AUTOPATCH_CLOUD_LEASE_SECONDS is '0', but .*: fix it or unset it\.$"):
        read_cloud_settings({"AUTOPATCH_CLOUD_LEASE_SECONDS": "0"})
    with pytest.raises(ConfigError, match=r"^--port is 70000, but .*: fix the option\.$"):
        read_cloud_settings({"AUTOPATCH_CLOUD_PORT": "80"}, port=70000)
    with pytest.raises(ConfigError) as caught:
        read_cloud_settings(
            {"AUTOPATCH_CLOUD_MEMORY_LLM_API_KEY": "sk-secret", "AUTOPATCH_CLOUD_MEMORY_LLM_TIMEOUT_SECONDS": "x"}
        )
    assert "sk-secret" not in str(caught.value)
