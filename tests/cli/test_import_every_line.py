"""`autopatch-j memory import` on session files in the shapes real tools and a user's history folder hold.

Every file here is written by hand; every run goes through the real CLI in a subprocess. The rule under
test: every line read is accounted for — part of an imported turn, skipped under a named reason, or
waiting for the next run — and `--dry-run` reports exactly what the real run then does.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.agent_process import run_cli as run
from tests.cli.agent_process import stored_turns as turns
from tests.transcripts.builders import claude_lines, codex_lines


def import_json(project: Path, home: Path, *paths: Path, dry_run: bool = False) -> dict[str, Any]:
    args = ["memory", "import", *map(str, paths), "--json", *(["--dry-run"] if dry_run else [])]
    done = run(args, cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    payload: dict[str, Any] = json.loads(done.stdout)
    return payload


def accounted(session: dict[str, Any]) -> int:
    return session["lines_imported"] + sum(session["lines_skipped"].values()) + session["lines_waiting"]


def write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(lines), encoding="utf-8")
    return path


def settle(path: Path) -> None:
    """Make the file look untouched for a minute (what an old, finished session looks like)."""
    old = time.time() - 60
    os.utime(path, (old, old))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = (tmp_path / "proj").resolve()
    (root / ".git").mkdir(parents=True)
    return root


def _long_prompt_session(path: Path, project: Path) -> Path:
    session = path.stem
    lines = claude_lines(0, 4, session=session, cwd=str(project))
    record = json.loads(lines[8])  # turn 2's prompt
    record["message"]["content"] = "x" * 120_000
    lines[8] = json.dumps(record) + "\n"
    return write(path, lines)


def test_an_over_long_prompt_is_skipped_and_counted_and_the_rest_imports(project: Path, home: Path) -> None:
    folder = home / "history"
    first = _long_prompt_session(folder / "a1111111-0000-4000-8000-000000000001.jsonl", project)
    write(folder / "b2222222-0000-4000-8000-000000000002.jsonl", claude_lines(0, 2, session="b2222222", cwd="/x"))

    dry = import_json(project, home, folder, dry_run=True)
    assert not (project / ".autopatch-j" / "memory.db").exists() or turns(project) == []
    real = import_json(project, home, folder)
    for payload in (dry, real):
        assert payload["totals"]["turns_admitted"] == 5  # 3 of the first session, 2 of the second
        assert payload["totals"]["lines_skipped"]["too_long"] == 2  # the prompt and its answer
        first_report = payload["sessions"][0]
        assert first_report["turns_skipped"] == {"too_long": 1}
        assert accounted(first_report) == first_report["lines_read"] == 16
    assert {k: v for k, v in dry.items() if k != "dry_run"} == {k: v for k, v in real.items() if k != "dry_run"}
    assert "Decision 3: from now on use option 3." in turns(project)
    assert not any(len(t) > 100_000 for t in turns(project))

    again = import_json(project, home, first)
    assert again["totals"]["turns_admitted"] == 0 and again["sessions"][0]["lines_read"] == 0

    text = run(["memory", "import", str(folder), "--dry-run"], cwd=project, home=home)
    assert text.returncode == 0 and "Would import 0 turn(s)" in text.stdout


def test_text_summary_names_every_reason(project: Path, home: Path) -> None:
    path = _long_prompt_session(home / "c3333333-0000-4000-8000-000000000003.jsonl", project)
    done = run(["memory", "import", str(path)], cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    assert "3 new turn(s)" in done.stdout and "1 turn(s) too long" in done.stdout
    assert "too_long 2" in done.stdout and "tool_output 8" in done.stdout
    assert "16 line(s) read: 6 imported, 10 skipped, 0 waiting" in done.stdout


def test_records_without_parent_links_are_read_in_file_order(project: Path, home: Path) -> None:
    records: list[dict[str, Any]] = []
    for index in range(3):
        records.append({"type": "user", "uuid": f"u{index}", "message": {"role": "user", "content": f"Prompt {index}"}})
        records.append(
            {
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": f"Answer {index}"}]},
            }
        )
    path = write(home / "flat.jsonl", [json.dumps(r) + "\n" for r in records])
    payload = import_json(project, home, path)
    session = payload["sessions"][0]
    assert session["turns_admitted"] == 3 and accounted(session) == session["lines_read"] == 6
    assert turns(project) == ["Prompt 0", "Prompt 1", "Prompt 2"]


def test_with_parent_links_a_rewound_branch_is_counted_as_abandoned(project: Path, home: Path) -> None:
    common = {"sessionId": "s", "cwd": str(project)}

    def user(uuid: str, parent: str | None, text: str) -> dict[str, Any]:
        return {**common, "type": "user", "uuid": uuid, "parentUuid": parent, "message": {"content": text}}

    def answer(uuid: str, parent: str, text: str) -> dict[str, Any]:
        content = [{"type": "text", "text": text}]
        return {**common, "type": "assistant", "uuid": uuid, "parentUuid": parent, "message": {"content": content}}

    records = [
        user("p1", None, "Use tabs."),
        answer("a1", "p1", "Tabs."),
        user("p2", "a1", "Actually, wrong idea."),  # rewound past
        answer("a2", "p2", "Hm."),
        user("p3", "a1", "Use spaces for Python."),
        answer("a3", "p3", "Spaces."),
    ]
    path = write(home / "rewind.jsonl", [json.dumps(r) + "\n" for r in records])
    session = import_json(project, home, path)["sessions"][0]
    assert session["turns_admitted"] == 2 and session["lines_skipped"] == {"abandoned_branch": 2}
    assert turns(project) == ["Use tabs.", "Use spaces for Python."]


def _codex(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2025-09-14T10:00:00Z", "type": kind, "payload": payload}) + "\n"


@pytest.mark.parametrize("assistant_block", ["text", "output_text"])
@pytest.mark.parametrize("user_block", ["text", "input_text"])
def test_codex_blocks_typed_text_import_in_the_older_layout(
    project: Path, home: Path, assistant_block: str, user_block: str
) -> None:
    lines = [_codex("session_meta", {"id": "old-1", "cwd": str(project)})]
    for index in range(2):
        user = {"type": "message", "role": "user", "content": [{"type": user_block, "text": f"Ask {index}"}]}
        said = {"type": "message", "role": "assistant", "content": [{"type": assistant_block, "text": f"Said {index}"}]}
        lines += [_codex("response_item", user), _codex("response_item", said)]
    path = write(home / ".codex" / "sessions" / "rollout-2025-01-01T00-00-00-old-1.jsonl", lines)
    session = import_json(project, home, path)["sessions"][0]
    assert session["turns_admitted"] == 2, session
    assert accounted(session) == session["lines_read"] == 5


def test_codex_newer_layout_accounts_for_every_line(project: Path, home: Path) -> None:
    lines = codex_lines(0, 3, session="new-1", cwd=str(project))
    lines.insert(2, _codex("response_item", {"type": "reasoning", "summary": []}))
    lines.append(_codex("event_msg", {"type": "token_count", "info": None}))
    path = write(home / "rollout-2025-09-14T10-00-00-new-1.jsonl", lines)
    session = import_json(project, home, path)["sessions"][0]
    assert session["turns_admitted"] == 3 and accounted(session) == session["lines_read"] == len(lines)
    assert session["lines_skipped"]["thinking"] == 1


def test_a_last_line_without_newline_is_read_once_the_file_has_settled(project: Path, home: Path) -> None:
    lines = claude_lines(0, 2, session="d4444444", cwd=str(project))
    path = write(home / "d4444444-0000-4000-8000-000000000004.jsonl", lines)
    path.write_text("".join(lines).rstrip("\n"), encoding="utf-8")  # complete, but no final newline

    fresh = import_json(project, home, path)["sessions"][0]
    assert fresh["turns_admitted"] == 1 and fresh["partial_line_left"] is True  # still being written?
    settle(path)
    old = import_json(project, home, path)["sessions"][0]
    assert old["turns_admitted"] == 1 and old["partial_line_left"] is False and old["lines_waiting"] == 0
    assert len(turns(project)) == 2

    # A last line that does not parse is never read, however old.
    broken = write(home / "e5555555-0000-4000-8000-000000000005.jsonl", lines)
    broken.write_text("".join(lines) + '{"type": "user", "mess', encoding="utf-8")
    settle(broken)
    cut = import_json(project, home, broken)["sessions"][0]
    assert cut["turns_admitted"] == 2 and cut["partial_line_left"] is True


def test_a_folder_import_skips_and_counts_files_that_are_not_sessions(project: Path, home: Path) -> None:
    folder = home / "messy"
    write(folder / "good-f6666666-0000-4000-8000-000000000006.jsonl", claude_lines(0, 2, session="f666", cwd="/p"))
    write(folder / "empty.jsonl", [])
    (folder / "binary.jsonl").write_bytes(bytes(range(256)) * 8)
    write(folder / "foreign.jsonl", ['{"hello": 1}\n', '{"event": "click", "x": 3}\n'])
    write(folder / "subagents" / "agent-1.jsonl", claude_lines(0, 1, session="sub", cwd="/p"))

    dry = import_json(project, home, folder, dry_run=True)
    real = import_json(project, home, folder)
    for payload in (dry, real):
        assert payload["totals"]["turns_admitted"] == 2 and payload["totals"]["sessions"] == 1
        assert payload["totals"]["files_skipped"] == {"binary": 1, "empty": 1, "not_a_session": 1, "subagent": 1}
        assert sorted(Path(f["path"]).name for f in payload["files_skipped"]) == [
            "agent-1.jsonl",
            "binary.jsonl",
            "empty.jsonl",
            "foreign.jsonl",
        ]
    text = run(["memory", "import", str(folder)], cwd=project, home=home)
    assert text.returncode == 0 and "4 file(s) skipped" in text.stdout and "binary 1" in text.stdout


def test_dry_run_counts_a_turn_the_codex_hook_already_admitted_as_known(project: Path, home: Path) -> None:
    session = "0199eeee-0000-7000-8000-000000000002"
    lines = codex_lines(0, 2, session=session, cwd=str(project), turn_ids=False)  # an older rollout
    rollout = write(home / ".codex" / "sessions" / f"rollout-2025-10-02T09-00-00-{session}.jsonl", lines)
    notify = {
        "type": "agent-turn-complete",
        "thread-id": session,
        "turn-id": "t-1",
        "cwd": str(project),
        "input-messages": ["Decision 1: keep option 1."],
        "last-assistant-message": "Option 1 kept.",
    }
    assert run(["hook", "codex", json.dumps(notify)], cwd=home, home=home).returncode == 0
    dry = import_json(project, home, rollout, dry_run=True)["sessions"][0]
    real = import_json(project, home, rollout)["sessions"][0]
    assert (dry["turns_admitted"], dry["turns_already_known"]) == (real["turns_admitted"], real["turns_already_known"])
    assert (real["turns_admitted"], real["turns_already_known"]) == (1, 1)
