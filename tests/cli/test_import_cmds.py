"""`autopatch-j memory import` end to end through the real CLI entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import CliRunner
from tests.transcripts.conftest import CODEX_BAD, AgentHome, lay_out


@pytest.fixture
def agents(tmp_path: Path, project: Path) -> AgentHome:
    return lay_out(AgentHome(home=tmp_path / "home", project=project.resolve()))


def _env(agents: AgentHome) -> dict[str, str]:
    return {"HOME": str(agents.home), "CODEX_HOME": str(agents.codex_home)}


def test_json_summary_gives_sessions_turns_and_skipped_lines_by_reason(cli: CliRunner, agents: AgentHome) -> None:
    result = cli("memory", "import", "--json", env=_env(agents))
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["totals"] == {
        "sessions": 6,
        "turns_admitted": 12,
        "turns_skipped": {},
        "lines_read": 73,
        "lines_skipped": {
            "abandoned_branch": 2,
            "bookkeeping": 11,
            "duplicate": 5,
            "instructions": 1,
            "meta": 1,
            "not_a_prompt": 4,
            "sidechain": 2,
            "summary": 3,
            "system": 1,
            "thinking": 4,
            "tool_output": 7,
            "unknown_shape": 2,
            "unparsable": 3,
        },
        "lines_waiting": 0,
        "files_skipped": {},
    }
    for session in payload["sessions"]:  # every line read is accounted for
        parts = session["lines_imported"] + sum(session["lines_skipped"].values()) + session["lines_waiting"]
        assert parts == session["lines_read"], session
    bad = next(s for s in payload["sessions"] if s["session_id"] == CODEX_BAD)
    assert bad["partial_line_left"] is True and bad["turns_admitted"] == 1
    status = cli("memory", "status", "--json").json()
    assert status["counts"]["turns"] == 12 and status["active_thread_id"] == 1

    again = cli("memory", "import", "--json", env=_env(agents)).json()
    assert again["totals"]["turns_admitted"] == 0
    assert sum(s["turns_already_known"] for s in again["sessions"]) == 0  # nothing re-read past the cursors


def test_text_summary_and_dry_run(cli: CliRunner, agents: AgentHome) -> None:
    dry = cli("memory", "import", "--dry-run", env=_env(agents))
    assert dry.code == 0 and "Would import 12 turn(s) from 6 session(s)" in dry.out
    assert cli("memory", "status", "--json").json()["counts"]["turns"] == 0
    real = cli("memory", "import", "--from", "claude-code", env=_env(agents))
    assert real.code == 0 and "Imported 7 turn(s) from 3 session(s); lines skipped: abandoned_branch 2," in real.out


def test_explicit_paths_and_forced_format(cli: CliRunner, agents: AgentHome) -> None:
    result = cli("memory", "import", str(agents.codex_home / "sessions" / "2025"), "--json", env=_env(agents))
    assert result.code == 0, result.err
    assert result.json()["totals"]["sessions"] == 3  # the dated folders only: this project's two and another's


def test_bad_input_is_one_sentence(cli: CliRunner, agents: AgentHome, tmp_path: Path) -> None:
    missing = cli("memory", "import", str(tmp_path / "nope.jsonl"), env=_env(agents))
    assert missing.code == 1 and missing.err.startswith("error: ") and "does not exist" in missing.err
    assert "Traceback" not in missing.err and len(missing.err.strip().splitlines()) == 1
    odd = tmp_path / "notes.jsonl"
    odd.write_text('{"hello": 1}\n')
    unknown = cli("memory", "import", str(odd), env=_env(agents))
    assert unknown.code == 1 and "not a Claude Code or Codex session transcript" in unknown.err
    wrong = cli("memory", "import", "--from", "cursor", env=_env(agents))
    assert wrong.code == 2


def test_no_sessions_found(cli: CliRunner, tmp_path: Path, project: Path) -> None:
    result = cli("memory", "import", env={"HOME": str(tmp_path / "empty"), "CODEX_HOME": str(tmp_path / "none")})
    assert result.code == 0 and "No Claude Code or Codex sessions found for" in result.out


def test_imported_turns_go_through_the_ordinary_pipeline(cli: CliRunner, agents: AgentHome) -> None:
    assert cli("memory", "import", "--json", env=_env(agents)).code == 0
    drained = cli("memory", "drain", "--json")
    assert drained.code == 0, drained.err
    listed = cli("memory", "list", "--json").json()
    found = cli("memory", "search", "SQLite", "--json").json()
    assert listed and found, (listed, found)
    shown = cli("memory", "show", str(found[0]["id"]), "--json").json()
    assert any("SQLite" in source["quote"] for source in shown["sources"])  # an exact quote of the Codex turn


def test_progress_bar_only_on_a_terminal(agents: AgentHome, project: Path) -> None:
    import io

    from rich.console import Console

    from autopatch_j.cli.context import AppContext
    from autopatch_j.cli.import_cmds import run_import

    out, err = io.StringIO(), io.StringIO()
    app = AppContext(
        root=project.resolve(),
        environ=_env(agents),
        console=Console(file=out, force_terminal=True, width=100),
        err_console=Console(file=err, force_terminal=True, width=100),
    )
    try:
        run_import(app, [], source="auto", dry_run=False, as_json=False)
    finally:
        app.close()
    assert "importing" in err.getvalue() and "Imported 12 turn(s)" in out.getvalue()
