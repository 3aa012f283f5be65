"""The interactive REPL (H-10, H-11): prompt_toolkit for input, rich for output.

One `Repl` per session. Slash commands run the same handlers as the subcommands (`memory_cmds.py`);
any other line goes to the agent host, in a worker thread, while the main thread renders the streamed
answer and watches the keyboard for Ctrl-C (the terminal is in raw mode, so Ctrl-C arrives as a key;
a SIGINT — e.g. when stdin is not a terminal — is handled the same way). Cancelling sets the request's
cancel event: the host marks the turn failed and the session continues.

Everything the REPL talks to is injected: the prompt_toolkit `input`/`output`, the rich `Console`,
the agent host (or `None` with the one sentence explaining why there is no LLM), and the Memory
runtime (background worker, `/new`'s one processing chance, the exit drain of M-52).
"""

from __future__ import annotations

import contextlib
import dataclasses
import select
import signal
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.spinner import Spinner
from rich.text import Text

from autopatch_j.agent.errors import RequestCancelled
from autopatch_j.app import signals
from autopatch_j.app.context import AppContext
from autopatch_j.app.errors import exit_code_for, message_for
from autopatch_j.app.render import rich_console, say
from autopatch_j.cli import ask_cmds, memory_cmds, status_cmd
from autopatch_j.cli.repl_commands import COMMANDS, KEYS_HELP, BadUsage, Resolved, Unknown, is_command, resolve
from autopatch_j.cli.repl_completion import SlashCompleter
from autopatch_j.llm.errors import LLMError
from autopatch_j.memory.status import concise_error
from autopatch_j.workspace.patch import PendingPatch, patch_state

if TYPE_CHECKING:
    from autopatch_j.agent.host import AgentHost, RequestResult

LLM_HINT = "Set AUTOPATCH_LLM_API_KEY and AUTOPATCH_LLM_BASE_URL (and AUTOPATCH_LLM_MODEL)."


class MemoryRuntime(Protocol):
    """The Memory pipeline as the REPL drives it (integration point for `memory/pipeline`)."""

    def start(self) -> None:
        """Start the background worker thread (startup recovery ran in `MemoryManager.open()`)."""

    def one_chance(self, thread_id: int) -> list[str]:
        """`/new`: give the old thread's pending jobs one processing chance; warnings for jobs left in retry."""

    def notify(self) -> None:
        """A turn was admitted (or ended): the worker may poll now."""

    def drain(self) -> list[str]:
        """Exit drain (M-52): each snapshot job tried at most once; warnings for jobs left in retry."""

    def stop(self) -> None:
        """Stop the background worker (idempotent)."""


class NoMemoryRuntime:
    """No background processing: jobs wait in the database for a later session (or the lead's wiring)."""

    def start(self) -> None:
        return None

    def one_chance(self, thread_id: int) -> list[str]:
        return []

    def notify(self) -> None:
        return None

    def drain(self) -> list[str]:
        return []

    def stop(self) -> None:
        return None


@dataclass(frozen=True, slots=True)
class LLMInfo:
    """What the banner and `/status` say about the LLM: a description, or why there is none."""

    description: str | None = None
    problem: str | None = None

    @property
    def configured(self) -> bool:
        return self.problem is None


@dataclass
class _Request:
    """One question in flight: the streamed text so far, the outcome, and the cancel switch."""

    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    result: RequestResult | None = None
    error: BaseException | None = None
    _parts: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def on_delta(self, piece: str) -> None:
        with self._lock:
            self._parts.append(piece)

    @property
    def text(self) -> str:
        with self._lock:
            return "".join(self._parts)


class Repl:
    """An interactive session; `run()` returns when the user quits (after the exit drain)."""

    def __init__(
        self,
        app: AppContext,
        *,
        host: AgentHost | None,
        llm: LLMInfo,
        runtime: MemoryRuntime | None = None,
        input: Input | None = None,
        output: Output | None = None,
        console: Console | None = None,
        history: History | None = None,
        notes: Sequence[str] = (),
        poll_interval: float = 0.1,
    ) -> None:
        manager = app.manager()  # opened before copying, so the copy shares it
        if console is not None:
            app = dataclasses.replace(app, console=console, err_console=console)
        self.app = app
        self.console = app.console
        self.host = host
        self.llm = llm
        self.runtime: MemoryRuntime = runtime or NoMemoryRuntime()
        self.poll_interval = poll_interval
        self.notes = tuple(notes)
        self._detached: threading.Thread | None = None
        signals.drop_terminated_records("prompt_toolkit")  # its history task logs what SIGTERM ends
        self.session: PromptSession[str] = PromptSession(
            input=input,
            output=output,
            history=history if history is not None else _file_history(manager.paths.history_file),
            completer=SlashCompleter(memory_ids=self._memory_ids),
            complete_while_typing=False,
        )

    # -- the loop -----------------------------------------------------------------------------

    def run(self) -> None:
        self._start()
        try:
            while True:
                try:
                    line = self.session.prompt(self._prompt())
                except KeyboardInterrupt:
                    continue  # Ctrl-C at the prompt clears the line
                except EOFError:
                    break  # Ctrl-D
                try:
                    if not self.handle_line(line):
                        break
                except KeyboardInterrupt:  # a SIGINT between two steps: the session goes on
                    say(self.console, "Interrupted.", "yellow")
        finally:
            self._finish()

    def handle_line(self, line: str) -> bool:
        """Run one input line; False when the session should end."""
        text = line.strip()
        if not text:
            return True
        if is_command(text):
            return self._command(text)
        self.ask(text)
        return True

    def _prompt(self) -> FormattedText:
        marker = " (patch pending)" if self._pending_patch() is not None else ""
        return FormattedText([("bold", "autopatch-j"), ("ansiyellow", marker), ("", " › ")])

    # -- start and exit ----------------------------------------------------------------------------

    def _start(self) -> None:
        self.banner()
        manager = self.app.manager()
        if manager.health.ok:
            manager.start_heartbeat()
        self._guard(self.runtime.start)

    def banner(self) -> None:
        c = self.console
        manager = self.app.manager()
        say(c, f"autopatch-j — {self.app.root}", "bold")
        health = manager.health
        if health.ok:
            report = manager.status()
            counts = report.counts
            say(
                c,
                f"Memory: healthy · thread {report.active_thread_id} · {counts.get('turns', 0)} turns · "
                f"{counts.get('active_items', 0)} memories",
                "green",
            )
        else:
            say(c, f"Memory: degraded — {health.reason}", "bold red")
            say(
                c,
                "Ordinary chat is disabled until `/memory clear --confirm`; /memory status, show and export "
                "still work.",
                "red",
            )
        if self.llm.configured:
            say(c, f"LLM: {self.llm.description or 'configured'}")
        else:
            say(c, f"LLM: not configured — {self.llm.problem}", "yellow")
            say(c, "Slash commands work without it; what you type is kept for Memory, unanswered.", "yellow")
        for note in self.notes:
            say(c, note, "yellow")
        say(c, "Type /help for commands; Ctrl-C cancels an answer, Ctrl-D or /quit exits.", "dim")

    def _finish(self) -> None:
        if signals.received() == signal.SIGTERM:  # asked to stop: no 60 s exit drain, no worker join
            say(self.console, "Terminated; pending Memory jobs wait for the next session.", "bold yellow")
            return
        self._join_detached()
        try:
            with self.console.status("Finishing pending Memory jobs…"):
                warnings = self.runtime.drain()
        except KeyboardInterrupt:
            warnings = ["Exit drain interrupted; pending Memory jobs wait for the next session."]
        except Exception as exc:
            warnings = [f"Exit drain failed: {message_for(exc)}"]
        for warning in warnings:
            say(self.console, f"warning: {warning}", "bold yellow")
        self._guard(self.runtime.stop)
        say(self.console, "Bye.", "dim")

    # -- questions ---------------------------------------------------------------------------------

    def ask(self, text: str) -> None:
        """Send one line to the agent host, streaming the answer; Ctrl-C cancels it."""
        if self.host is None:
            self._guard(lambda: self._keep_unanswered(text))
            return
        self._join_detached()
        host = self.host
        request = _Request()

        def work() -> None:
            try:
                request.result = host.handle(text, on_delta=request.on_delta, cancel=request.cancel)
            except BaseException as exc:
                request.error = exc
            finally:
                request.done.set()

        worker = threading.Thread(target=work, name="autopatch-j-request", daemon=True)
        finished = self._wait(request, start=worker.start)
        self.runtime.notify()
        if not finished:
            self._detached = worker
            say(self.console, "Cancelled. (The request is still ending in the background.)", "yellow")
            return
        self._show_outcome(request)

    def _keep_unanswered(self, text: str) -> None:
        problem = self.llm.problem or LLM_HINT
        if ask_cmds.keep_unanswered(self.app, text, has_pending_patch=self._pending_patch() is not None) is None:
            say(self.console, f"Reviews and explanations need an LLM. {problem}", "yellow")
            return
        self.runtime.notify()
        say(self.console, f"No LLM, so no answer; kept for Memory (no answer recorded). {problem}", "yellow")

    def _wait(self, request: _Request, *, start: Callable[[], None]) -> bool:
        """Start the request, render while it runs; False when the user stopped waiting (second Ctrl-C)."""
        live = (
            Live(console=rich_console(self.console), transient=True, auto_refresh=False, vertical_overflow="crop")
            if self.console.is_terminal
            else None
        )
        with _KeyWatch(self.session.input) as keys, live or contextlib.nullcontext():
            try:
                start()
            except KeyboardInterrupt:
                request.cancel.set()  # pressed before the request even started: it stops at once
            while not request.done.is_set():
                try:
                    if keys.wait_for_ctrl_c(self.poll_interval, request.done):
                        if request.cancel.is_set():
                            return False
                        request.cancel.set()
                    if live is not None:
                        live.update(self._frame(request), refresh=True)
                except KeyboardInterrupt:  # SIGINT: stdin is not a terminal, or raw mode was unavailable
                    if request.cancel.is_set():
                        return False
                    request.cancel.set()
        return True

    def _frame(self, request: _Request) -> RenderableType:
        """What the live region shows: a spinner until the first token, then the answer so far."""
        text = request.text
        width, height = self.console.size
        if request.cancel.is_set():
            status = Spinner("dots", Text("Cancelling… (Ctrl-C again to stop waiting)"))
            return Group(_tail(text, width, height - 2), status) if text else status
        if not text:
            return Spinner("dots", Text("Thinking… (Ctrl-C cancels)"))
        if _rows(text, width) > height - 2:
            return _tail(text, width, height - 1)  # only the end fits; the full answer follows as Markdown
        return Markdown(text)

    def _show_outcome(self, request: _Request) -> None:
        c = self.console
        if request.error is not None:
            if request.cancel.is_set() or isinstance(request.error, RequestCancelled):
                say(c, "Cancelled.", "yellow")
            else:
                self._report(request.error)
            return
        result = request.result
        assert result is not None
        answer = result.answer or request.text
        if answer:
            c.print(Markdown(answer))
            c.print()
        if result.truncated:
            from autopatch_j.agent.host import TRUNCATED_NOTE

            say(c, TRUNCATED_NOTE, "yellow")
        if self.app.debug or (result.route.source == "fallback" and result.route.announce):  # once a session
            reason = result.route.fallback_reason
            if reason and not self.app.debug:
                reason = reason.split(":", 1)[0]  # concise in normal mode (M-72, M-73)
            note = f"route: {result.intent.value} ({result.route.source})" + (f" — {reason}" if reason else "")
            say(c, note, "dim")
        if result.pending_patch is not None and "/accept" not in answer:  # the review usually says it itself
            say(
                c,
                f"A patch for {result.pending_patch.path} is pending: /patch shows it, /accept applies it, "
                "/discard drops it.",
                "yellow",
            )

    def _join_detached(self) -> None:
        worker = self._detached
        if worker is None:
            return
        if worker.is_alive():
            say(self.console, "Waiting for the cancelled request to end…", "dim")
            with contextlib.suppress(KeyboardInterrupt):
                while worker.is_alive():  # bounded waits: a signal on another thread still gets handled
                    worker.join(0.1)
        self._detached = None

    # -- slash commands ----------------------------------------------------------------------------

    def _command(self, line: str) -> bool:
        c = self.console
        resolved = resolve(line)
        if isinstance(resolved, Unknown):
            hint = f" Did you mean {resolved.suggestion}?" if resolved.suggestion else ""
            say(c, f"Unknown command {resolved.typed}.{hint} Type /help for the list.", "yellow")
            return True
        if isinstance(resolved, BadUsage):
            say(c, resolved.problem, "yellow")
            return True
        if resolved.spec.name == "/quit":
            return False
        self._guard(lambda: self._dispatch(resolved))
        return True

    def _dispatch(self, resolved: Resolved) -> None:
        app = self.app
        name = resolved.spec.name
        if name == "/help":
            self._help()
        elif name == "/status":
            self._status()
        elif name == "/new":
            self._new()
        elif name == "/reset":
            memory_cmds.run_reset(app, as_json=False)
        elif name == "/memory status":
            status_cmd.run_status(app, as_json=False)
        elif name == "/memory list":
            memory_cmds.run_list(app, as_json=False)
        elif name == "/memory show":
            memory_cmds.run_show(app, int(resolved.args[0]), as_json=False)
        elif name == "/memory forget":
            memory_cmds.run_forget(app, int(resolved.args[0]), as_json=False)
        elif name == "/memory clear":
            memory_cmds.run_clear(app, confirm="--confirm" in resolved.args, as_json=False)
        elif name == "/memory export":
            memory_cmds.run_export(app, as_json=False)
        elif name == "/patch":
            self._patch()
        elif name == "/accept":
            ask_cmds.run_patch_accept(app, as_json=False, host=self.host)
        elif name == "/discard":
            ask_cmds.run_patch_discard(app, as_json=False, host=self.host)
        else:  # pragma: no cover - the table and this dispatch are kept in step by a test
            raise AssertionError(f"no handler for {name}")

    def _help(self) -> None:
        c = self.console
        say(c, "Commands:", "bold")
        width = max(len(spec.usage) for spec in COMMANDS)
        for spec in COMMANDS:
            say(c, f"  {spec.usage.ljust(width)}  {spec.help}")
        say(c, "Keys:", "bold")
        for key, meaning in KEYS_HELP:
            say(c, f"  {key.ljust(width)}  {meaning}")
        say(c, "Anything else is a question for the agent.", "dim")

    def _status(self) -> None:
        c = self.console
        status_cmd.run_status(self.app, as_json=False)
        if self.llm.configured:
            say(c, f"LLM: {self.llm.description or 'configured'}")
        else:
            say(c, f"LLM: not configured — {self.llm.problem}", "yellow")
        patch = self._pending_patch()
        say(c, "pending patch: " + ("none" if patch is None else f"{patch.path} (/patch shows it)"))

    def _new(self) -> None:
        manager = self.app.manager()
        old = manager.active_thread()  # refuses on a degraded store before anything changes (M-17)
        with self.console.status("Giving the old thread's Memory jobs one processing chance…"):
            warnings = self.runtime.one_chance(old.id)
        for warning in warnings:
            say(self.console, f"warning: {warning}", "yellow")
        had_patch = self._pending_patch() is not None
        if self.host is not None:
            self.host.reset_temporary_state()  # aborts the pending patch, drops temporary agent state
        else:
            ask_cmds.workspace_for(self.app).clear_pending_patch()
        if had_patch:
            say(self.console, "The pending patch was aborted.")
        memory_cmds.run_new(self.app, as_json=False)

    def _patch(self) -> None:
        c = self.console
        patch = ask_cmds.workspace_for(self.app).pending_patch()
        if patch is None:
            say(c, "There is no pending patch; ask for a review (e.g. `audit src/app.py`) to get one.")
            return
        say(c, f"Pending patch for {patch.path} ({patch_state(self.app.root, patch)}):", "bold")
        say(c, patch.explanation)
        say(c, patch.diff())
        say(c, "/accept applies it, /discard drops it.", "dim")

    # -- helpers ----------------------------------------------------------------------------------

    def _guard(self, action: Callable[[], object]) -> None:
        """Run a command; any failure becomes one literal sentence and the session goes on."""
        try:
            action()
        except KeyboardInterrupt:
            say(self.console, "Interrupted.", "yellow")
        except Exception as exc:
            self._report(exc)

    def _report(self, exc: BaseException) -> None:
        known = exit_code_for(exc) is not None or type(exc).__module__.startswith("autopatch_j.")
        message = message_for(exc)
        if self.app.debug:
            say(self.console, f"error: {message}", "red")
            if not known:
                say(self.console, "".join(traceback.format_exception(exc)), "dim")
            return
        if isinstance(exc, LLMError):  # may carry provider text: its first line, bounded (M-72)
            say(self.console, f"error: {concise_error(message)}", "red")
        elif known:  # our own one-sentence messages are shown whole
            say(self.console, f"error: {message.strip().splitlines()[0] if message.strip() else message}", "red")
        else:
            say(
                self.console,
                f"error: unexpected {type(exc).__name__}: {concise_error(message)} "
                "(AUTOPATCH_DEBUG=true shows the traceback)",
                "red",
            )

    def _pending_patch(self) -> PendingPatch | None:
        try:
            if self.host is not None:
                return self.host.pending_patch()
            return ask_cmds.workspace_for(self.app).pending_patch()
        except Exception:  # an unreadable workspace must not break the prompt; /patch reports it
            return None

    def _memory_ids(self) -> list[tuple[int, str]]:
        return [(item.memory_id, item.title) for item in self.app.manager().list_items()]


class _KeyWatch:
    """Reads the keyboard in raw mode while a request runs: Ctrl-C cancels, other keys are typeahead."""

    def __init__(self, input: Input | None) -> None:
        self._input = input
        self._fd: int | None = None
        self._raw: contextlib.AbstractContextManager[None] | None = None

    def __enter__(self) -> _KeyWatch:
        if self._input is None:
            return self
        try:
            self._fd = self._input.fileno()
            self._raw = self._input.raw_mode()
            self._raw.__enter__()
        except Exception:  # no usable file descriptor: rely on SIGINT
            self._fd = None
            self._raw = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._raw is not None:
            self._raw.__exit__(None, None, None)

    def wait_for_ctrl_c(self, timeout: float, done: threading.Event) -> bool:
        """Wait up to `timeout` (less if the request ends); True when Ctrl-C was pressed."""
        if self._input is None or self._fd is None:
            done.wait(timeout)
            return False
        try:
            ready, _, _ = select.select([self._fd], [], [], timeout)
        except (OSError, ValueError):
            done.wait(timeout)
            return False
        if not ready:
            return False
        keys = [*self._input.read_keys(), *self._input.flush_keys()]
        ctrl_c = any(key.key == Keys.ControlC for key in keys)
        rest = [key for key in keys if key.key != Keys.ControlC]
        if rest:
            store_typeahead(self._input, rest)
        return ctrl_c


def _file_history(path: Any) -> History:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        return FileHistory(str(path))
    except OSError:
        return InMemoryHistory()


def _rows(text: str, width: int) -> int:
    """Screen rows `text` takes at `width` (soft-wrapped; a close estimate for the live region)."""
    return sum(max(1, -(-len(line) // max(width, 1))) for line in text.split("\n"))


def _tail(text: str, width: int, height: int) -> Text:
    """The last lines of `text` that fit in `height` rows, as plain text."""
    kept: list[str] = []
    rows = 0
    for line in reversed(text.split("\n")):
        rows += _rows(line, width)
        if rows > max(height, 1):
            break
        kept.append(line)
    return Text("\n".join(reversed(kept)))
