"""The `autopatch-j` entry point: the agent hooks start without loading the whole CLI.

`autopatch-j hook claude-code` and `autopatch-j hook codex [JSON]` run on every agent turn while the
agent waits, so they skip typer, rich and the command modules (bench/import_bench.py measures it);
so does `autopatch-j memory status [--json]`, which scripts and agents run most often
(bench/cold_start_bench.py). Everything else — including `--help` and any option — goes to the full
application.
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
    if args in (["memory", "status"], ["memory", "status", "--json"]):
        from autopatch_j.cli import status_cmd

        status_cmd.main(args)
        return
    from autopatch_j.cli.app import main as run_app

    run_app(args)
