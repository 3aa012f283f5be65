"""The interactive REPL (H-10, H-11), driven through prompt_toolkit pipe input and a rich console buffer.

Every session test sends its keys through `create_pipe_input()` (lines, Tab, Ctrl-C as "\\x03",
Ctrl-D as "\\x04"), renders to `Console(file=io.StringIO())` and checks both what was shown and what
Memory stored. Slow answers block on events, never on sleeps.
"""

from __future__ import annotations

import io
import signal
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from autopatch_j.agent.host import AgentHost, RequestResult
from autopatch_j.app.context import AppContext
from autopatch_j.app.settings import Switches
from autopatch_j.cli.ask_cmds import workspace_for
from autopatch_j.cli.repl import LLMInfo, MemoryRuntime, NoMemoryRuntime, Repl
from autopatch_j.cli.repl_commands import COMMANDS, BadUsage, Resolved, Unknown, resolve
from autopatch_j.cli.repl_completion import SlashCompleter
from autopatch_j.llm.canned import CannedProvider
from autopatch_j.llm.errors import LLMProviderError
from autopatch_j.llm.provider import ChatRequest, Purpose
from autopatch_j.memory.catalog import SCHEMA_VERSION
from autopatch_j.workspace.patch import propose
from tests.agent.conftest import APP_PY, AUDIT_WITH_PATCH

WAIT_S = 10.0  # upper bound for events that normally fire within milliseconds
DOCS = Path(__file__).resolve().parents[2] / "docs" / "repl.md"


# -- fixtures ------------------------------------------------------------------------------------


@dataclass
class Session:
    app: AppContext
    buffer: io.StringIO
    pipe: PipeInput

    @property
    def out(self) -> str:
        return self.buffer.getvalue()

    def db(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.app.manager().paths.db)
        conn.row_factory = sqlite3.Row
        return conn

    def turns(self) -> list[sqlite3.Row]:
        with self.db() as conn:
            return list(conn.execute("SELECT * FROM turns ORDER BY id"))

    def active_thread_id(self) -> int:
        return self.app.manager().active_thread().id

    def run(
        self,
        keys: str,
        *,
        host: AgentHost | None = None,
        llm: LLMInfo | None = None,
        runtime: MemoryRuntime | None = None,
        terminal: bool = False,
    ) -> Repl:
        console = self.app.console
        if terminal:
            console = Console(file=self.buffer, force_terminal=True, width=100, height=30, highlight=False)
        repl = Repl(
            self.app,
            host=host,
            llm=llm or (LLMInfo(description="canned model") if host is not None else LLMInfo(problem="no LLM")),
            runtime=runtime,
            input=self.pipe,
            output=DummyOutput(),
            console=console,
            history=InMemoryHistory(),
            poll_interval=0.02,
        )
        self.pipe.send_text(keys)
        repl.run()
        return repl


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP_PY, encoding="utf-8")
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=False, width=100, highlight=False, soft_wrap=True)
    app = AppContext(root=root, environ={}, console=console, err_console=console)
    with create_pipe_input() as pipe:
        yield Session(app=app, buffer=buffer, pipe=pipe)
    app.close()


# -- the real agent host over a canned provider -------------------------------------------------------------

GENERAL_CHAT = '{"intent": "general_chat"}'


class RecordingHost(AgentHost):
    """The real `AgentHost`, remembering the cancel event of each request so a canned answer can wait on it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cancels: list[threading.Event | None] = []
        self.texts: list[str] = []

    def handle(self, text: str, **kwargs: Any) -> RequestResult:
        self.texts.append(text)
        self.cancels.append(kwargs.get("cancel"))
        return super().handle(text, **kwargs)

    def cancel_event(self) -> threading.Event:
        event = self.cancels[-1]
        assert event is not None, "the REPL passed no cancel event"
        return event


def host_for(session: Session, provider: CannedProvider) -> RecordingHost:
    app = session.app
    return RecordingHost(manager=app.manager(), provider=provider, root=app.root, workspace=workspace_for(app))


def chat(provider: CannedProvider, *answers: Any) -> CannedProvider:
    """Queue ordinary answers, each routed by the classifier to general_chat."""
    for answer in answers:
        provider.enqueue(Purpose.CLASSIFIER, GENERAL_CHAT)
        provider.enqueue(Purpose.MAIN, answer)
    return provider


@dataclass
class RecordingRuntime:
    """A Memory runtime that records the REPL's calls and returns scripted warnings."""

    session: Session | None = None
    drain_warnings: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)

    def start(self) -> None:
        self.calls.append("start")

    def notify(self) -> None:
        self.calls.append("notify")

    def one_chance(self, thread_id: int) -> list[str]:
        assert self.session is not None
        # The old thread is still the active one when its jobs get their chance.
        self.calls.append(f"one_chance({thread_id}, active={self.session.active_thread_id()})")
        return []

    def drain(self) -> list[str]:
        self.calls.append("drain")
        return list(self.drain_warnings)

    def stop(self) -> None:
        self.calls.append("stop")


def add_memory(session: Session, title: str, content: str = "Use Python 3.11+.") -> int:
    """Insert one active project decision straight into the store (its pipeline is tested elsewhere)."""
    with session.db() as conn:
        memory_id = (conn.execute("SELECT coalesce(max(memory_id), 0) + 1 FROM memory_items").fetchone())[0]
        conn.execute(
            "INSERT INTO memory_items (memory_id, revision, kind, thread_id, title, content, non_factual, status, "
            "operation, created_at, updated_at) VALUES (?, 1, 'project_decision', NULL, ?, ?, 0, 'active', "
            "'create', 1.0, 1.0)",
            (memory_id, title, content),
        )
    return int(memory_id)


# -- the whole session of the issue: a command, an answer, Ctrl-C, /new, exit ------------------------------


def test_session_with_command_answer_ctrl_c_new_and_exit(session: Session) -> None:
    provider = CannedProvider()
    host = host_for(session, provider)

    def slow(request: ChatRequest) -> str:
        session.pipe.send_text("\x03")  # the user presses Ctrl-C while the answer is on its way
        assert host.cancel_event().wait(WAIT_S), "the REPL did not set the cancel event"
        return "an answer nobody will see"

    chat(provider, "The **entry point** is `run()`.", slow)
    first_thread = session.active_thread_id()
    runtime = RecordingRuntime(session=session)

    session.run(
        "/status\nwhat does run do?\nexplain everything slowly\nhalf a line\x03/new\n\x04",
        host=host,
        runtime=runtime,
    )

    out = session.out
    assert f"schema version {SCHEMA_VERSION}" in out and "LLM: canned model" in out and "pending patch: none" in out
    assert "The entry point is run()." in out  # rendered as Markdown, not as raw `**` and backticks
    assert "Cancelled." in out
    assert "an answer nobody will see" not in out
    assert f"Started thread {first_thread + 1}; thread {first_thread} was archived." in out
    assert out.rstrip().endswith("Bye.")
    assert host.texts == ["what does run do?", "explain everything slowly"]  # "half a line" was cleared

    first, second = session.turns()
    assert (first["status"], first["assistant_text"]) == ("completed", "The **entry point** is `run()`.")
    assert (second["status"], second["user_text"], second["assistant_text"]) == (
        "failed",
        "explain everything slowly",
        None,
    )
    assert second["error"] == "cancelled by the user"
    new_thread = session.active_thread_id()
    assert new_thread != first_thread
    assert session.app.manager().history(thread_id=new_thread) == []
    assert runtime.calls == [
        "start",
        "notify",
        "notify",
        f"one_chance({first_thread}, active={first_thread})",
        "drain",
        "stop",
    ]


def test_ctrl_c_delivered_as_sigint_cancels_too(session: Session) -> None:
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT is not Python's default KeyboardInterrupt handler here")
    provider = CannedProvider()
    host = host_for(session, provider)
    main_thread = threading.main_thread().ident
    assert main_thread is not None

    def slow(request: ChatRequest) -> str:
        signal.pthread_kill(main_thread, signal.SIGINT)  # stdin not a terminal: Ctrl-C arrives as SIGINT
        assert host.cancel_event().wait(WAIT_S)
        return "too late"

    chat(provider, slow, "second answer")
    session.run("slow one\nquick one\n\x04", host=host)

    assert "Cancelled." in session.out and "second answer" in session.out
    assert [t["status"] for t in session.turns()] == ["failed", "completed"]


def test_one_ctrl_c_while_the_classifier_is_busy_returns_at_once_and_keeps_the_text(session: Session) -> None:
    """Issue 17 item 4: the provider never answers the classifier; a single Ctrl-C abandons it."""
    provider = CannedProvider()
    host = host_for(session, provider)
    release = threading.Event()
    answered = threading.Event()

    def busy_classifier(request: ChatRequest) -> str:
        session.pipe.send_text("\x03")  # one Ctrl-C while routing
        release.wait(WAIT_S)  # a busy provider: it answers only when the test lets it
        answered.set()
        return GENERAL_CHAT

    provider.enqueue(Purpose.CLASSIFIER, busy_classifier)
    chat(provider, "second answer")
    try:
        session.run("which approach is better here?\nnext question\n\x04", host=host)
        assert not answered.is_set()  # the prompt came back without waiting for the provider
    finally:
        release.set()
    assert "Cancelled." in session.out and "second answer" in session.out
    first, second = session.turns()
    assert (first["status"], first["user_text"], first["error"]) == (
        "failed",
        "which approach is better here?",
        "cancelled by the user",
    )
    assert (second["status"], second["user_text"]) == ("completed", "next question")


def test_a_classifier_fallback_is_stated_once_per_session(session: Session) -> None:
    """Issue 17 item 5: a small model that never answers the classifier contract is not reported every turn."""
    provider = CannedProvider()
    for answer in ("first answer", "second answer", "third answer"):
        provider.enqueue(Purpose.CLASSIFIER, "I think it is a chat.")
        provider.enqueue(Purpose.MAIN, answer)
    session.run("one\ntwo\nthree\n\x04", host=host_for(session, provider))
    out = session.out
    assert "first answer" in out and "second answer" in out and "third answer" in out
    assert out.count("route: general_chat (fallback)") == 1


def test_streamed_answer_renders_live_then_as_markdown(session: Session) -> None:
    provider = chat(CannedProvider(), "# Summary\n\nIt **works** with [bold]literal[/] brackets.")
    session.run("summarize\n\x04", host=host_for(session, provider), terminal=True)

    out = session.out
    assert "Summary" in out and "works" in out and "[bold]literal[/]" in out
    assert "**works**" not in out  # the final render is Markdown
    assert session.turns()[0]["status"] == "completed"


def test_a_review_proposes_a_patch_that_can_be_shown_and_accepted(session: Session) -> None:
    provider = CannedProvider().enqueue(Purpose.MAIN, AUDIT_WITH_PATCH)
    host = host_for(session, provider)
    session.run("audit src/app.py\n/patch\n/status\n/accept\n/patch accept\n\x04", host=host)

    out = session.out
    assert "/accept" in out.split("Pending patch for")[0]  # the review's answer says how to accept
    assert "Pending patch for src/app.py (applies):" in out and "Do not run through a shell." in out
    assert "pending patch: src/app.py" in out
    assert "Applied the patch to src/app.py." in out
    assert "error: There is no pending patch" in out  # the second accept
    assert "subprocess.call(cmd)\n" in (session.app.root / "src" / "app.py").read_text(encoding="utf-8")
    assert session.turns() == []  # a review never becomes a Memory turn (M-1)


def test_patch_commands_work_without_an_llm(session: Session) -> None:
    root = session.app.root
    patch = propose(root, path="src/app.py", search="shell=True", replace="shell=False", explanation="Safer.")
    workspace_for(session.app).set_pending_patch(patch)
    session.run("/patch show\n/discard\n/patch\n\x04")

    out = session.out
    assert "Pending patch for src/app.py" in out and "Discarded the pending patch for src/app.py." in out
    assert "There is no pending patch" in out
    assert (root / "src" / "app.py").read_text(encoding="utf-8") == APP_PY


def test_new_aborts_the_pending_patch(session: Session) -> None:
    provider = CannedProvider().enqueue(Purpose.MAIN, AUDIT_WITH_PATCH)
    host = host_for(session, provider)
    session.run("audit src/app.py\n/new\n/patch\n\x04", host=host)

    assert "The pending patch was aborted." in session.out
    assert host.pending_patch() is None
    assert (session.app.root / "src" / "app.py").read_text(encoding="utf-8") == APP_PY


# -- commands ------------------------------------------------------------------------------------------


def test_unknown_command_gets_a_suggestion_and_runs_nothing(session: Session) -> None:
    provider = CannedProvider()
    host = host_for(session, provider)
    session.run("/stauts\n/memroy list\n/memory lsit\n/patch acept\n/frobnicate\n/quit\n", host=host)

    out = session.out
    assert "Unknown command /stauts. Did you mean /status?" in out
    assert "Unknown command /memroy. Did you mean /memory?" in out
    assert "Unknown command /memory lsit. Did you mean /memory list?" in out
    assert "Unknown command /patch acept. Did you mean /patch accept?" in out
    assert "Unknown command /frobnicate. Type /help for the list." in out
    assert "schema version" not in out and "No memories yet." not in out
    assert host.texts == [] and provider.requests == [] and session.turns() == []


def test_every_command_in_the_table_runs(session: Session) -> None:
    keys = "/help\n/status\n/memory status\n/memory list\n/memory export\n/patch\n/reset\n"
    keys += "/memory clear --confirm\n/new\n/exit\n"
    session.run(keys, host=host_for(session, CannedProvider()))

    out = session.out
    for spec in COMMANDS:
        assert spec.usage in out  # /help lists every command
    assert not [line for line in out.splitlines() if line.startswith("error:")]
    assert "Memory was kept." in out and "Memory cleared: generation" in out and "exports" in out
    assert "There is no pending patch" in out
    assert out.rstrip().endswith("Bye.")


def test_command_errors_are_one_sentence_and_the_session_goes_on(session: Session) -> None:
    memory_id = add_memory(session, "[bold]Python[/] version [/]")
    session.run(f"/memory show 999\n/memory clear\n/memory show x\n/accept\n/memory show {memory_id}\n\x04")

    out = session.out
    assert "error: No memory with id 999" in out
    assert "error: `memory clear` deletes all Memory data; run it again with --confirm" in out
    assert "usage: /memory show ID" in out
    assert "error: There is no pending patch" in out
    assert "[bold]Python[/] version [/]" in out  # markup in data is shown literally (M-72)
    assert "Traceback" not in out


def test_markup_in_provider_errors_is_printed_literally(session: Session) -> None:
    provider = chat(CannedProvider(), LLMProviderError("upstream said [bold]no[/] and [/] [red]x"))
    session.run("hello there, how are things\n\x04", host=host_for(session, provider))

    assert "error: upstream said [bold]no[/] and [/] [red]x" in session.out
    (turn,) = session.turns()
    assert (turn["status"], turn["user_text"]) == ("failed", "hello there, how are things")


def test_unexpected_host_errors_do_not_end_the_session(session: Session) -> None:
    provider = chat(CannedProvider(), RuntimeError("boom [/]"), "fine")
    session.run("one\ntwo\n\x04", host=host_for(session, provider))

    assert "error: unexpected RuntimeError: boom [/] (AUTOPATCH_DEBUG=true shows the traceback)" in session.out
    assert "fine" in session.out
    assert [t["status"] for t in session.turns()] == ["failed", "completed"]


def test_a_classifier_fallback_is_shown_concisely(session: Session) -> None:
    provider = CannedProvider()
    provider.enqueue(Purpose.CLASSIFIER, LLMProviderError("gateway [/] exploded"))
    provider.enqueue(Purpose.MAIN, "still answered")
    session.run("tell me something\n\x04", host=host_for(session, provider))

    assert "still answered" in session.out
    assert "route: general_chat (fallback) — classifier failed" in session.out
    assert "exploded" not in session.out  # the RAW reason needs AUTOPATCH_DEBUG (M-72)


def test_exit_drain_warnings_are_visible(session: Session) -> None:
    runtime = RecordingRuntime(drain_warnings=["Memory: job(s) [7] failed and will be retried: [/]timeout"])
    session.run("/quit\n", runtime=runtime)

    assert "warning: Memory: job(s) [7] failed and will be retried: [/]timeout" in session.out
    assert runtime.calls == ["start", "drain", "stop"]


# -- the real Memory pipeline behind the REPL -------------------------------------------------------------


def test_exit_drain_processes_the_session_turns(session: Session) -> None:
    from autopatch_j.cli.repl_entry import connect_memory_runtime

    provider = chat(CannedProvider(), "Noted.", "Sure.")
    runtime, warning = connect_memory_runtime(session.app, None, background=False)  # offline extractor
    assert warning is None
    session.run("from now on answer with the conclusion first\nand keep it short\n\x04",
                host=host_for(session, provider), runtime=runtime)  # fmt: skip

    assert "warning:" not in session.out
    with session.db() as conn:
        statuses = {row[0] for row in conn.execute("SELECT status FROM memory_jobs WHERE kind = 'extraction'")}
    assert statuses and statuses <= {"succeeded", "succeeded_no_output"}


def test_a_failing_job_at_exit_is_a_visible_warning(session: Session) -> None:
    from autopatch_j.cli.repl_entry import PipelineRuntime
    from autopatch_j.memory.pipeline import Pipeline

    class BrokenExtractor:
        name = "broken"

        def extract(self, request: Any) -> Any:
            raise LLMProviderError("model [bold]overloaded[/]")

        def consolidate(self, request: Any) -> Any:
            raise AssertionError("not reached")

    manager = session.app.manager()
    runtime = PipelineRuntime(lambda: Pipeline.for_manager(manager, extractor=BrokenExtractor()), background=False)
    provider = chat(CannedProvider(), "Noted.")
    session.run("remember that we use ruff\n\x04", host=host_for(session, provider), runtime=runtime)

    assert "warning: Memory: job(s) [1] failed and will be retried: the LLM call failed" in session.out
    assert "overloaded" not in session.out  # concise in normal mode; the RAW error is in /memory status (debug)
    with session.db() as conn:
        assert conn.execute("SELECT status FROM memory_jobs").fetchone()[0] == "retry_wait"


def test_background_worker_runs_during_the_session(session: Session) -> None:
    from autopatch_j.cli.repl_entry import PipelineRuntime, connect_memory_runtime

    runtime, _ = connect_memory_runtime(session.app, None)
    assert isinstance(runtime, PipelineRuntime)
    seen: list[bool] = []
    runtime_notify = runtime.notify

    def notify() -> None:
        seen.append(runtime.worker is not None and runtime.worker.running)
        runtime_notify()

    runtime.notify = notify  # type: ignore[method-assign]
    session.run("hello\n/quit\n", host=host_for(session, chat(CannedProvider(), "hi")), runtime=runtime)
    assert seen == [True]  # the worker ran while the session did
    assert runtime.worker is None  # and was stopped before the exit drain


# -- without an LLM, and with degraded Memory ------------------------------------------------------------


def test_without_an_llm_commands_work_and_questions_explain_what_to_set(session: Session) -> None:
    from autopatch_j.cli.repl_entry import connect_llm

    add_memory(session, "Python version")
    provider, llm = connect_llm(session.app)
    assert provider is None and llm.problem is not None
    assert "AUTOPATCH_LLM_API_KEY" in llm.problem and "AUTOPATCH_LLM_BASE_URL" in llm.problem
    session.run("/memory list\nwhat is this?\n/status\n\x04", llm=llm)

    out = session.out
    assert out.count("AUTOPATCH_LLM_API_KEY") == 3  # the banner, the unanswered question, /status
    assert "Python version" in out
    assert [(t["user_text"], t["assistant_text"]) for t in session.turns()] == [("what is this?", "")]


def test_without_an_llm_what_the_user_says_is_admitted_for_memory_and_said_so(session: Session) -> None:
    (session.app.root / "src" / "notes.md").write_text("x", encoding="utf-8")
    session.run("From now on, use tabs in Makefiles.\nreview src/app.py\n\x04", llm=LLMInfo(problem="no LLM"))
    out = session.out
    assert "Slash commands work without it" in out and "kept for Memory" in out
    assert "kept for Memory (no answer recorded)" in out
    turns = session.turns()
    assert [t["user_text"] for t in turns] == ["From now on, use tabs in Makefiles."]  # an audit never uses Memory
    assert turns[0]["assistant_text"] == "" and turns[0]["status"] == "completed"
    with session.db() as conn:
        assert conn.execute("SELECT count(*) FROM memory_jobs WHERE turn_id = ?", (turns[0]["id"],)).fetchone()[0] == 1
    assert "Reviews and explanations need an LLM" in out


def test_an_invalid_extractor_choice_is_said_at_start_and_memory_commands_still_work(session: Session) -> None:
    from autopatch_j.cli.repl_entry import connect_memory_runtime

    session.app.switches = Switches(memory_extractor="magic")
    runtime, note = connect_memory_runtime(session.app, None)
    assert isinstance(runtime, NoMemoryRuntime) and note is not None
    repl = Repl(
        session.app,
        host=None,
        llm=LLMInfo(problem="no LLM"),
        runtime=runtime,
        notes=[note],
        input=session.pipe,
        output=DummyOutput(),
        history=InMemoryHistory(),
    )
    session.pipe.send_text("/memory list\n\x04")
    repl.run()

    assert "Background Memory processing is off: AUTOPATCH_MEMORY_EXTRACTOR must be `llm` or `rules`" in session.out
    assert "No memories yet." in session.out


def test_degraded_memory_says_so_and_commands_still_work(session: Session) -> None:
    session.app.manager()
    with session.db() as conn:
        conn.execute("UPDATE threads SET status = 'archived', archived_at = 1.0")
    session.app._manager = None  # the next CLI start finds no active thread
    from autopatch_j.cli.repl_entry import connect_memory_runtime

    provider = CannedProvider().enqueue(Purpose.CLASSIFIER, GENERAL_CHAT, GENERAL_CHAT)
    host = host_for(session, provider.enqueue(Purpose.MAIN, "after the clear"))  # the first is refused
    runtime, _ = connect_memory_runtime(session.app, None, background=False)
    keys = "/new\nhello there, how are things\n/memory clear --confirm\n/memory status\nand now?\n\x04"
    session.run(keys, host=host, runtime=runtime)

    out = session.out
    assert "Memory: degraded" in out
    assert "Ordinary chat is disabled until `/memory clear --confirm`" in out
    assert out.count("error: Memory is degraded") == 2  # /new and the ordinary question refuse (M-17)
    assert "Memory cleared: generation" in out
    assert out.count("Memory: healthy") == 1  # /memory status after the clear
    assert "after the clear" in out
    with session.db() as conn:  # the pipeline connected once the store was healthy, and drained at exit
        assert [row[0] for row in conn.execute("SELECT status FROM memory_jobs")] == ["succeeded_no_output"]


# -- completion and history ---------------------------------------------------------------------------------


def completions(completer: SlashCompleter, text: str) -> list[str]:
    return [c.text for c in completer.get_completions(Document(text), CompleteEvent(completion_requested=True))]


def test_completion_of_commands_subcommands_and_memory_ids() -> None:
    completer = SlashCompleter(memory_ids=lambda: [(3, "Python version"), (12, "Tabs"), (31, "Ruff")])

    assert completions(completer, "/st") == ["/status"]
    assert completions(completer, "/memory ") == ["status", "list", "show", "forget", "clear", "export"]
    assert completions(completer, "/memory f") == ["forget"]
    assert completions(completer, "/memory show ") == ["3", "12", "31"]
    assert completions(completer, "/memory forget 3") == ["3", "31"]
    assert completions(completer, "/memory clear ") == ["--confirm"]
    assert completions(completer, "what is /memory ") == []
    assert completions(completer, "/status ") == []


def test_completion_never_breaks_the_prompt() -> None:
    def broken() -> list[tuple[int, str]]:
        raise RuntimeError("database is locked")

    assert completions(SlashCompleter(memory_ids=broken), "/memory show ") == []


def test_tab_completes_a_memory_id_in_the_session(session: Session) -> None:
    memory_id = add_memory(session, "Python version", "The project uses Python 3.11+.")
    repl = Repl(
        session.app,
        host=None,
        llm=LLMInfo(problem="no LLM"),
        input=session.pipe,
        output=DummyOutput(),
        history=InMemoryHistory(),
    )
    completed = threading.Event()

    def type_like_a_person() -> None:
        session.pipe.send_text("/memory show \t")
        # Completion is applied asynchronously by the prompt's event loop: press Enter once it shows.
        completed.wait(WAIT_S)
        session.pipe.send_text("\n\x04")

    buffer = repl.session.default_buffer
    buffer.on_text_changed += lambda buf: completed.set() if buf.text == f"/memory show {memory_id}" else None
    typist = threading.Thread(target=type_like_a_person)
    typist.start()
    repl.run()
    typist.join(WAIT_S)

    assert completed.is_set()
    assert f"#{memory_id} Python version" in session.out
    assert "The project uses Python 3.11+." in session.out


def test_history_is_kept_in_the_project_state_dir(session: Session) -> None:
    repl = Repl(
        session.app,
        host=None,
        llm=LLMInfo(problem="no LLM"),
        input=session.pipe,
        output=DummyOutput(),
        runtime=NoMemoryRuntime(),
    )
    session.pipe.send_text("/help\n\x04")
    repl.run()

    history = session.app.manager().paths.history_file
    assert history.parent.name == ".autopatch-j"
    assert "/help" in history.read_text(encoding="utf-8")


# -- the command table ------------------------------------------------------------------------------------


def test_resolve_maps_lines_to_commands() -> None:
    assert isinstance(resolve("/memory show 4"), Resolved)
    assert isinstance(resolve("/MEMORY LIST"), Resolved)
    assert isinstance(resolve("/exit"), Resolved)
    assert isinstance(resolve("/memory"), BadUsage)
    assert isinstance(resolve("/memory forget"), BadUsage)
    assert isinstance(resolve("/memory clear --force"), BadUsage)
    assert isinstance(resolve("/help me"), BadUsage)
    unknown = resolve("/quti")
    assert isinstance(unknown, Unknown) and unknown.suggestion == "/quit"


def test_docs_describe_every_command_and_key() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for spec in COMMANDS:
        assert spec.usage in text, spec.usage
    for key in ("Ctrl-C", "Ctrl-D", "Tab", ".autopatch-j/cli-history"):
        assert key in text
