"""The per-process context (`app.context.AppContext`): its process switches have one home."""

from __future__ import annotations

from pathlib import Path

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import DeferredConsole
from autopatch_j.app.settings import Switches


def _context(root: Path, switches: Switches) -> AppContext:
    console = DeferredConsole(environ={})
    return AppContext(root=root, environ={}, console=console, err_console=console, switches=switches)


def test_debug_and_the_extractor_choice_are_read_from_the_switches(tmp_path: Path) -> None:
    app = _context(tmp_path, Switches(debug=True, memory_extractor="rules"))
    assert app.debug is True and app.extractor_mode == "rules"
    app.switches = Switches()
    assert app.debug is False and app.extractor_mode is None


def test_the_environment_reaches_the_context_through_the_switches(tmp_path: Path) -> None:
    app = AppContext.from_environment(root=tmp_path, environ={"AUTOPATCH_DEBUG": "yes"})
    assert app.switches == Switches(debug=True) and app.debug is True
