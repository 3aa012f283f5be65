"""`autopatch-j` with no subcommand: wire the LLM, the agent host and the Memory pipeline into the REPL.

Three small steps, each usable (and tested) alone:

- `connect_llm(app)` — the provider from `providers.provider_factory` (environment, then
  `.autopatch-j/config.toml`), or `None` and the one sentence saying what to set (H-1);
- `connect_memory_runtime(app, provider)` — `PipelineRuntime`: the background worker thread
  (startup recovery already ran in `MemoryManager.open()`, M-51), `/new`'s one processing chance
  for the old thread, the exit drain (M-52) and, with the `publish` setting on (docs/publish.md),
  the republish `memory drain` does after it. The extractor is the LLM when configured, else the
  offline rules (`AUTOPATCH_MEMORY_EXTRACTOR` chooses);
- `run_repl(app)` — builds the host with `ask_cmds.build_host` and runs the `Repl` on the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from autopatch_j.app.context import AppContext
from autopatch_j.app.errors import message_for
from autopatch_j.cli.repl import LLMInfo, MemoryRuntime, NoMemoryRuntime, Repl
from autopatch_j.memory.drain import EXIT_BUDGET_SECONDS, drain_at_exit, drain_thread
from autopatch_j.memory.errors import MemoryEngineError, MemorySchemaError
from autopatch_j.memory.pipeline import Pipeline
from autopatch_j.memory.worker import Worker

if TYPE_CHECKING:
    from autopatch_j.llm.provider import LLMProvider


class PipelineRuntime:
    """The Memory pipeline as the REPL drives it: worker while running, one drain round at exit.

    The pipeline is connected lazily: on a degraded store there is nothing to process, and after
    `/memory clear --confirm` made it healthy again the next call connects (and starts the worker).
    `republish` (the `publish` setting on) runs after the exit drain; the sentence it returns when
    publishing was refused becomes one more warning.
    """

    def __init__(
        self,
        connect: Callable[[], Pipeline],
        *,
        background: bool = True,
        budget_s: float = EXIT_BUDGET_SECONDS,
        republish: Callable[[], str | None] | None = None,
    ) -> None:
        self._connect = connect
        self._republish = republish
        self.background = background
        self.budget_s = budget_s
        self.pipeline: Pipeline | None = None
        self.worker: Worker | None = None

    def _ready(self) -> Pipeline | None:
        if self.pipeline is None:
            try:
                pipeline = self._connect()
            except MemorySchemaError:
                return None  # degraded: the banner says so; jobs wait until the store is healthy
            self.pipeline = pipeline
            if self.background:
                self.worker = Worker(pipeline=pipeline)
                self.worker.start()
        return self.pipeline

    def start(self) -> None:
        self._ready()

    def notify(self) -> None:
        if self._ready() is not None and self.worker is not None:
            self.worker.notify()

    def one_chance(self, thread_id: int) -> list[str]:
        pipeline = self._ready()
        if pipeline is None:
            return []
        return list(drain_thread(pipeline, thread_id=thread_id, budget_s=self.budget_s).warnings)

    def drain(self) -> list[str]:
        self.stop()  # the worker finishes its current step first; then nothing competes with the drain
        self.background = False
        pipeline = self._ready()
        if pipeline is None:
            return []
        warnings = list(drain_at_exit(pipeline, budget_s=self.budget_s).warnings)
        error = self._republish() if self._republish is not None else None
        return warnings if error is None else [*warnings, error]

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.worker = None


def connect_llm(app: AppContext) -> tuple[LLMProvider | None, LLMInfo]:
    """The configured provider, or `(None, why)` — one sentence naming what to set."""
    from autopatch_j.app import providers
    from autopatch_j.llm.errors import LLMConfigError

    try:
        provider = providers.provider_factory(app)
    except LLMConfigError as exc:
        return None, LLMInfo(problem=message_for(exc))
    return provider, LLMInfo(description=_describe(app, provider))


def _describe(app: AppContext, provider: object) -> str:
    settings = getattr(provider, "settings", None)
    describe = getattr(settings, "describe", None)
    if callable(describe):
        return str(describe())
    return type(provider).__name__


def connect_memory_runtime(
    app: AppContext, provider: LLMProvider | None, *, background: bool = True
) -> tuple[MemoryRuntime, str | None]:
    """The pipeline adapter, or `NoMemoryRuntime` and a warning when the extractor choice is invalid.
    The `publish` setting is read here, once; a bad value is a warning and the exit drain publishes nothing."""
    from autopatch_j.app.errors import PublishConfigError
    from autopatch_j.app.publish.service import publish_after_drain
    from autopatch_j.app.publish.settings import read_publish_targets
    from autopatch_j.memory.extractor import choose_extractor

    manager = app.manager()
    try:
        extractor = choose_extractor(mode=app.extractor_mode, provider=provider)
    except MemoryEngineError as exc:
        return NoMemoryRuntime(), f"Background Memory processing is off: {message_for(exc)}"
    note = None
    try:
        targets = read_publish_targets(app.environ, app.root)
    except PublishConfigError as exc:
        targets, note = (), f"Automatic publish is off: {message_for(exc)}"

    def republish() -> str | None:
        return publish_after_drain(app, targets).error

    runtime = PipelineRuntime(
        lambda: Pipeline.for_manager(manager, extractor=extractor),
        background=background,
        republish=republish if targets else None,
    )
    return runtime, note


def run_repl(app: AppContext) -> None:
    """Start the interactive session on the real terminal; returns after the exit drain."""
    from autopatch_j.cli import ask_cmds

    app.manager()  # open (create or verify) Memory first: the banner reports its health
    app.manager().start_whole_file_checks()  # a long-lived process: the whole-file checks in the background
    provider, llm = connect_llm(app)
    host = None
    if provider is not None:
        try:
            host = ask_cmds.build_host(app, provider=provider)
        except Exception as exc:  # the REPL still serves every slash command (H-1)
            llm = LLMInfo(problem=f"the agent could not start: {message_for(exc)}")
    runtime, warning = connect_memory_runtime(app, provider)
    Repl(app, host=host, llm=llm, runtime=runtime, notes=[warning] if warning else []).run()
