"""`autopatch-j memory status` (and `/memory status`): health, counts, jobs, the last error, failed jobs.

`memory status` and `memory status --json` also start here straight from the entry point
(`cli/launch.py`), without typer and the command tree: it is the command scripts, shells and
agents run most often, so it loads only what it prints (bench/cold_start_bench.py). `main` is that
start: the same context, handler and error boundary as the full application (`cli/app.py`).
"""

from __future__ import annotations

import sys

from autopatch_j.app import signals
from autopatch_j.app.context import AppContext
from autopatch_j.app.payloads import status_payload
from autopatch_j.app.render import emit_json, say


def run_status(app: AppContext, *, as_json: bool) -> None:
    report = app.manager().status()
    payload = status_payload(report, debug=app.debug)
    if as_json:
        emit_json(app.console, payload)
        return
    c = app.console
    health_style = "green" if payload["health"] == "healthy" else "bold red"
    say(c, f"Memory: {payload['health']}" + (f" — {payload['reason']}" if payload["reason"] else ""), health_style)
    known = [
        f"{label} {payload[key]}"
        for label, key in (
            ("schema version", "schema_version"),
            ("generation", "generation"),
            ("active thread", "active_thread_id"),
        )
        if payload[key] is not None
    ]
    if known:  # a degraded store may not tell: print only what is known
        say(c, ", ".join(known))
    keys = payload["index_keys"]
    if report.health.ok and keys["built_by"] != keys["current"]:  # the open could not rebuild it (read-only, locked)
        built_by = keys["built_by"] if keys["built_by"] is not None else "unrecorded"
        say(
            c,
            f"search index: built by key version {built_by}, this release derives version {keys['current']}; "
            "the next open that can write rebuilds it",
            "yellow",
        )
    counts = payload["counts"]
    if report.counts:  # unreadable counts are not zeros
        say(c, f"turns {counts['turns']}, active memories {counts['active_items']}, candidates {counts['candidates']}")
    if report.health.ok or report.counts or report.jobs:
        jobs = ", ".join(f"{k} {v}" for k, v in payload["jobs"].items()) or "none"
        say(c, f"background jobs: {jobs}")
    if payload["last_error"]:
        say(c, f"last error: {payload['last_error']}", "yellow")
        if payload["hint"]:
            say(c, payload["hint"], "dim")
    else:
        say(c, "last error: none")
    for job in payload["failed_jobs"]:
        turn = f", turn {job['turn_id']}" if job["turn_id"] is not None else ""
        say(c, f"failed: job {job['id']} ({job['kind']}{turn}, {job['attempts']} attempt(s)): {job['error']}", "yellow")
    if payload["failed_hint"]:
        say(c, payload["failed_hint"], "dim")


def main(args: list[str]) -> None:
    """Run `memory status [--json]` (`args` exactly that) as the full application would: one
    sentence and an exit code for a known failure, 130/143 on SIGINT/SIGTERM after releasing leases."""
    from autopatch_j.app.errors import exit_for

    with signals.exit_signals():
        try:
            app = AppContext.from_environment()
            try:
                run_status(app, as_json=args[2:] == ["--json"])
            finally:
                app.close()
        except signals.Terminated:
            sys.exit(signals.EXIT_SIGTERM)
        except KeyboardInterrupt:
            sys.exit(signals.EXIT_SIGINT)
        except Exception as exc:
            exit_for(exc)
