"""H-2: the CLI offers to add .autopatch-j/ to .gitignore, and does it only when asked."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import CliRunner


def test_first_start_in_a_git_repository_offers_the_entry(cli: CliRunner, project: Path) -> None:
    (project / ".git").mkdir()
    first = cli("memory", "status")
    assert "autopatch-j gitignore" in first.err
    assert not (project / ".gitignore").exists()
    assert "autopatch-j gitignore" not in cli("memory", "status").err  # only on first use


def test_gitignore_command_appends_once_and_keeps_existing_lines(cli: CliRunner, project: Path) -> None:
    (project / ".gitignore").write_text("build/", encoding="utf-8")
    assert "Added" in cli("gitignore").out
    assert "already" in cli("gitignore").out
    assert (project / ".gitignore").read_text(encoding="utf-8") == "build/\n.autopatch-j/\n"


def test_no_offer_outside_git_or_when_already_ignored(cli: CliRunner, project: Path, tmp_path: Path) -> None:
    assert "gitignore" not in cli("memory", "status").err
    other = tmp_path / "other"
    other.mkdir()
    (other / ".git").mkdir()
    (other / ".gitignore").write_text("/.autopatch-j\n", encoding="utf-8")
    assert "gitignore" not in cli("memory", "status", root=other).err
