"""LLM settings (H-1): environment over config file, None when unconfigured, one-sentence errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autopatch_j.llm.config import (
    DEFAULT_BASE_URL,
    LOCAL_PLACEHOLDER_KEY,
    LLMLimits,
    LLMSettings,
    debug_enabled,
    load_llm_settings,
)
from autopatch_j.llm.errors import LLMConfigError

FULL_ENV = {
    "AUTOPATCH_LLM_API_KEY": "sk-env",
    "AUTOPATCH_LLM_BASE_URL": "https://api.deepseek.com/v1/",
    "AUTOPATCH_LLM_MODEL": "deepseek-chat",
}


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / ".autopatch-j" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _one_sentence(message: str) -> bool:
    return message.count(". ") == 0 and message.endswith(".") and "\n" not in message


def test_nothing_configured_means_no_llm(tmp_path):
    assert load_llm_settings({}, None) is None
    assert load_llm_settings({"AUTOPATCH_LLM_MODEL": "  "}, tmp_path / "missing.toml") is None
    assert load_llm_settings({}, _file(tmp_path, "# nothing\n[memory]\nextractor = 'rules'\n")) is None


def test_environment_alone():
    settings = load_llm_settings(FULL_ENV, None)
    assert settings == LLMSettings(
        api_key="sk-env", base_url="https://api.deepseek.com/v1", model="deepseek-chat", extra_body={}
    )


def test_environment_wins_over_the_config_file(tmp_path):
    path = _file(
        tmp_path,
        'api_key = "sk-file"\nbase_url = "https://dashscope.aliyuncs.com/compatible-mode/v1"\n'
        'model = "qwen-plus"\nextra_body = { top_p = 0.5 }\n',
    )
    settings = load_llm_settings({"AUTOPATCH_LLM_MODEL": "qwen-max"}, path)
    assert settings is not None
    assert settings.model == "qwen-max"
    assert settings.api_key == "sk-file"
    assert settings.base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert dict(settings.extra_body) == {"top_p": 0.5}


def test_extra_body_from_environment_json():
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_LLM_EXTRA_BODY": '{"enable_thinking": false}'}, None)
    assert settings is not None and dict(settings.extra_body) == {"enable_thinking": False}


def test_extra_body_as_json_string_in_the_file(tmp_path):
    path = _file(tmp_path, """model = "m"\napi_key = "k"\nextra_body = '{"seed": 1}'\n""")
    settings = load_llm_settings({}, path)
    assert settings is not None and dict(settings.extra_body) == {"seed": 1}


def test_base_url_defaults_to_openai():
    settings = load_llm_settings({"AUTOPATCH_LLM_API_KEY": "k", "AUTOPATCH_LLM_MODEL": "gpt-4o-mini"}, None)
    assert settings is not None and settings.base_url == DEFAULT_BASE_URL


@pytest.mark.parametrize("host", ["localhost:11434", "127.0.0.1:8080", "[::1]:8000"])
def test_loopback_servers_need_no_key(host):
    env = {"AUTOPATCH_LLM_BASE_URL": f"http://{host}/v1", "AUTOPATCH_LLM_MODEL": "qwen2.5:7b"}
    settings = load_llm_settings(env, None)
    assert settings is not None and settings.api_key == LOCAL_PLACEHOLDER_KEY


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({"AUTOPATCH_LLM_API_KEY": "k"}, "AUTOPATCH_LLM_MODEL"),
        ({"AUTOPATCH_LLM_MODEL": "m"}, "AUTOPATCH_LLM_API_KEY"),
        ({"AUTOPATCH_LLM_MODEL": "m", "AUTOPATCH_LLM_BASE_URL": "https://x.example/v1"}, "AUTOPATCH_LLM_API_KEY"),
        ({**FULL_ENV, "AUTOPATCH_LLM_BASE_URL": "api.deepseek.com"}, "AUTOPATCH_LLM_BASE_URL"),
        ({**FULL_ENV, "AUTOPATCH_LLM_BASE_URL": "ftp://x/v1"}, "AUTOPATCH_LLM_BASE_URL"),
        ({**FULL_ENV, "AUTOPATCH_LLM_EXTRA_BODY": "{not json"}, "AUTOPATCH_LLM_EXTRA_BODY"),
        ({**FULL_ENV, "AUTOPATCH_LLM_EXTRA_BODY": "[1, 2]"}, "AUTOPATCH_LLM_EXTRA_BODY"),
        ({**FULL_ENV, "AUTOPATCH_LLM_EXTRA_BODY": '"text"'}, "AUTOPATCH_LLM_EXTRA_BODY"),
        ({"AUTOPATCH_LLM_EXTRA_BODY": "{}"}, "AUTOPATCH_LLM_MODEL"),
    ],
)
def test_partial_or_invalid_configuration_names_what_to_set(env, names):
    with pytest.raises(LLMConfigError) as caught:
        load_llm_settings(env, None)
    message = str(caught.value)
    assert names in message
    assert _one_sentence(message), message


def test_invalid_toml_is_a_config_error(tmp_path):
    path = _file(tmp_path, "model = \n")
    with pytest.raises(LLMConfigError, match="not valid TOML"):
        load_llm_settings({}, path)


def test_wrong_type_in_file_names_the_file(tmp_path):
    path = _file(tmp_path, "model = 3\napi_key = 'k'\n")
    with pytest.raises(LLMConfigError, match=r"`model` in .*config\.toml"):
        load_llm_settings({}, path)


def test_errors_never_echo_the_api_key():
    with pytest.raises(LLMConfigError) as caught:
        load_llm_settings({**FULL_ENV, "AUTOPATCH_LLM_BASE_URL": "nope"}, None)
    assert "sk-env" not in str(caught.value)


def test_the_key_is_not_in_repr():
    settings = load_llm_settings(FULL_ENV, None)
    assert settings is not None
    assert "sk-env" not in repr(settings)
    assert "sk-env" not in settings.describe()


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("1", True), ("YES", True), ("on", True), ("false", False), ("0", False), ("", False)],
)
def test_debug_switch(value, expected):
    assert debug_enabled({"AUTOPATCH_DEBUG": value}) is expected
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_DEBUG": value}, None)
    assert settings is not None and settings.debug is expected


def test_debug_from_file(tmp_path):
    settings = load_llm_settings(FULL_ENV, _file(tmp_path, "debug = true\n"))
    assert settings is not None and settings.debug is True


def test_limits_environment_over_file_over_defaults(tmp_path):
    path = _file(tmp_path, "context_tokens = 8192\nmax_output_tokens = 100\ndeadline_seconds = 30\n")
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": "64"}, path)
    assert settings is not None
    assert settings.limits == LLMLimits(context_tokens=8192, max_output_tokens=64, deadline_s=30.0)
    defaults = load_llm_settings(FULL_ENV, None)
    assert defaults is not None and defaults.limits == LLMLimits()


def test_unknown_keys_and_tables_are_ignored(tmp_path):
    path = _file(tmp_path, "colour = 'blue'\n[memory]\nextractor = 'rules'\n")
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_LLM_COLOUR": "red"}, path)
    assert settings == load_llm_settings(FULL_ENV, None)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("max_output_tokens = true\n", "max_output_tokens"),
        ("max_output_tokens = 1.5\n", "max_output_tokens"),
        ("context_tokens = 100\n", "context_tokens"),
        ("deadline_seconds = 'soon'\n", "deadline_seconds"),
        ("deadline_seconds = inf\n", "deadline_seconds"),
        ("api_key = ['k']\n", "api_key"),
        ("extra_body = [1]\n", "extra_body"),
        ("debug = 'maybe'\n", "debug"),
    ],
)
def test_a_wrong_typed_file_value_is_one_sentence_naming_key_and_file(tmp_path, text, key):
    path = _file(tmp_path, text)
    env = {name: value for name, value in FULL_ENV.items() if name != f"AUTOPATCH_LLM_{key.upper()}"}
    with pytest.raises(LLMConfigError) as caught:
        load_llm_settings(env, path)
    message = str(caught.value)
    assert f"`{key}` in {path}" in message
    assert _one_sentence(message), message


def test_the_environment_hides_a_bad_file_value(tmp_path):
    path = _file(tmp_path, "max_output_tokens = 'lots'\nmodel = 3\n")
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": "10"}, path)
    assert settings is not None and settings.model == "deepseek-chat" and settings.limits.max_output_tokens == 10


def test_debug_is_on_when_either_source_turns_it_on(tmp_path):
    on_in_file = _file(tmp_path, "debug = true\n")
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_DEBUG": "0"}, on_in_file)
    assert settings is not None and settings.debug is True
    off_in_file = _file(tmp_path, "debug = false\n")
    settings = load_llm_settings({**FULL_ENV, "AUTOPATCH_DEBUG": "yes"}, off_in_file)
    assert settings is not None and settings.debug is True


def test_an_unreadable_file_is_a_config_error(tmp_path):
    path = tmp_path / "config.toml"
    path.mkdir()
    with pytest.raises(LLMConfigError, match=r"config\.toml") as caught:
        load_llm_settings(FULL_ENV, path)
    assert _one_sentence(str(caught.value))


def test_nothing_to_read_does_not_load_the_settings_machinery(tmp_path):
    """The offline case (no variable, no file) answers None without importing pydantic-settings."""
    missing = str(tmp_path / "none.toml")
    code = (
        "import sys; from pathlib import Path; from autopatch_j.llm.config import load_llm_settings; "
        f"env = {{'AUTOPATCH_DEBUG': '1', 'AUTOPATCH_LLM_MODEL': ' '}}; "
        f"assert load_llm_settings(env, Path({missing!r})) is None; "
        "print('pydantic_settings' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
