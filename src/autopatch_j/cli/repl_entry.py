"""Entry to the interactive REPL (the agent host replaces this with the real REPL)."""

from __future__ import annotations

from autopatch_j.cli.context import AppContext
from autopatch_j.cli.render import say


def run_repl(app: AppContext) -> None:
    health = app.manager().health
    say(app.console, f"Memory: {health.state}" + (f" ({health.reason})" if health.reason else ""))
    say(app.console, "Run `autopatch-j --help` for commands.")
