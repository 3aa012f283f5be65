"""Configuration through the real entry point (issue 16): environment over `.autopatch-j/config.toml`
over defaults, key by key; a bad file or value is one sentence and a non-zero exit, never a traceback.

Each case runs `python -m autopatch_j` as a subprocess with a clean environment (no inherited
`AUTOPATCH_*`), so what is checked is exactly what a user gets. The LLM cases talk to the loopback
fake OpenAI server, whose recorded request shows the effective settings (model, key, output cap,
`extra_body`). docs/configuration.md describes the same rules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.fixtures import openai_server  # noqa: F401
from tests.support.openai_server import FakeOpenAIServer


def _run(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_")}
    clean["XDG_DATA_HOME"] = str(project.parent / "data")  # the cloud's default database stays in tmp
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", "-C", str(project), *args],
        env=clean | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _config(project: Path, text: str) -> Path:
    path = project / ".autopatch-j" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _ask(project: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return _run(project, "ask", "--intent", "general_chat", "--no-drain", "hello", env=env)


def _one_sentence_error(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("Memory lives in")]
    assert len(lines) == 1, stderr
    (line,) = lines
    assert line.startswith("error: ") and line.endswith("."), line
    return line


def test_environment_wins_over_the_file_key_by_key_and_unknown_keys_are_ignored(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    _config(
        project,
        f'api_key = "sk-file"\nbase_url = "{openai_server.base_url}"\nmodel = "file-model"\n'
        "extra_body = { top_p = 0.5 }\nmax_output_tokens = 100\ncolour = 'blue'\n\n"
        "[memory]\nextractor = 'rules'\n",
    )
    openai_server.reply_stream(["Hi."])
    env = {
        "AUTOPATCH_LLM_MODEL": "env-model",  # wins over the file
        "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": " 64 ",  # wins, surrounding blanks ignored
        "AUTOPATCH_LLM_API_KEY": "   ",  # blank: as if unset, the file's key is used
        "AUTOPATCH_LLM_COLOUR": "red",  # unknown: ignored
    }
    result = _ask(project, env)
    assert (result.returncode, result.stdout) == (0, "Hi.\n"), result.stderr
    request = openai_server.last_request()
    assert request.body["model"] == "env-model"
    assert request.body["max_tokens"] == 64
    assert request.body["top_p"] == 0.5
    assert request.headers["authorization"] == "Bearer sk-file"


def test_defaults_fill_what_neither_source_sets(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,  # noqa: F811 - the shared fixture imported above
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    openai_server.reply_stream(["Hi."])
    result = _ask(project, {"AUTOPATCH_LLM_BASE_URL": openai_server.base_url, "AUTOPATCH_LLM_MODEL": "m"})
    assert result.returncode == 0, result.stderr
    request = openai_server.last_request()
    assert request.body["max_tokens"] == 4096  # the default output cap
    assert request.headers["authorization"] == "Bearer no-key"  # loopback: no key needed


def test_a_malformed_file_is_one_sentence_and_exit_5(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    _config(project, "model = \n")
    result = _ask(project)
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "config.toml is not valid TOML" in line


def test_a_wrong_typed_file_value_names_the_key_and_the_file(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    _config(project, "model = 3\napi_key = 'k'\n")
    result = _ask(project)
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "`model` in " in line and "config.toml" in line


def test_a_wrong_typed_environment_value_names_the_variable(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    _config(project, "model = 'm'\nbase_url = 'http://127.0.0.1:9/v1'\n")
    result = _ask(project, {"AUTOPATCH_LLM_DEADLINE_SECONDS": "soon"})
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "AUTOPATCH_LLM_DEADLINE_SECONDS" in line and "soon" in line


def test_an_unreadable_file_is_one_sentence(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".autopatch-j" / "config.toml").mkdir(parents=True)  # a directory where the file should be
    result = _ask(project)
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "config.toml" in line


def test_a_bad_cloud_variable_names_the_variable(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    result = _run(project, "cloud", "init", env={"AUTOPATCH_CLOUD_MAX_ATTEMPTS": "many"})
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "AUTOPATCH_CLOUD_MAX_ATTEMPTS" in line and "many" in line


def test_a_bad_cloud_option_names_the_option_and_wins_over_the_environment(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    good = f"sqlite:///{tmp_path / 'cloud.sqlite3'}"
    result = _run(project, "cloud", "init", "--db", "nope", env={"AUTOPATCH_CLOUD_DB": good})
    assert result.returncode == 5
    line = _one_sentence_error(result.stderr)
    assert "--db" in line and "AUTOPATCH_CLOUD_DB" not in line
    assert not (tmp_path / "cloud.sqlite3").exists()
    ok = _run(project, "cloud", "init", env={"AUTOPATCH_CLOUD_DB": good})
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "cloud.sqlite3").exists()


def test_a_bad_eval_seed_in_the_environment_is_one_sentence_not_silently_ignored(tmp_path: Path) -> None:
    """`AUTOPATCH_EVAL_SEED=abc` used to fall back to seed 6 without a word: a reproduction run would
    quietly use another seed than the one asked for."""
    project = tmp_path / "p"
    project.mkdir()
    for bad in ("abc", "6.5", "0x10"):
        result = _run(project, "eval", "--json", "--mode", "offline", env={"AUTOPATCH_EVAL_SEED": bad})
        assert result.returncode == 5, result.stderr
        assert "AUTOPATCH_EVAL_SEED" in _one_sentence_error(result.stderr)
        assert result.stdout == ""


def test_every_configuration_error_exits_5_whoever_reads_it(tmp_path: Path) -> None:
    """A bad LLM setting, a bad cloud setting and a bad process switch: one sentence naming the
    variable and the documented configuration exit code, 5, for each (docs/configuration.md)."""
    project = tmp_path / "p"
    project.mkdir()
    llm = _ask(project, env={"AUTOPATCH_LLM_MODEL": "m", "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS": "lots"})
    cloud = _run(project, "cloud", "init", env={"AUTOPATCH_CLOUD_PORT": "eighty"})
    switch = _run(project, "memory", "status", env={"AUTOPATCH_DEBUG": "maybe"})
    live = _run(project, "eval", "--mode", "live", env={"AUTOPATCH_LIVE_EVAL": "please"})
    for result, variable in (
        (llm, "AUTOPATCH_LLM_MAX_OUTPUT_TOKENS"),
        (cloud, "AUTOPATCH_CLOUD_PORT"),
        (switch, "AUTOPATCH_DEBUG"),
        (live, "AUTOPATCH_LIVE_EVAL"),
    ):
        assert result.returncode == 5, (variable, result.stderr)
        assert variable in _one_sentence_error(result.stderr)


def test_process_switches_read_like_every_setting(tmp_path: Path) -> None:
    """`AUTOPATCH_DEBUG` takes what every boolean setting takes (any case, blank = unset)."""
    project = tmp_path / "p"
    project.mkdir()
    for value in ("TRUE", "on", "1", " yes "):
        result = _run(project, "memory", "status", "--json", env={"AUTOPATCH_DEBUG": value})
        assert result.returncode == 0, (value, result.stderr)
    for value in ("", "0", "off", "false"):
        result = _run(project, "memory", "status", "--json", env={"AUTOPATCH_DEBUG": value})
        assert result.returncode == 0, (value, result.stderr)
