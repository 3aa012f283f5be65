"""The Memory subcommands end to end through the real CLI entry point (H-11, H-12, M-17)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from autopatch_j.memory.catalog import SCHEMA_VERSION
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.workspace.patch import propose
from autopatch_j.workspace.store import ReviewWorkspace
from tests.cli.conftest import CliRunner


def _seed_item(project: Path) -> None:
    m = MemoryManager(root=project)
    m.open()
    ticket = m.begin_turn("From now on, answer with the conclusion first.", Intent.GENERAL_CHAT)
    m.complete_turn(ticket, "Understood.")
    conn = sqlite3.connect(m.paths.db)
    with conn:
        conn.execute(
            "INSERT INTO memory_candidates (id, thread_id, extraction_job_id, kind, content, non_factual, status,"
            " created_at) VALUES (1, 1, 1, 'user_preference', 'Answer first', 0, 'applied', 1)"
        )
        conn.execute(
            "INSERT INTO candidate_sources VALUES (1, 0, ?, 'user', 'answer with the conclusion first')",
            (ticket.turn_id,),
        )
        conn.execute(
            "INSERT INTO memory_items (id, memory_id, revision, kind, title, content, non_factual, status,"
            " operation, created_at, updated_at) VALUES (1, 1, 1, 'user_preference', 'Answer first',"
            " 'Give the conclusion first, then details [bold]x[/].', 0, 'active', 'create', 1, 1)"
        )
        conn.execute("INSERT INTO memory_item_candidates VALUES (1, 1)")
    conn.close()


def test_status_json_on_a_new_project(cli: CliRunner) -> None:
    result = cli("memory", "status", "--json")
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["health"] == "healthy" and payload["reason"] is None
    assert payload["schema_version"] == SCHEMA_VERSION and payload["generation"] == 1
    assert payload["counts"] == {"turns": 0, "active_items": 0, "candidates": 0}
    assert payload["jobs"] == {} and payload["last_error"] is None


def test_list_is_an_empty_array_when_healthy_and_empty(cli: CliRunner) -> None:
    result = cli("memory", "list", "--json")
    assert (result.code, result.json()) == (0, [])


def test_list_show_and_forget(cli: CliRunner, project: Path) -> None:
    _seed_item(project)
    listed = cli("memory", "list", "--json").json()
    assert [(i["id"], i["kind"], i["title"], i["status"]) for i in listed] == [
        (1, "user_preference", "Answer first", "active")
    ]
    shown = cli("memory", "show", "1", "--json").json()
    assert shown["sources"] == [{"turn_id": 1, "role": "user", "quote": "answer with the conclusion first"}]
    assert [r["revision"] for r in shown["revisions"]] == [1]

    text = cli("memory", "show", "1")
    assert text.code == 0 and "[bold]x[/]" in text.out  # data is printed literally, never as markup

    forgot = cli("memory", "forget", "1")
    assert forgot.code == 0 and "RAW turns it came from are kept" in forgot.out
    assert cli("memory", "list", "--json").json() == []
    assert cli("memory", "show", "1", "--json").json()["status"] == "forgotten"


def test_unknown_id_is_one_sentence_and_exit_1(cli: CliRunner) -> None:
    for args in (("memory", "show", "42"), ("memory", "forget", "42")):
        result = cli(*args)
        assert result.code == 1
        assert result.err.startswith("error: No ") and "Traceback" not in result.err
        assert len(result.err.strip().splitlines()) == 1


def test_non_numeric_id_is_a_usage_error(cli: CliRunner) -> None:
    result = cli("memory", "show", "abc")
    assert result.code == 2 and "Traceback" not in result.err


def test_clear_without_confirm_refuses_and_explains(cli: CliRunner, project: Path) -> None:
    _seed_item(project)
    result = cli("memory", "clear")
    assert result.code == 1 and "--confirm" in result.err
    assert len(cli("memory", "list", "--json").json()) == 1
    cleared = cli("memory", "clear", "--confirm", "--json")
    assert cleared.code == 0 and cleared.json()["generation"] == 2
    assert cli("memory", "list", "--json").json() == []


def test_export_prints_a_new_path_each_time(cli: CliRunner, project: Path) -> None:
    first = cli("memory", "export").out.strip()
    second = cli("memory", "export").out.strip()
    assert first != second
    assert Path(first).parent == project / ".autopatch-j" / "exports" and Path(second).exists()


def test_new_and_reset(cli: CliRunner, project: Path) -> None:
    created = cli("new", "--json").json()
    assert created == {"archived_thread_id": 1, "thread_id": 2, "patch_aborted": False, "warnings": []}
    workspace = project / ".autopatch-j" / "workspace"
    workspace.mkdir()
    (workspace / "pending_patch.json").write_text("{}", encoding="utf-8")
    reset = cli("reset")
    assert reset.code == 0 and "Memory was kept" in reset.out and "memory clear --confirm" in reset.out
    assert not workspace.exists()
    assert cli("memory", "status", "--json").json()["active_thread_id"] == 2


def test_degraded_store_refuses_guarded_commands_but_serves_diagnosis(cli: CliRunner, project: Path) -> None:
    _seed_item(project)
    db = project / ".autopatch-j" / "memory.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE intruder (x TEXT)")
    conn.close()
    status = cli("memory", "status", "--json").json()
    assert status["health"] == "degraded" and "intruder" in status["reason"]
    for args in (("memory", "list"), ("memory", "forget", "1"), ("new",)):
        refused = cli(*args)
        assert refused.code == 3 and "degraded" in refused.err and "Traceback" not in refused.err
    assert cli("memory", "show", "1", "--json").json()["title"] == "Answer first"
    assert cli("memory", "export").code == 0
    assert cli("memory", "clear", "--confirm").code == 0
    assert cli("memory", "status", "--json").json()["health"] == "healthy"


def test_last_error_is_concise_unless_debug(cli: CliRunner, project: Path) -> None:
    cli("memory", "status")
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    with conn:
        conn.execute("UPDATE memory_meta SET last_error = ?", ("APIStatusError: 500 [bold]boom[/]\n" + "body " * 50,))
    conn.close()
    normal = cli("memory", "status")
    assert "APIStatusError: 500 [bold]boom[/]" in normal.out and "body body" not in normal.out
    assert "AUTOPATCH_DEBUG=true" in normal.out
    debug = cli("memory", "status", "--json", env={"AUTOPATCH_DEBUG": "true"}).json()
    assert debug["last_error"].startswith("APIStatusError") and "body body" in debug["last_error"]


def test_a_project_path_that_is_not_a_directory_is_one_sentence(cli: CliRunner, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("x", encoding="utf-8")
    result = cli("memory", "status", root=not_a_dir)
    assert result.code == 1 and result.err.startswith("error: The project directory") and "Traceback" not in result.err


def test_new_gives_old_jobs_one_chance_and_aborts_the_pending_patch(
    cli: CliRunner, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTOPATCH_MEMORY_EXTRACTOR", "rules")
    m = MemoryManager(root=project)
    m.open()
    ticket = m.begin_turn("From now on, always answer in English.", Intent.GENERAL_CHAT)
    m.complete_turn(ticket, "Sure.")
    workspace = project / ".autopatch-j" / "workspace"
    (project / "app.py").write_text("x = 1\n", encoding="utf-8")
    ReviewWorkspace(directory=workspace).set_pending_patch(
        propose(project, path="app.py", search="x = 1", replace="x = 2", explanation="bump")
    )
    created = cli("new", "--json").json()
    assert created["patch_aborted"] is True and created["warnings"] == []
    assert ReviewWorkspace(directory=workspace).pending_patch() is None
    with m.db.read("check") as conn:
        statuses = {row[0] for row in conn.execute("SELECT status FROM memory_jobs WHERE kind = 'extraction'")}
    assert statuses <= {"succeeded", "succeeded_no_output"}
    assert [i["title"] for i in cli("memory", "list", "--json").json()]  # the preference survived /new


@pytest.mark.parametrize("memory_id", ["9223372036854775808", "-9223372036854775809", str(10**40)])
def test_out_of_range_id_is_the_ordinary_no_memory_error(cli: CliRunner, memory_id: str) -> None:
    """Issue 9.8: ids SQLite cannot hold are simply ids no memory has (no OverflowError traceback)."""
    for command in ("show", "forget"):
        result = cli("memory", command, "--", memory_id)
        assert result.code == 1, result.err
        assert result.err.startswith("error: No ") and "Traceback" not in result.err


def test_version_flag_prints_the_package_version(cli: CliRunner) -> None:
    from importlib.metadata import version

    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"autopatch-j {version('autopatch-j')}"


def test_reset_text_agrees_with_json_about_the_workspace(cli: CliRunner, project: Path) -> None:
    """Issue 9.12: with no workspace on disk, text must not claim it cleared one (JSON says false)."""
    nothing = cli("reset")
    assert nothing.code == 0 and "Cleared" not in nothing.out and "no review workspace" in nothing.out.lower()
    assert cli("reset", "--json").json()["workspace_cleared"] is False
    (project / ".autopatch-j" / "workspace").mkdir()
    cleared = cli("reset")
    assert "Cleared the review workspace" in cleared.out


def test_degraded_status_text_prints_only_what_is_known(cli: CliRunner, project: Path) -> None:
    cli("memory", "status")
    (project / ".autopatch-j" / "memory.db").write_bytes(b"not a database" * 100)
    result = cli("memory", "status")
    assert "degraded" in result.out
    assert "None" not in result.out
