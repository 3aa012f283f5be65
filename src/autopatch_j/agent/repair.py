"""Repair agents (H-22): `code_audit`, `patch_explain`, `patch_revise`.

Every repair request is built from scratch: exactly one system message and one user message, no
history, no Memory context, no tools and no tool schemas (M-1). `RepairAgents` is never given the
`MemoryManager`, so it cannot read Memory by construction; the host never admits repair intents.

- `audit` reads the named files or folder itself (bounded), runs Semgrep when installed, asks the
  model for the `AuditReply` JSON contract (findings + at most one patch), binds the patch to the
  file's current content (exact search/replace occurring once) and stores it as THE pending patch.
  Zero findings is a normal result. A patch that does not match the file is dropped, and the answer
  says so.
- `explain_patch` streams an explanation of the pending patch.
- `revise_patch` asks for a revised edit of the same file (`ReviseReply`) and replaces the pending
  patch with it; the earlier patch stays if the revision does not match the file.

The model's JSON is never streamed to the user: the rendered report is delivered in one `on_delta`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import Field

from autopatch_j.agent.errors import AgentResponseError, RequestCancelled
from autopatch_j.agent.intents import project_paths
from autopatch_j.agent.scanner import ScanOutcome, SemgrepScanner
from autopatch_j.agent.streaming import stream_call
from autopatch_j.agent.tools import ProjectTools, is_binary
from autopatch_j.llm.errors import LLMResponseError
from autopatch_j.llm.json_contract import parse_json_object
from autopatch_j.llm.provider import ChatRequest, LLMProvider, Message, Purpose
from autopatch_j.strict_model import StrictModel
from autopatch_j.workspace.errors import NoPendingPatch, PatchConflict, WorkspaceError
from autopatch_j.workspace.patch import PendingPatch, patch_state, propose, sha256_bytes
from autopatch_j.workspace.store import ReviewWorkspace, cache_key

MAX_AUDIT_FILES = 40
MAX_AUDIT_CHARS = 60_000
MAX_FILE_CHARS = 20_000
MAX_FINDINGS = 50
MAX_REVISE_FILE_CHARS = 40_000
ACCEPT_HINT = (
    "Accept it with `/accept` (`autopatch-j patch accept`) or drop it with `/discard` (`autopatch-j patch discard`)."
)

DeltaSink = Callable[[str], None]
_M = TypeVar("_M", bound=StrictModel)


# -- the model's JSON contracts -----------------------------------------------------------------------


class AuditFinding(StrictModel):
    path: str
    line: int | None = None
    severity: Literal["critical", "high", "medium", "low", "info"]
    title: str = Field(min_length=1, max_length=300)
    detail: str = Field(max_length=4_000)


class AuditPatch(StrictModel):
    path: str
    search: str = Field(min_length=1)
    replace: str
    explanation: str = Field(max_length=4_000)


class AuditReply(StrictModel):
    summary: str = Field(max_length=4_000)
    findings: list[AuditFinding] = Field(max_length=MAX_FINDINGS)
    patch: AuditPatch | None = None


class ReviseReply(StrictModel):
    search: str = Field(min_length=1)
    replace: str
    explanation: str = Field(max_length=4_000)


AUDIT_PROMPT = """\
You are a careful code reviewer. Review ONLY the files given below for real defects: bugs, security
problems, resource leaks, error-handling mistakes. Do not invent problems; a review with no findings
is a normal, good result. Scanner findings (if any) are hints to verify, not facts.
Answer with exactly one JSON object and nothing else:
{"summary": "<short overall assessment>",
 "findings": [{"path": "<file>", "line": <int or null>, "severity": "critical|high|medium|low|info",
               "title": "<short>", "detail": "<why it is a problem and how to fix it>"}],
 "patch": null or {"path": "<file>", "search": "<exact text copied from the file, occurring exactly once>",
                   "replace": "<the replacement text>", "explanation": "<what the edit fixes>"}}
Propose at most ONE patch, for the most important finding, as a minimal exact search/replace edit.
The search text must be copied character for character from the file (without line numbers)."""

EXPLAIN_PROMPT = """\
You explain a proposed code patch to the developer who asked for a review. Say what the edit changes,
why, what could break, and how to verify it. Answer in the user's language, concisely, in Markdown."""

REVISE_PROMPT = """\
You revise a proposed code patch as the developer asks. Answer with exactly one JSON object:
{"search": "<exact text copied from the current file, occurring exactly once>",
 "replace": "<the replacement text>", "explanation": "<what the revised edit does>"}
The edit applies to the same file. Copy the search text character for character from the file."""


@dataclass(frozen=True, slots=True)
class RepairOutcome:
    answer: str
    pending_patch: PendingPatch | None


@dataclass(frozen=True, slots=True)
class AuditedFile:
    path: str
    text: str
    sha256: str
    lines: int
    truncated: bool


class RepairAgents:
    """The three repair flows over one project and its review workspace. No Memory here (M-1)."""

    def __init__(
        self,
        *,
        provider: LLMProvider,
        root: Path,
        workspace: ReviewWorkspace,
        scanner: SemgrepScanner | None = None,
    ) -> None:
        self._provider = provider
        self._root = root.resolve()
        self._workspace = workspace
        self._scanner = scanner
        self._files = ProjectTools(root=self._root)

    def with_provider(self, provider: LLMProvider) -> RepairAgents:
        """The same agents asking `provider` (one request's cancellable view of the model)."""
        return RepairAgents(provider=provider, root=self._root, workspace=self._workspace, scanner=self._scanner)

    # -- code_audit ---------------------------------------------------------------------------------

    def audit(self, text: str, *, on_delta: DeltaSink | None, cancel: threading.Event | None) -> RepairOutcome:
        targets = project_paths(self._root, text) or ["."]
        files = self._collect(targets)
        _check(cancel)
        scan = self._scan(files)
        _check(cancel)
        messages = (
            Message(role="system", content=AUDIT_PROMPT),
            Message(role="user", content=_audit_input(text, files, scan)),
        )
        reply = self._json(messages, AuditReply, cancel)
        audited = {f.path for f in files}
        patch, patch_note = self._bind(reply.patch, audited)
        if patch is not None:
            self._workspace.set_pending_patch(patch)
        self._workspace.save_scan(
            {
                "targets": targets,
                "files": sorted(audited),
                "scanner": scan.status,
                "scanner_findings": [f.to_dict() for f in scan.findings],
                "summary": reply.summary,
                "findings": [f.model_dump() for f in reply.findings],
                "patch_proposed": patch is not None,
            }
        )
        self._workspace.update_index({f.path: {"sha256": f.sha256, "lines": f.lines} for f in files})
        answer = _render_audit(reply, files, scan, patch, patch_note)
        if on_delta is not None:
            on_delta(answer)
        return RepairOutcome(answer=answer, pending_patch=patch)

    def _collect(self, targets: Sequence[str]) -> list[AuditedFile]:
        files: list[AuditedFile] = []
        seen: set[str] = set()
        budget = MAX_AUDIT_CHARS
        for target in targets:
            for file in self._files.iter_files(self._files.resolve(target)):
                name = self._files.name(file)
                if name in seen or len(files) >= MAX_AUDIT_FILES or budget <= 0:
                    continue
                try:
                    data = file.read_bytes()
                except OSError:
                    continue
                if is_binary(data):
                    continue
                content = data.decode("utf-8", errors="replace")
                limit = min(MAX_FILE_CHARS, budget)
                seen.add(name)
                files.append(
                    AuditedFile(
                        path=name,
                        text=content[:limit],
                        sha256=sha256_bytes(data),
                        lines=content.count("\n") + 1,
                        truncated=len(content) > limit,
                    )
                )
                budget -= min(len(content), limit)
        return files

    def _scan(self, files: Sequence[AuditedFile]) -> ScanOutcome:
        if self._scanner is None:
            return ScanOutcome("not installed")
        key = cache_key("semgrep", self._scanner.config, *(f"{f.path}:{f.sha256}" for f in files))
        cached = self._workspace.cache_get(key)
        if isinstance(cached, dict) and cached.get("status") == "ok":
            from autopatch_j.agent.scanner import ScannerFinding

            findings = tuple(ScannerFinding(**f) for f in cached.get("findings", []))
            return ScanOutcome("ok", findings)
        outcome = self._scanner.scan(self._root, [f.path for f in files])
        if outcome.status == "ok":
            self._workspace.cache_put(key, {"status": "ok", "findings": [f.to_dict() for f in outcome.findings]})
        return outcome

    def _bind(self, proposal: AuditPatch | None, audited: set[str]) -> tuple[PendingPatch | None, str | None]:
        if proposal is None:
            return None, None
        try:
            name = self._files.name(self._files.resolve(proposal.path))
            if name not in audited:
                return None, f"The proposed patch was for {proposal.path}, which was not audited; it was dropped."
            patch = propose(
                self._root,
                path=name,
                search=proposal.search,
                replace=proposal.replace,
                explanation=proposal.explanation,
            )
        except WorkspaceError as exc:
            return None, f"The proposed patch did not match the current file and was dropped ({exc})."
        return patch, None

    # -- patch_explain ------------------------------------------------------------------------------

    def explain_patch(self, text: str, *, on_delta: DeltaSink | None, cancel: threading.Event | None) -> RepairOutcome:
        patch = self._require_patch()
        state = {
            "applies": "the file is unchanged since the patch was proposed",
            "file changed": "the file changed since the patch was proposed; accepting it would be refused",
            "file missing": "the file is missing; the patch can no longer be applied",
            "does not match": "the search text no longer matches the file",
        }[patch_state(self._root, patch)]
        messages = (
            Message(role="system", content=EXPLAIN_PROMPT),
            Message(role="user", content=f"{text}\n\n{_patch_block(patch)}\n\nStatus: {state}"),
        )
        answer = self._stream_text(messages, on_delta, cancel)
        return RepairOutcome(answer=answer, pending_patch=patch)

    # -- patch_revise -------------------------------------------------------------------------------

    def revise_patch(self, text: str, *, on_delta: DeltaSink | None, cancel: threading.Event | None) -> RepairOutcome:
        patch = self._require_patch()
        target = self._files.resolve(patch.path)
        try:
            current = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PatchConflict(f"{patch.path} cannot be read ({exc}); the pending patch was kept.") from exc
        shown = current[:MAX_REVISE_FILE_CHARS]
        cut = "" if len(current) <= MAX_REVISE_FILE_CHARS else "\n[… file cut here …]"
        messages = (
            Message(role="system", content=REVISE_PROMPT),
            Message(
                role="user",
                content=(
                    f"Revision request: {text}\n\n{_patch_block(patch)}\n\n"
                    f"Current content of {patch.path}:\n```\n{shown}{cut}\n```"
                ),
            ),
        )
        reply = self._json(messages, ReviseReply, cancel)
        try:
            revised = propose(
                self._root, path=patch.path, search=reply.search, replace=reply.replace, explanation=reply.explanation
            )
        except PatchConflict as exc:
            raise PatchConflict(f"{exc} The earlier pending patch was kept.") from exc
        self._workspace.set_pending_patch(revised)
        answer = (
            f"Revised patch for `{revised.path}`:\n\n{reply.explanation}\n\n"
            f"```diff\n{revised.diff()}\n```\n\n{ACCEPT_HINT}"
        )
        if on_delta is not None:
            on_delta(answer)
        return RepairOutcome(answer=answer, pending_patch=revised)

    # -- shared -------------------------------------------------------------------------------------

    def _require_patch(self) -> PendingPatch:
        patch = self._workspace.pending_patch()
        if patch is None:
            raise NoPendingPatch()
        return patch

    def _stream(self, messages: Sequence[Message], on_delta: DeltaSink | None, cancel: threading.Event | None) -> str:
        """One streamed main call without tools; returns the text (as shown through `on_delta`, if given)."""
        _check(cancel)
        request = ChatRequest(purpose=Purpose.MAIN, messages=tuple(messages))
        text, final = stream_call(self._provider, request, check=lambda: _check(cancel), emit=on_delta)
        if on_delta is None and final is not None:
            return final.content
        return text

    def _stream_text(
        self, messages: Sequence[Message], on_delta: DeltaSink | None, cancel: threading.Event | None
    ) -> str:
        answer = self._stream(messages, on_delta, cancel)
        if not answer.strip():
            raise AgentResponseError("The model returned an empty answer.")
        return answer

    def _json(self, messages: Sequence[Message], model: type[_M], cancel: threading.Event | None) -> _M:
        content = self._stream(messages, None, cancel)
        try:
            return parse_json_object(content, model)
        except LLMResponseError as exc:
            raise AgentResponseError(f"The model's review did not follow the expected format: {exc}") from exc


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise RequestCancelled("The request was cancelled.")


def _numbered(text: str) -> str:
    lines = text.splitlines()
    width = len(str(len(lines)))
    return "\n".join(f"{n:>{width}}| {line}" for n, line in enumerate(lines, start=1))


def _audit_input(text: str, files: Sequence[AuditedFile], scan: ScanOutcome) -> str:
    parts = [f"Request: {text}", ""]
    if not files:
        parts.append("(no readable text files were found at the named paths)")
    for f in files:
        cut = " (cut: only the beginning is shown)" if f.truncated else ""
        parts += [f"=== {f.path} ({f.lines} lines){cut} ===", _numbered(f.text), ""]
    parts.append(f"Scanner: semgrep {scan.status}")
    for finding in scan.findings:
        parts.append(f"- {finding.path}:{finding.line} [{finding.severity}] {finding.rule}: {finding.message}")
    return "\n".join(parts)


def _patch_block(patch: PendingPatch) -> str:
    return f"Pending patch for {patch.path}:\nExplanation: {patch.explanation}\n```diff\n{patch.diff()}\n```"


def _render_audit(
    reply: AuditReply,
    files: Sequence[AuditedFile],
    scan: ScanOutcome,
    patch: PendingPatch | None,
    patch_note: str | None,
) -> str:
    names = ", ".join(f"`{f.path}`" for f in files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
    lines = [f"**Audit of** {names or 'nothing readable'}", "", reply.summary.strip() or "(no summary)", ""]
    if reply.findings:
        lines.append(f"**Findings ({len(reply.findings)})**")
        for f in reply.findings:
            where = f"{f.path}:{f.line}" if f.line else f.path
            lines.append(f"- [{f.severity}] `{where}` — {f.title}: {f.detail}")
    else:
        lines.append("**No findings.**")
    lines.append("")
    scanner = "Semgrep: not installed (skipped)" if scan.status == "not installed" else f"Semgrep: {scan.status}"
    if scan.findings:
        scanner += f", {len(scan.findings)} raw result(s) given to the reviewer"
    lines.append(f"_{scanner}._")
    if patch is not None:
        lines += [
            "",
            f"**Proposed patch** for `{patch.path}`: {patch.explanation}",
            "",
            "```diff",
            patch.diff(),
            "```",
            "",
            ACCEPT_HINT,
        ]
    if patch_note:
        lines += ["", patch_note]
    return "\n".join(lines)
