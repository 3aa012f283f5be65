"""What the docs say a command does is what it does (the places where they once disagreed)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.cli.conftest import CliRunner

DOCS = Path(__file__).resolve().parents[2] / "docs"
README = DOCS.parent / "README.md"


def test_a_bad_choice_names_the_choices_and_no_phantom_env_var(cli: CliRunner) -> None:
    for args, option in (
        (["ask", "--intent", "bogus", "hi"], "--intent"),
        (["memory", "import", "--from", "x"], "--from"),
    ):
        result = cli(*args)
        assert result.code == 2 and f"Invalid value for '{option}'" in result.err
        assert "env var" not in result.err and "None" not in result.err


def test_mcp_docs_list_exactly_the_memory_status_keys(cli: CliRunner) -> None:
    keys = set(cli("memory", "status", "--json").json())
    row = next(line for line in (DOCS / "mcp.md").read_text().splitlines() if line.startswith("| `memory_status()`"))
    documented = set(re.findall(r"`(\w+)`", row.split("memory status --json", 1)[1]))
    assert documented == keys


def test_repl_docs_name_no_stale_schema_contract() -> None:
    from autopatch_j.memory.catalog import SCHEMA_VERSION

    text = (DOCS / "repl.md").read_text()
    for number in re.findall(r"\bv(\d+) contract|schema version (\d+)", text):
        assert int("".join(number)) == SCHEMA_VERSION


def test_readme_says_what_first_use_does_with_gitignore(cli: CliRunner, project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    first = cli("memory", "status")
    assert first.code == 0 and "Run `autopatch-j gitignore` to add it to .gitignore." in first.err
    assert not (project / ".gitignore").exists()  # a hint, not an offer that changes anything
    readme = README.read_text()
    assert "offers to add" not in readme and "prints a hint" in readme


def test_docs_say_hook_codex_always_exits_0_and_it_does(cli: CliRunner) -> None:
    text = (DOCS / "import.md").read_text()
    assert "`autopatch-j hook codex [JSON]`" in text and "always exit 0" in text
    assert cli("hook", "codex").code == 0
