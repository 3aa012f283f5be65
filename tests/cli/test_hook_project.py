"""Which project a hook writes to: the hook's `cwd` (else the transcript's), found the way git finds a
repository — and never a new store anywhere else. Real processes, as the agents start them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.agent_process import run_cli as run
from tests.cli.agent_process import stored_turns as turns
from tests.cli.test_import_every_line import write
from tests.transcripts.builders import claude_lines


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = (tmp_path / "repo").resolve()
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    return root


def stores(tmp_path: Path) -> list[Path]:
    return sorted(p.parent for p in tmp_path.rglob(".autopatch-j"))


def _stop(transcript: Path, cwd: str | None) -> str:
    payload = {"session_id": transcript.stem, "transcript_path": str(transcript), "hook_event_name": "Stop"}
    if cwd is not None:
        payload["cwd"] = cwd
    return json.dumps(payload)


def _hook(stdin: str, *, cwd: Path, home: Path) -> tuple[int, str]:
    done = run(["hook", "claude-code"], cwd=cwd, home=home, stdin=stdin)
    return done.returncode, done.stderr


def test_the_claude_hook_writes_to_the_project_named_by_its_cwd(repo: Path, home: Path, tmp_path: Path) -> None:
    transcript = write(home / "s1.jsonl", claude_lines(0, 2, session="s1", cwd=str(repo / "src")))
    shell = tmp_path / "shell"
    shell.mkdir()
    code, err = _hook(_stop(transcript, str(repo / "src" / "pkg")), cwd=shell, home=home)
    assert (code, err) == (0, "")
    assert stores(tmp_path) == [repo]  # the repository root: not the shell's folder, not the subdirectory
    assert len(turns(repo)) == 2


def test_without_cwd_the_transcripts_recorded_cwd_names_the_project(repo: Path, home: Path, tmp_path: Path) -> None:
    transcript = write(home / "s2.jsonl", claude_lines(0, 1, session="s2", cwd=str(repo / "src" / "pkg")))
    shell = tmp_path / "shell"
    shell.mkdir()
    code, err = _hook(_stop(transcript, None), cwd=shell, home=home)
    assert (code, err) == (0, "")
    assert stores(tmp_path) == [repo] and len(turns(repo)) == 1


@pytest.mark.parametrize("stdin", ["garbage", "[]", '{"transcript_path": "/nowhere/x.jsonl"}', ""])
def test_garbage_on_stdin_creates_no_store_and_is_logged_for_the_user(home: Path, tmp_path: Path, stdin: str) -> None:
    shell = tmp_path / "shell"
    shell.mkdir()
    code, err = _hook(stdin, cwd=shell, home=home)
    assert code == 0 and err.startswith("autopatch-j hook claude-code: ") and "Traceback" not in err
    assert stores(tmp_path) == []
    log = home / ".state" / "autopatch-j" / "log" / "hooks.log"
    assert err.split(": ", 1)[1].strip() in log.read_text()


def test_a_cwd_outside_any_project_creates_no_store(home: Path, tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    transcript = write(home / "s3.jsonl", claude_lines(0, 1, session="s3", cwd=str(loose)))
    code, err = _hook(_stop(transcript, str(loose)), cwd=loose, home=home)
    assert code == 0 and "no project" in err
    assert stores(tmp_path) == []
    assert "no project" in (home / ".state" / "autopatch-j" / "log" / "hooks.log").read_text()


def test_a_project_with_a_store_but_no_repository_is_found_from_below(home: Path, tmp_path: Path) -> None:
    project = (tmp_path / "plain").resolve()
    (project / "deep" / "er").mkdir(parents=True)
    assert run(["memory", "status"], cwd=project, home=home).returncode == 0  # creates project/.autopatch-j
    transcript = write(home / "s4.jsonl", claude_lines(0, 1, session="s4", cwd=str(project)))
    code, err = _hook(_stop(transcript, str(project / "deep" / "er")), cwd=tmp_path, home=home)
    assert (code, err) == (0, "")
    assert stores(tmp_path) == [project] and len(turns(project)) == 1


def test_codex_hook_without_its_argument_exits_0_and_says_why(home: Path, tmp_path: Path) -> None:
    done = run(["hook", "codex"], cwd=tmp_path, home=home)
    assert done.returncode == 0 and "expects" in done.stderr and stores(tmp_path) == []


def test_codex_hook_finds_the_repository_root_from_a_subdirectory(repo: Path, home: Path, tmp_path: Path) -> None:
    notify = {
        "type": "agent-turn-complete",
        "thread-id": "t1",
        "turn-id": "1",
        "cwd": str(repo / "src"),
        "input-messages": ["Prefer pathlib."],
        "last-assistant-message": "OK.",
    }
    done = run(["hook", "codex", json.dumps(notify)], cwd=tmp_path, home=home)
    assert (done.returncode, done.stderr) == (0, "")
    assert stores(tmp_path) == [repo] and turns(repo) == ["Prefer pathlib."]


# -- the CLI's own project root -----------------------------------------------------------------------


def test_a_subdirectory_uses_the_repository_roots_memory(repo: Path, home: Path, tmp_path: Path) -> None:
    transcript = write(home / "s5.jsonl", claude_lines(0, 2, session="s5", cwd=str(repo)))
    assert run(["memory", "import", str(transcript)], cwd=repo, home=home).returncode == 0
    status = run(["memory", "status", "--json"], cwd=repo / "src" / "pkg", home=home)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["counts"]["turns"] == 2
    assert stores(tmp_path) == [repo]


def test_the_nearest_store_wins_and_dash_c_overrides(repo: Path, home: Path, tmp_path: Path) -> None:
    inner = repo / "src"
    assert run(["-C", str(inner), "memory", "status"], cwd=tmp_path, home=home).returncode == 0
    assert stores(tmp_path) == [inner]  # -C names the root exactly
    transcript = write(home / "s6.jsonl", claude_lines(0, 1, session="s6", cwd=str(repo)))
    assert run(["memory", "import", str(transcript)], cwd=inner / "pkg", home=home).returncode == 0
    assert len(turns(inner)) == 1 and stores(tmp_path) == [inner]  # nearer than the repository root


def test_an_over_long_prompt_never_fails_the_hook_and_later_turns_import(repo: Path, home: Path) -> None:
    lines = claude_lines(0, 3, session="s7", cwd=str(repo))
    record = json.loads(lines[4])  # turn 1's prompt
    record["message"]["content"] = "y" * 120_000
    lines[4] = json.dumps(record) + "\n"
    transcript = write(home / "s7.jsonl", lines)
    for _ in range(2):  # every Stop, not only the first
        code, err = _hook(_stop(transcript, str(repo)), cwd=repo, home=home)
        assert (code, err) == (0, "")
    assert turns(repo) == ["Decision 0: from now on use option 0.", "Decision 2: from now on use option 2."]
