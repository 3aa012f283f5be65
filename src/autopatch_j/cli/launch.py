"""The `autopatch-j` entry point: the agent hooks start without loading the whole CLI.

`autopatch-j hook claude-code` and `autopatch-j hook codex [JSON]` run on every agent turn while the
agent waits, so they skip typer, rich and the command modules (bench/import_bench.py measures it);
everything else — including `--help` and any option — goes to the full application.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    if args in (["hook", "claude-code"], ["hook", "codex"]) or (
        len(args) == 3 and args[:2] == ["hook", "codex"] and args[2][:1] == "{"
    ):
        from autopatch_j.cli import hook_runner

        if args[1] == "claude-code":
            hook_runner.claude_code(None)
        else:
            hook_runner.codex(None, args[2] if len(args) == 3 else None)
        return
    from autopatch_j.cli.app import main as run_app

    run_app(args)
