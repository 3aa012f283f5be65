"""Repair agents (H-22): audits read the named files themselves, a zero-finding review is normal, at
most one patch bound to the file's content, patch_explain / patch_revise act on the pending patch."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from autopatch_j.agent.errors import AgentResponseError
from autopatch_j.agent.repair import AUDIT_PROMPT, RepairAgents
from autopatch_j.agent.scanner import SemgrepScanner
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.provider import Purpose
from autopatch_j.workspace.errors import PatchConflict
from autopatch_j.workspace.patch import sha256_bytes
from autopatch_j.workspace.store import ReviewWorkspace


def audit_reply(patch: dict[str, str] | None = None, findings: list[dict[str, object]] | None = None) -> str:
    return json.dumps({"summary": "Reviewed.", "findings": findings or [], "patch": patch})


PATCH = {
    "path": "src/app.py",
    "search": "subprocess.call(cmd, shell=True)",
    "replace": "subprocess.call(cmd)",
    "explanation": "No shell.",
}


@pytest.fixture
def agents(canned: CannedProvider, project: Path, workspace: ReviewWorkspace) -> RepairAgents:
    return RepairAgents(provider=canned, root=project, workspace=workspace)


def test_a_zero_finding_review_is_a_normal_result(
    agents: RepairAgents, canned: CannedProvider, workspace: ReviewWorkspace
) -> None:
    canned.enqueue(Purpose.MAIN, audit_reply())
    shown: list[str] = []
    outcome = agents.audit("audit src/app.py", on_delta=shown.append, cancel=None)
    assert "**No findings.**" in outcome.answer and outcome.pending_patch is None
    assert shown == [outcome.answer]
    scan = workspace.last_scan()
    assert scan is not None and scan["findings"] == [] and scan["files"] == ["src/app.py"]
    assert scan["scanner"] == "not installed"


def test_the_audit_reads_the_named_files_itself_and_sends_one_fresh_exchange(
    agents: RepairAgents, canned: CannedProvider, workspace: ReviewWorkspace
) -> None:
    canned.enqueue(Purpose.MAIN, audit_reply())
    agents.audit("审计 src", on_delta=None, cancel=None)
    (request,) = canned.requests
    assert request.tools == ()
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[0].content == AUDIT_PROMPT
    user = request.messages[1].content or ""
    assert "=== src/app.py (6 lines) ===" in user and "5|     return subprocess.call(cmd, shell=True)" in user
    assert "README.md" not in user
    assert "src/app.py" in workspace.index()


def test_without_a_named_path_the_whole_project_is_audited(agents: RepairAgents, canned: CannedProvider) -> None:
    canned.enqueue(Purpose.MAIN, audit_reply())
    agents.audit("audit everything", on_delta=None, cancel=None)
    user = canned.requests[0].messages[1].content or ""
    assert "=== README.md" in user and "=== src/app.py" in user


def test_a_proposed_patch_is_bound_to_the_current_content_and_stored(
    agents: RepairAgents, canned: CannedProvider, project: Path, workspace: ReviewWorkspace
) -> None:
    canned.enqueue(
        Purpose.MAIN,
        audit_reply(
            PATCH, [{"path": "src/app.py", "line": 5, "severity": "high", "title": "shell", "detail": "injection"}]
        ),
    )
    outcome = agents.audit("audit src/app.py", on_delta=None, cancel=None)
    patch = outcome.pending_patch
    assert patch is not None and workspace.pending_patch() == patch
    assert patch.file_sha256 == sha256_bytes((project / "src" / "app.py").read_bytes())
    assert "[high] `src/app.py:5` — shell: injection" in outcome.answer
    assert "```diff" in outcome.answer and "patch accept" in outcome.answer


@pytest.mark.parametrize(
    ("patch", "note"),
    [
        ({**PATCH, "search": "not in the file"}, "did not match"),
        ({**PATCH, "search": "cmd"}, "did not match"),  # occurs more than once
        ({**PATCH, "path": "README.md"}, "not audited"),
        ({**PATCH, "path": "../outside.py"}, "did not match"),
        ({**PATCH, "path": ".autopatch-j/memory.db"}, "did not match"),
    ],
)
def test_a_patch_that_does_not_bind_is_dropped_and_the_answer_says_so(
    agents: RepairAgents, canned: CannedProvider, workspace: ReviewWorkspace, patch: dict[str, str], note: str
) -> None:
    canned.enqueue(Purpose.MAIN, audit_reply(patch))
    outcome = agents.audit("audit src/app.py", on_delta=None, cancel=None)
    assert outcome.pending_patch is None and workspace.pending_patch() is None
    assert note in outcome.answer


@pytest.mark.parametrize(
    "reply",
    [
        "Looks fine to me!",
        json.dumps({"summary": "x", "findings": [], "patch": None, "confidence": 1}),
        json.dumps({"summary": "x", "findings": [{"path": "a", "severity": "urgent", "title": "t", "detail": ""}]}),
    ],
)
def test_output_breaking_the_audit_contract_is_an_error(
    agents: RepairAgents, canned: CannedProvider, reply: str
) -> None:
    canned.enqueue(Purpose.MAIN, reply)
    with pytest.raises(AgentResponseError):
        agents.audit("audit src/app.py", on_delta=None, cancel=None)


def test_a_new_audit_patch_replaces_the_earlier_one(
    agents: RepairAgents, canned: CannedProvider, project: Path, workspace: ReviewWorkspace
) -> None:
    (project / "src" / "util.py").write_text("x = eval(input())\n", encoding="utf-8")
    second = {"path": "src/util.py", "search": "eval(input())", "replace": "int(input())", "explanation": "int"}
    canned.enqueue(Purpose.MAIN, audit_reply(PATCH), audit_reply(second))
    agents.audit("audit src/app.py", on_delta=None, cancel=None)
    agents.audit("audit src/util.py", on_delta=None, cancel=None)
    pending = workspace.pending_patch()
    assert pending is not None and pending.path == "src/util.py"


def test_patch_explain_streams_and_tells_the_model_whether_the_file_changed(
    agents: RepairAgents, canned: CannedProvider, project: Path
) -> None:
    canned.enqueue(Purpose.MAIN, audit_reply(PATCH), "It drops the shell.")
    agents.audit("audit src/app.py", on_delta=None, cancel=None)
    (project / "src" / "app.py").write_text("changed\n", encoding="utf-8")
    shown: list[str] = []
    outcome = agents.explain_patch("why?", on_delta=shown.append, cancel=None)
    assert outcome.answer == "".join(shown) == "It drops the shell."
    request = canned.requests[-1]
    assert [m.role for m in request.messages] == ["system", "user"] and request.tools == ()
    assert "file changed since the patch was proposed" in (request.messages[1].content or "")


def test_patch_revise_replaces_the_pending_patch_or_keeps_it_on_conflict(
    agents: RepairAgents, canned: CannedProvider, workspace: ReviewWorkspace
) -> None:
    good = {"search": "subprocess.call(cmd, shell=True)", "replace": "subprocess.call(cmd.split())", "explanation": "s"}
    bad = {"search": "nowhere", "replace": "x", "explanation": "s"}
    canned.enqueue(Purpose.MAIN, audit_reply(PATCH), json.dumps(bad), json.dumps(good))
    agents.audit("audit src/app.py", on_delta=None, cancel=None)
    original = workspace.pending_patch()
    with pytest.raises(PatchConflict, match="earlier pending patch was kept"):
        agents.revise_patch("split it", on_delta=None, cancel=None)
    assert workspace.pending_patch() == original
    outcome = agents.revise_patch("split it", on_delta=None, cancel=None)
    assert outcome.pending_patch is not None and outcome.pending_patch.replace == "subprocess.call(cmd.split())"
    assert workspace.pending_patch() == outcome.pending_patch
    assert "Current content of src/app.py" in (canned.requests[-1].messages[1].content or "")


def fake_semgrep(tmp_path: Path) -> tuple[Path, Path]:
    calls = tmp_path / "semgrep-calls"
    script = tmp_path / "bin" / "semgrep"
    script.parent.mkdir()
    result = {
        "results": [
            {
                "check_id": "python.lang.security.subprocess-shell-true",
                "path": "src/app.py",
                "start": {"line": 5},
                "extra": {"severity": "ERROR", "message": "shell=True is dangerous"},
            }
        ]
    }
    script.write_text(
        f"#!/bin/sh\necho \"$@\" >> '{calls}'\ncat <<'EOF'\n{json.dumps(result)}\nEOF\n", encoding="utf-8"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, calls


def test_semgrep_runs_when_installed_and_its_results_are_cached(
    tmp_path: Path, canned: CannedProvider, project: Path, workspace: ReviewWorkspace
) -> None:
    script, calls = fake_semgrep(tmp_path)
    agents = RepairAgents(
        provider=canned, root=project, workspace=workspace, scanner=SemgrepScanner(executable=str(script))
    )
    canned.enqueue(Purpose.MAIN, audit_reply(), audit_reply())
    first = agents.audit("audit src/app.py", on_delta=None, cancel=None)
    agents.audit("audit src/app.py", on_delta=None, cancel=None)
    assert calls.read_text().count("--metrics=off") == 1  # the second audit used the request cache
    user = canned.requests[0].messages[1].content or ""
    assert "src/app.py:5 [ERROR] python.lang.security.subprocess-shell-true" in user
    assert "Semgrep: ok, 1 raw result" in first.answer


def test_a_failing_scanner_does_not_fail_the_audit(
    tmp_path: Path, canned: CannedProvider, project: Path, workspace: ReviewWorkspace
) -> None:
    agents = RepairAgents(
        provider=canned, root=project, workspace=workspace, scanner=SemgrepScanner(executable="/bin/false")
    )
    canned.enqueue(Purpose.MAIN, audit_reply())
    outcome = agents.audit("audit src/app.py", on_delta=None, cancel=None)
    assert "Semgrep: failed" in outcome.answer
