"""`hook install`: a project install works on every teammate's machine and changes only the lines it adds."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner


def only_added(old: str, new: str) -> list[str]:
    """The lines `new` adds to `old`; fails when any old line changed other than by a trailing comma."""
    added: list[str] = []
    a, b = old.splitlines(), new.splitlines()
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        assert op in ("insert", "replace"), (op, a[i1:i2])
        changed = a[i1:i2]
        for k, line in enumerate(changed):  # a replaced line may only have gained a comma
            assert b[j1 + k] == line + ",", (line, b[j1 + k])
        added.extend(b[j1 + len(changed) : j2])
    return added


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}


ORIGINAL = """{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls)", "Read(./src/**)"]},
    "env": {"GREETING": "héllo"},
    "hooks": {
        "Stop": [
            {"matcher": "", "hooks": [{"type": "command", "command": "say hi"}]}
        ],
        "Notification": []
    },
    "zeta": 1
}
"""


def test_project_install_adds_lines_only_and_a_portable_command(
    cli: CliRunner, project: Path, env: dict[str, str], tmp_path: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(ORIGINAL)
    done = cli("hook", "install", "claude-code", "--project", env=env)
    assert done.code == 0, done.err
    new = settings.read_text()
    added = only_added(ORIGINAL, new)
    assert sum('"command": "autopatch-j hook claude-code"' in line for line in added) == 3
    assert new.index('"zeta": 1') > new.index('"PreCompact"')  # key order kept: new keys go last in "hooks"
    data = json.loads(new)
    for event in ("Stop", "SessionEnd", "PreCompact"):
        assert [h["command"] for g in data["hooks"][event] for h in g["hooks"]][-1] == "autopatch-j hook claude-code"
    assert list(settings.parent.iterdir()) == [settings]  # no backup in the committed folder
    backups = list((tmp_path / "state" / "autopatch-j" / "backups").iterdir())
    assert len(backups) == 1 and backups[0].read_text() == ORIGINAL
    assert str(backups[0]) in done.out
    assert (project / ".autopatch-j").is_dir()  # the project exists for the hook to find

    again = cli("hook", "install", "claude-code", env=env)
    assert again.code == 0 and "already installed" in again.out and settings.read_text() == new


@pytest.mark.parametrize(
    "original",
    ['{"model": "opus"}\n', "{}\n", '{\n\t"model": "opus",\n\t"hooks": {}\n}\n', "", '{\n  "hooks": {"Stop": []}\n}'],
)
def test_other_layouts_keep_their_lines(cli: CliRunner, project: Path, env: dict[str, str], original: str) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(original)
    assert cli("hook", "install", "claude-code", env=env).code == 0
    new = settings.read_text()
    data = json.loads(new)
    assert all(len(data["hooks"][e]) == 1 for e in ("Stop", "SessionEnd", "PreCompact"))
    if original.count("\n") > 1 and "{}" not in original and "[]" not in original:  # (an empty one is opened)
        only_added(original, new)
        assert new.endswith("\n") == original.endswith("\n")
    if "\t" in original:
        assert '\t\t"SessionEnd": [' in new  # the file's own indentation


def test_user_install_names_this_machines_program(cli: CliRunner, env: dict[str, str]) -> None:
    done = cli("hook", "install", "claude-code", "--user", env=env)
    assert done.code == 0, done.err
    data = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    command = data["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command.endswith(" hook claude-code") and command != "autopatch-j hook claude-code"
    assert Path(command.split(" ")[0].strip("'")).is_absolute()


def test_codex_install_changes_only_the_added_line(cli: CliRunner, tmp_path: Path, env: dict[str, str]) -> None:
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    config = codex_home / "config.toml"
    original = '# mine\nmodel = "gpt-5"   # fast\napproval_policy="never"\n\n[mcp_servers.docs]\ncommand = "d"\n'
    config.write_text(original)
    assert cli("hook", "install", "codex", env={**env, "CODEX_HOME": str(codex_home)}).code == 0
    added = only_added(original, config.read_text())
    assert len(added) == 1 and added[0].startswith("notify = [")
    assert list(codex_home.iterdir()) == [config]
