"""Command line: REPL and subcommands (rendering only).

Its public API is the entry point, `main` (`cli/launch.py`); nothing else of ours imports the CLI.
"""

from __future__ import annotations

from autopatch_j import lazy_api

TYPE_CHECKING = False  # typing stays unloaded (cold start); mypy knows the name

if TYPE_CHECKING:
    from autopatch_j.cli.launch import main

__all__ = ["main"]
__getattr__ = lazy_api(__name__, {"main": "launch"})
