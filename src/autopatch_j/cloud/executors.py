"""Pluggable executors (C-8): scripted (deterministic), command (an agent CLI), llm (OpenAI-compatible).

An executor receives the effective instruction: for the first round the goal if the task has one,
else the prompt (both possibly with injected memories); a continuation round runs its own prompt.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from autopatch_j.cloud.errors import ConfigError
from autopatch_j.cloud.redaction import redact

if TYPE_CHECKING:
    from autopatch_j.cloud.settings import CloudSettings

SCRIPTED_REPORT = (
    "\n\n--- scripted executor report ---\n"
    "The scripted executor read the instruction above and finished without touching any file. "
    "It is deterministic so that tests and demos can see exactly which prompt a task received."
)
_MEMORY_LINES = ("- [user] ", "- [project] ")


def injected_memory_note(instruction: str) -> str:
    """How many injected memory lines the instruction carried (never their text: the worker withholds
    the injected block from every stored result)."""
    count = sum(1 for line in instruction.splitlines() if line.startswith(_MEMORY_LINES))
    return f"\nIt received {count} injected memory line(s)." if count else ""


_OUTPUT_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class ExecutionRequest:
    task_id: int
    project_id: int
    round: int
    prompt: str
    goal: str | None

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
    injected memory lines); the worker removes the injected block itself before storing the result."""

    cost_usd: float = 0.01
    name: str = "scripted"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        text = request.instruction + SCRIPTED_REPORT + injected_memory_note(request.instruction)
        return ExecutionResult(ok=True, text=text, cost_usd=self.cost_usd)


@dataclass(frozen=True, slots=True)
class CommandExecutor:
    """Runs `argv + [instruction]` (e.g. `codex exec …`) in `work_dir/task-<id>` with a timeout."""

    argv: tuple[str, ...]
    work_dir: Path
    timeout_seconds: float
    name: str = "command"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        cwd = self.work_dir / f"task-{request.task_id}"
        cwd.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(
                [*self.argv, request.instruction],
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=self.timeout_seconds,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return ExecutionResult(ok=False, text=f"command timed out after {self.timeout_seconds:g} seconds")
        except OSError as exc:
            return ExecutionResult(ok=False, text=f"command could not start: {exc.strerror or exc}")
        if done.returncode != 0:
            tail = redact(done.stderr or done.stdout)[-2000:]  # redact first, cut after (issue 10)
            return ExecutionResult(ok=False, text=f"command exited with status {done.returncode}\n{tail}")
        return ExecutionResult(
            ok=True, text=redact(done.stdout)[:_OUTPUT_LIMIT], external_context=detect_external_context(done.stdout)
        )


@dataclass(frozen=True, slots=True)
class LlmExecutor:
    """One chat-completions call to an OpenAI-compatible endpoint; cost from token usage."""

    base_url: str
    api_key: str
    model: str
    timeout_seconds: float
    input_usd_per_token: float
    output_usd_per_token: float
    name: str = "llm"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        import openai

        client = openai.OpenAI(
            base_url=self.base_url, api_key=self.api_key, timeout=self.timeout_seconds, max_retries=0
        )
        try:
            response = client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": request.instruction}]
            )
        except openai.OpenAIError as exc:
            return ExecutionResult(ok=False, text=f"llm call failed: {exc.__class__.__name__}")
        finally:
            client.close()
        text = (response.choices[0].message.content or "") if response.choices else ""
        usage = response.usage
        cost = 0.0
        if usage is not None:
            cost = usage.prompt_tokens * self.input_usd_per_token + usage.completion_tokens * self.output_usd_per_token
        return ExecutionResult(ok=True, text=text, cost_usd=cost)


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
