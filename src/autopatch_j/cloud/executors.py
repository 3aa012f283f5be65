"""Pluggable executors (C-8): scripted (deterministic), command (an agent CLI), llm (OpenAI-compatible,
through the `llm` layer: the cloud never calls the `openai` SDK itself).

An executor receives the effective instruction: for the first round the goal if the task has one,
else the prompt (both possibly with injected memories); a continuation round runs its own prompt.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from autopatch_j.cloud.errors import ConfigError
from autopatch_j.cloud.redaction import redact
from autopatch_j.llm.config import LLMSettings
from autopatch_j.llm.diagnostics import DiagnosticsLog
from autopatch_j.llm.errors import LLMCancelled, LLMError
from autopatch_j.llm.openai_provider import OpenAIProvider
from autopatch_j.llm.provider import ChatRequest, Message, Purpose
from autopatch_j.llm.pump import CancellableProvider

if TYPE_CHECKING:
    from autopatch_j.cloud.settings import CloudSettings

SCRIPTED_REPORT = (
    "\n\n--- scripted executor report ---\n"
    "The scripted executor read the instruction above and finished without touching any file. "
    "It is deterministic so that tests and demos can see exactly which prompt a task received."
)
_PROJECT_LINE = "- [project] "


def injected_memory_note(instruction: str) -> str:
    """How many injected project memory lines the instruction carried (never their text, and never a
    count of the owner's private `[user]` lines: the result is visible to the whole project)."""
    count = sum(1 for line in instruction.splitlines() if line.startswith(_PROJECT_LINE))
    return f"\nIt received {count} injected project memory line(s)." if count else ""


_OUTPUT_LIMIT = 200_000
_GUARD = str(Path(__file__).with_name("process_guard.py"))
_POLL_SECONDS = 0.2
_REAP_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class ExecutionRequest:
    task_id: int
    project_id: int
    round: int
    prompt: str
    goal: str | None
    # Set by the worker when the run must stop (lease lost, shutdown); executors that can stop do.
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)

    @property
    def instruction(self) -> str:
        """Executors prefer the goal over the prompt on the first round."""
        if self.round == 1 and self.goal:
            return self.goal
        return self.prompt


@dataclass(frozen=True, slots=True)
class ExecutionResult:
    ok: bool
    text: str
    cost_usd: float = 0.0
    external_context: frozenset[str] = frozenset()  # C-41: e.g. {"mcp", "web_search"}


EXTERNAL_KINDS = (("mcp", "mcp"), ("web_search", "web_search"))


def detect_external_context(output: str) -> frozenset[str]:
    """External context in an agent's JSON-lines events (e.g. `codex exec --json`): any event whose
    `type` (or its `item`'s / `msg`'s `type`) names an MCP tool call or a web search."""
    found: set[str] = set()
    for line in output.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        types = [event.get("type")]
        for key in ("item", "msg"):
            inner = event.get(key)
            if isinstance(inner, dict):
                types += [inner.get("type"), inner.get("item_type")]
        for value in types:
            if isinstance(value, str):
                found.update(kind for marker, kind in EXTERNAL_KINDS if marker in value.lower())
    return frozenset(found)


class Executor(Protocol):
    @property
    def name(self) -> str: ...

    def execute(self, request: ExecutionRequest) -> ExecutionResult: ...


@dataclass(frozen=True, slots=True)
class ScriptedExecutor:
    """Deterministic: the result echoes the instruction received, then a fixed report (and the number of
    injected project memory lines); the worker removes the injected block itself before storing the result."""

    cost_usd: float = 0.01
    name: str = "scripted"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        text = request.instruction + SCRIPTED_REPORT + injected_memory_note(request.instruction)
        return ExecutionResult(ok=True, text=text, cost_usd=self.cost_usd)


@dataclass(frozen=True, slots=True)
class CommandExecutor:
    """Runs `argv + [instruction]` (e.g. `codex exec …`) in `work_dir/task-<id>` with a timeout.

    The command runs under `process_guard.py` in a process group of its own, tied to the worker by a
    pipe: a timeout, a cancelled run or the worker's death (even SIGKILL) kills the whole group.
    """

    argv: tuple[str, ...]
    work_dir: Path
    timeout_seconds: float
    name: str = "command"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        cwd = self.work_dir / f"task-{request.task_id}"
        cwd.mkdir(parents=True, exist_ok=True)
        watch_fd, write_fd = os.pipe()
        lifeline = _Lifeline(write_fd)
        try:
            proc = subprocess.Popen(
                [sys.executable, _GUARD, str(watch_fd), *self.argv, request.instruction],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                pass_fds=(watch_fd,),
                start_new_session=True,
            )
        except OSError as exc:
            lifeline.close()
            return ExecutionResult(ok=False, text=f"command could not start: {exc.strerror or exc}")
        finally:
            os.close(watch_fd)
        try:
            stdout, stderr, stopped = self._wait(proc, request.cancel, lifeline)
        finally:
            lifeline.close()
        if stopped is not None:
            return ExecutionResult(ok=False, text=stopped)
        if proc.returncode != 0:
            tail = redact(stderr or stdout)[-2000:]  # redact first, cut after
            return ExecutionResult(ok=False, text=f"command exited with status {proc.returncode}\n{tail}")
        return ExecutionResult(
            ok=True, text=redact(stdout)[:_OUTPUT_LIMIT], external_context=detect_external_context(stdout)
        )

    def _wait(
        self, proc: subprocess.Popen[str], cancel: threading.Event, lifeline: _Lifeline
    ) -> tuple[str, str, str | None]:
        """(stdout, stderr, why it was stopped or None); polls so a cancel is seen within 0.2 s."""
        deadline = time.monotonic() + self.timeout_seconds
        while True:
            try:
                stdout, stderr = proc.communicate(timeout=_POLL_SECONDS)
                return stdout, stderr, None
            except subprocess.TimeoutExpired:
                if cancel.is_set():
                    why = "command stopped: the worker lost the task's lease or is shutting down"
                elif time.monotonic() >= deadline:
                    why = f"command timed out after {self.timeout_seconds:g} seconds"
                else:
                    continue
            lifeline.close()  # the guard sees EOF and kills the command's process group
            try:
                stdout, stderr = proc.communicate(timeout=_REAP_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
            return stdout, stderr, why


class _Lifeline:
    """The worker's end of the guard's pipe; closing it (once) tells the guard to kill the command."""

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


@dataclass(frozen=True, slots=True)
class LlmExecutor:
    """One non-streamed chat call to an OpenAI-compatible endpoint through the `llm` layer's provider
    (`OpenAIProvider`, purpose `task`: one SDK client, SDK errors translated to `LLMError`, calls
    recorded in `diagnostics` when given); cost from token usage. A cancelled run stops waiting."""

    base_url: str
    api_key: str = field(repr=False)
    model: str
    timeout_seconds: float
    input_usd_per_token: float
    output_usd_per_token: float
    name: str = "llm"
    diagnostics: DiagnosticsLog | None = field(default=None, compare=False)

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        settings = LLMSettings(api_key=self.api_key, base_url=self.base_url, model=self.model)
        provider = OpenAIProvider(settings=settings, diagnostics=self.diagnostics, timeout_s=self.timeout_seconds)
        chat = ChatRequest(purpose=Purpose.TASK, messages=(Message(role="user", content=request.instruction),))
        try:
            response = CancellableProvider(provider, request.cancel).complete(chat)
        except LLMCancelled:
            return ExecutionResult(
                ok=False, text="llm call stopped: the worker lost the task's lease or is shutting down"
            )
        except LLMError as exc:
            return ExecutionResult(ok=False, text=f"llm call failed: {_failure(exc)}")
        finally:
            provider.close()
        usage = response.usage
        cost = usage.prompt_tokens * self.input_usd_per_token + usage.completion_tokens * self.output_usd_per_token
        return ExecutionResult(ok=True, text=response.content, cost_usd=cost)


def _failure(exc: LLMError) -> str:
    """The error's kind and HTTP status, never its message: a provider's text is not stored in a result."""
    status = getattr(exc, "status", None)
    return exc.__class__.__name__ + (f" (HTTP {status})" if status is not None else "")


def make_executor(name: str, *, settings: CloudSettings) -> Executor:
    """Build the executor named on the command line from the settings."""
    if name == "scripted":
        return ScriptedExecutor(cost_usd=settings.scripted_cost_usd)
    if name == "command":
        argv = tuple(shlex.split(settings.command))
        if not argv:
            raise ConfigError("AUTOPATCH_CLOUD_COMMAND is empty; set it to an agent CLI such as 'codex exec'.")
        import platformdirs

        work_dir = settings.work_dir or Path(platformdirs.user_data_dir("autopatch-j", appauthor=False)) / "work"
        return CommandExecutor(argv=argv, work_dir=work_dir, timeout_seconds=settings.command_timeout_seconds)
    if name == "llm":
        return LlmExecutor(
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key,
            model=settings.llm_model,
            timeout_seconds=settings.llm_timeout_seconds,
            input_usd_per_token=settings.llm_input_usd_per_token,
            output_usd_per_token=settings.llm_output_usd_per_token,
        )
    raise ConfigError(f"unknown executor {name!r}; choose scripted, command or llm.")
