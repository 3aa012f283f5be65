"""The test command and CI install their tools inside the repository, in the ignored `.tools/` folder."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _copy_of_the_scripts(tmp_path: Path) -> Path:
    repo = tmp_path / "clone"
    shutil.copytree(REPO / "scripts", repo / "scripts")
    return repo


def _env(tmp_path: Path, bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPATCH_", "XDG_"))}
    return {**env, "HOME": str(tmp_path / "home"), "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"}


def test_the_mcp_inspector_is_installed_under_the_repositorys_tools_folder(tmp_path: Path) -> None:
    repo = _copy_of_the_scripts(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "npm-calls"
    fake_npm = bin_dir / "npm"  # records its arguments and "installs" the CLI where --prefix says
    fake_npm.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$@" >> {calls}\n'
        'while [ "$#" -gt 0 ]; do if [ "$1" = --prefix ]; then prefix=$2; fi; shift; done\n'
        'mkdir -p "$prefix/node_modules/.bin" && printf "#!/bin/sh\\n" > "$prefix/node_modules/.bin/mcp-inspector"\n'
        'chmod +x "$prefix/node_modules/.bin/mcp-inspector"\n'
    )
    fake_npm.chmod(0o755)
    done = subprocess.run(
        ["bash", str(repo / "scripts" / "mcp_inspector.sh")],
        env=_env(tmp_path, bin_dir),
        capture_output=True,
        text=True,
        check=True,
    )
    installed = Path(done.stdout.strip())
    assert installed.is_relative_to(repo / ".tools") and installed.is_file()
    assert f"--cache {repo / '.tools'}" in calls.read_text()  # npm's download cache too
    assert not (tmp_path / "home").exists()


def test_the_llm_server_venv_lives_under_the_tools_folder(tmp_path: Path) -> None:
    repo = _copy_of_the_scripts(tmp_path)
    done = subprocess.run(
        ["bash", str(repo / "scripts" / "llm_server.sh"), "python"],
        env=_env(tmp_path, tmp_path),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(repo / ".tools")


def test_the_tools_folder_is_ignored_and_the_readme_says_what_is_installed() -> None:
    assert ".tools/" in (REPO / ".gitignore").read_text().splitlines()
    readme = (REPO / "README.md").read_text()
    assert "What `scripts/test.sh` installs" in readme and "`.tools/`" in readme
