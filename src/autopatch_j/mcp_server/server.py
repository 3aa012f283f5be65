"""`autopatch-j mcp`: build the server over one project's Memory, run it, give everything back at the end.

    serve(app, ServeOptions(read_only=False))        # stdio until EOF, SIGTERM or SIGINT

Start: Memory is opened exactly as every CLI start opens it (`AppContext.manager()`); the REPL's
background `Worker` (same pipeline, same extractor choice) runs while the server is up, so recorded
turns are distilled without a separate `memory drain`; with the `publish` setting on
(docs/publish.md) the worker republishes the decisions each time its queue runs dry, as `memory drain`
does after draining (a refusal is logged; the memories stand). End — EOF on stdin, SIGTERM or SIGINT (and
Ctrl-C / SIGTERM under streamable HTTP): the worker gets ≤ 1 s to finish its step (MCP clients kill a
server 2 s after closing its stdin), then
`MemoryManager.release_leases()` makes this process's leased jobs due again at once and interrupts
its open turns, so another process picks the work up without waiting for a lease to expire.

stdout belongs to the protocol: the SDK's stdio transport points fd 1 at stderr while it serves,
and everything of ours (start line, logs) goes to stderr.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, Resource
from pydantic import ValidationError

from autopatch_j import __version__
from autopatch_j.app.context import AppContext
from autopatch_j.app.errors import message_for
from autopatch_j.mcp_server.notifications import ListChangedNotifier
from autopatch_j.mcp_server.resources import memory_resources, register_resources
from autopatch_j.mcp_server.service import MemoryService
from autopatch_j.mcp_server.tools import argument_sentence, register_tools
from autopatch_j.memory import InvalidInputError, MemoryEngineError, MemoryManager, Worker

Transport = Literal["stdio", "streamable-http"]
SERVER_NAME = "autopatch-j"
log = logging.getLogger("autopatch_j.mcp")
# On the way out the worker gets this long to finish its step; a step still running after it (a slow
# LLM call) loses its lease to `release_leases` and its result is discarded by the fence, never half-written.
STOP_WAIT_SECONDS = 1.0

INSTRUCTIONS = """\
autopatch-j Memory for this project: the user's stated preferences, confirmed project decisions and the
current discussion, each traceable to an exact quote. Read memory_context (or the autopatch-j://context
resource) at the start of a conversation; use memory_search / memory_read for details. Memory is not
evidence about the code. After each finished exchange, call record_turn with exactly what the user typed
and the final answer they saw (when the tool is offered)."""


@dataclass(frozen=True)
class ServeOptions:
    read_only: bool = False
    transport: Transport = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    allow_remote: bool = False


def check_host(host: str, *, allow_remote: bool) -> None:
    """Loopback only unless `--allow-remote`: Memory holds the RAW, unredacted conversation."""
    if allow_remote or host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise InvalidInputError(
            f"--host {host} is not a loopback address; Memory holds RAW conversation, so serving it beyond this "
            "machine needs --allow-remote."
        )


class MemoryMCPServer(MCPServer[Any]):
    """`MCPServer` with two public methods refined: `call_tool` (tool errors as one sentence) and
    `list_resources` (the static context resource plus every active memory at the time of the call)."""

    def __init__(self, *args: Any, service: MemoryService, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.service = service

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """A tool error is exactly one sentence: ours as the CLI prints it, bad arguments in one line."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(argument_sentence(name, cause)) from cause
            if isinstance(cause, ToolError) and not isinstance(cause, UnexpectedToolError):
                raise ToolError(str(cause)) from cause  # ours: the CLI's sentence, without the SDK's prefix
            raise

    async def list_resources(self) -> list[Resource]:
        static = await super().list_resources()
        return static + await anyio.to_thread.run_sync(memory_resources, self.service)


class Lifecycle:
    """The background worker while the server runs; on the way out, stop it and release this process's
    leases — exactly once, whichever way the server ends (EOF, signal, error)."""

    def __init__(self, *, manager: MemoryManager, worker: Worker | None, stop_wait_s: float = STOP_WAIT_SECONDS):
        self._manager = manager
        self._worker = worker
        self._stop_wait_s = stop_wait_s
        self._lock = threading.Lock()
        self._done = False

    def start(self) -> None:
        if self._worker is not None:
            self._worker.start()

    def notify(self) -> None:
        """A turn was recorded: the worker polls now instead of at its next interval."""
        if self._worker is not None:
            self._worker.notify()

    def shutdown(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            if self._worker is not None:
                self._worker.stop(timeout=self._stop_wait_s)
            try:
                released = self._manager.release_leases()
            except MemoryEngineError as exc:
                log.warning("could not release this process's leases (they expire on their own): %s", exc)
                return
            sys.stderr.write(
                f"autopatch-j mcp: stopped; released {len(released.jobs)} job lease(s), "
                f"interrupted {len(released.turns)} open turn(s)\n"
            )
            sys.stderr.flush()


def background_worker(app: AppContext) -> Worker | None:
    """The REPL's background worker on this project's pipeline (same extractor choice), or None when
    Memory is degraded or the extractor cannot be built (jobs then wait for another process)."""
    from autopatch_j.app.pipelines import pipeline_for
    from autopatch_j.llm.errors import LLMError

    try:
        pipeline = pipeline_for(app)
    except (MemoryEngineError, LLMError) as exc:
        log.warning("background Memory processing is off: %s", message_for(exc))
        return None

    def report(exc: BaseException) -> None:
        log.info("background Memory step failed (retried later): %s", exc if app.debug else type(exc).__name__)

    targets = publish_setting(app)

    def republish() -> None:
        from autopatch_j.app.publish.service import publish_after_drain

        try:
            error = publish_after_drain(app, targets).error
        except Exception as exc:  # a degraded store, a busy database: the next drain tries again
            error = message_for(exc)
        if error is not None:
            log.warning("automatic publish after the drain failed (the memories stand): %s", error)

    return Worker(pipeline=pipeline, on_error=report, on_idle=republish if targets else None)


def publish_setting(app: AppContext) -> tuple[str, ...]:
    """The `publish` setting, read once at start; a bad value is logged and automatic publish is off."""
    from autopatch_j.app.errors import PublishConfigError
    from autopatch_j.app.publish.settings import read_publish_targets

    try:
        return read_publish_targets(app.environ, app.root)
    except PublishConfigError as exc:
        log.warning("automatic publish is off: %s", message_for(exc))
        return ()


def build_server(service: MemoryService, *, read_only: bool, debug: bool) -> MemoryMCPServer:
    notifier = ListChangedNotifier(service.app.manager().items_fingerprint)
    server = MemoryMCPServer(
        SERVER_NAME,
        title="autopatch-j Memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        service=service,
        log_level="DEBUG" if debug else "WARNING",
        subscriptions=notifier.bus,
        lifespan=notifier.running,
        middleware=[notifier.middleware],
    )
    register_tools(server, service, read_only=read_only)
    register_resources(server, service)
    return server


def serve(app: AppContext, options: ServeOptions) -> None:
    """Run until the client goes away or a signal arrives; always stop the worker and release leases."""
    if options.transport != "stdio":
        check_host(options.host, allow_remote=options.allow_remote)
    manager = app.manager()  # create or verify Memory first, exactly as every CLI start does
    manager.start_whole_file_checks()  # a long-lived process: the whole-file checks in the background
    lifecycle = Lifecycle(manager=manager, worker=background_worker(app))
    service = MemoryService(app=app, notify=lifecycle.notify)
    server = build_server(service, read_only=options.read_only, debug=app.debug)
    health = manager.health
    where = "stdio" if options.transport == "stdio" else f"http://{options.host}:{options.port}/mcp"
    sys.stderr.write(
        f"autopatch-j mcp: serving {app.root} over {where}"
        f"{' (read-only)' if options.read_only else ''}; Memory {'healthy' if health.ok else 'degraded'}"
        f"{'' if health.ok else f' ({health.reason})'}\n"
    )
    sys.stderr.flush()
    try:
        lifecycle.start()
        if options.transport == "stdio":
            anyio.run(_serve_stdio, server, lifecycle.shutdown)
        else:
            _serve_http(server, options)
    except KeyboardInterrupt:
        pass
    finally:
        lifecycle.shutdown()


async def _serve_stdio(server: MemoryMCPServer, shutdown: Callable[[], None]) -> None:
    async with anyio.create_task_group() as group:
        group.start_soon(_exit_on_signal, shutdown)
        await server.run_stdio_async()  # returns at EOF on stdin
        group.cancel_scope.cancel()


async def _exit_on_signal(shutdown: Callable[[], None]) -> None:
    """SIGTERM / SIGINT: release everything, then exit at once.

    The stdio transport reads stdin in a thread that no cancellation can interrupt while the client
    keeps the pipe open, so the process cannot wait for EOF: it cleans up here and leaves.
    """
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            try:
                await anyio.to_thread.run_sync(shutdown)
            except Exception as exc:  # leave anyway: leases expire on their own
                log.warning("shutdown after signal %d failed: %s", signum, message_for(exc))
            with contextlib.suppress(Exception):
                sys.stderr.flush()
            os._exit(0)


def _serve_http(server: MemoryMCPServer, options: ServeOptions) -> None:
    # uvicorn handles SIGINT/SIGTERM itself and re-raises the signal after its graceful shutdown;
    # turning SIGTERM into KeyboardInterrupt here lets `serve`'s `finally` release the leases.
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    server.run("streamable-http", host=options.host, port=options.port)
