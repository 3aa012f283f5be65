"""The per-invocation context shared by every face (CLI, REPL, MCP server): settings read once at the
entry point, and the project's Memory."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from autopatch_j.app import gitignore
from autopatch_j.app.render import DeferredConsole, say
from autopatch_j.app.settings import Switches, read_switches
from autopatch_j.memory import MemoryManager, ProjectRootError

if TYPE_CHECKING:
    from rich.console import Console

    from autopatch_j.llm.config import LLMSettings


@dataclass
class AppContext:
    """Everything a command needs; built once per process by the root callback."""

    root: Path
    environ: Mapping[str, str]
    console: Console | DeferredConsole  # the CLI's own: rich only once something needs it (render.py)
    err_console: Console | DeferredConsole
    switches: Switches = field(default_factory=Switches)  # every process switch, read once (app/settings.py)
    _manager: MemoryManager | None = field(default=None, repr=False)
    _llm: tuple[LLMSettings | None] | None = field(default=None, repr=False)

    @classmethod
    def from_environment(cls, *, root: Path | None = None, environ: Mapping[str, str] | None = None) -> AppContext:
        env = dict(os.environ if environ is None else environ)
        project = _project_root(root)
        switches = read_switches(env)
        return cls(
            root=project,
            environ=env,
            console=DeferredConsole(environ=env),
            err_console=DeferredConsole(environ=env, stderr=True),
            switches=switches,
        )

    @property
    def debug(self) -> bool:
        """`AUTOPATCH_DEBUG`: RAW errors and routing details in the output."""
        return self.switches.debug

    @property
    def extractor_mode(self) -> str | None:
        """`AUTOPATCH_MEMORY_EXTRACTOR` as given; `choose_extractor` validates it."""
        return self.switches.memory_extractor

    def llm_settings(self) -> LLMSettings | None:
        """The LLM settings (docs/configuration.md), read once per invocation from this context's
        environment and the project's `.autopatch-j/config.toml`; None when no LLM is configured.
        A bad configuration raises `LLMConfigError` (one sentence, exit 5)."""
        if self._llm is None:
            from autopatch_j.llm.config import load_llm_settings
            from autopatch_j.state_dir import ProjectPaths

            self._llm = (load_llm_settings(self.environ, ProjectPaths.for_root(self.root).config_file),)
        return self._llm[0]

    def manager(self) -> MemoryManager:
        """The project's Memory, opened (created or verified) on first use (M-14)."""
        if self._manager is None:
            manager = MemoryManager(root=self.root)
            first_use = not manager.paths.db.exists()
            manager.open()
            self._manager = manager
            rekey = manager.rekey
            if rekey is not None and rekey.outcome == "rebuilt":
                count = f"{rekey.items} {'memory' if rekey.items == 1 else 'memories'}"
                say(
                    self.err_console,
                    f"Memory: rebuilt the search index for this release's search keys ({count}).",
                    "dim",
                )
            if first_use and gitignore.should_offer(self.root):
                say(
                    self.err_console,
                    "Memory lives in .autopatch-j/ (RAW, unredacted conversation). "
                    "Run `autopatch-j gitignore` to add it to .gitignore.",
                    "dim",
                )
        return self._manager

    def close(self) -> None:
        """Release this process's job leases (a no-op unless a signal cut a step short), then close."""
        if self._manager is not None:
            self._release_leases()
            self._manager.close()

    def _release_leases(self) -> None:
        from autopatch_j.app import signals
        from autopatch_j.memory import MemoryEngineError

        manager = self._manager
        assert manager is not None
        try:
            released = manager.release_leases()
            if not released.jobs and signals.received() is None:
                return
            waiting = manager.waiting_jobs().total
        except MemoryEngineError:
            return  # degraded or locked: the leases expire on their own (120 s)
        note = f"released {len(released.jobs)} job lease(s); " if released.jobs else ""
        self.err_console.print(
            f"Memory: {note}{waiting} job(s) waiting; `autopatch-j memory drain` or the next session runs them.",
            markup=False,
            style="yellow",
        )


def _project_root(root: Path | None) -> Path:
    """`-C DIR` exactly; otherwise the project the current directory lies in (the nearest enclosing
    `.autopatch-j/` or repository root, like git), or the current directory when there is none."""
    from autopatch_j.state_dir import find_project_root

    try:
        project = (root or Path.cwd()).resolve()
    except OSError as exc:
        raise ProjectRootError(f"The current directory cannot be used: {exc.strerror or exc}.") from exc
    if root is None:
        project = find_project_root(project) or project
    if not project.is_dir():
        raise ProjectRootError(f"The project directory {project} does not exist.")
    if not os.access(project, os.R_OK | os.W_OK | os.X_OK):
        raise ProjectRootError(
            f"The project directory {project} is not readable and writable; run autopatch-j where you can write."
        )
    return project
