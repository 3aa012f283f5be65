"""`autopatch-j memory ingest FILE` and `autopatch-j memory drain`.

The pipeline wiring every face shares lives in `app/pipelines.py`: `extractor_for(app)` builds the
extractor `AUTOPATCH_MEMORY_EXTRACTOR` chose (read once into the context; `rules` → offline; `llm` →
the LLM, which must be configured; unset → the LLM when one is configured, else offline) and
`pipeline_for(app)` builds the project's `Pipeline` on the opened Memory. The REPL starts a
`Worker(pipeline=pipeline_for(app))` (startup recovery already ran in `MemoryManager.open()`),
calls `drain_thread` before `/new` archives a thread and `drain_at_exit` on the way out.

JSON output (`--json`) is stable:

    ingest: {"turns": int, "turn_ids": [int], "thread_id": int}
    drain:  {"extractor": "rules"|"llm", "jobs_run", "extraction_batches", "consolidations", "candidates",
             "filtered", "operations": {op: n}, "memory_ids": [int], "retrying": [job id], "lease_lost":
             [job id], "failed": [job id], "revived": [job id], "left": [job id], "errors": [str],
             "warnings": [str], "recovered": {"reclaimed": [job id], "woken": [job id],
             "taken_over": [job id], "gone_owners": [owner id]}}

`taken_over`: leases whose holder was provably gone (a process of this machine that no longer runs,
memory/owners.py), reclaimed at this start without waiting for them to expire.

With the `publish` setting on (`publish = ["agents"]` in `.autopatch-j/config.toml`, docs/publish.md)
the drain then republishes the decisions, and the JSON gains `"published": [file entries of
`memory publish --json`]` and `"publish_error": str|null` (a refusal: exit 1, the drain stands).

`failed` jobs ended for good this run — the offline rules extractor processed their turns
instead; `--retry-failed` first puts every failed job back to `pending` (listed in `revived`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from autopatch_j.app.context import AppContext
from autopatch_j.app.pipelines import pipeline_for
from autopatch_j.app.render import emit_json, say, timestamp
from autopatch_j.cli.invocation import app_context

if TYPE_CHECKING:  # the pipeline stack is imported when a command needs it (CLI cold start)
    from autopatch_j.memory.drain import DrainReport
    from autopatch_j.memory.extractor import Extractor
    from autopatch_j.memory.jobs import Recovery
    from autopatch_j.memory.waiting import WaitingJobs


JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")]


def run_ingest(app: AppContext, path: Path, *, as_json: bool) -> None:
    from autopatch_j.memory.ingest import ingest, read_conversation

    exchanges = read_conversation(path)  # the whole file is validated before anything is admitted
    report = ingest(app.manager(), exchanges)
    if as_json:
        emit_json(app.console, {"turns": len(report.turn_ids), "turn_ids": list(report.turn_ids),
                                "thread_id": report.thread_id})  # fmt: skip
        return
    say(app.console, f"Admitted {len(report.turn_ids)} turn(s) into thread {report.thread_id}.")
    say(app.console, "Run `autopatch-j memory drain` to process them now.", "dim")


def drain_payload(report: DrainReport, *, extractor: str, recovery: Recovery, debug: bool) -> dict[str, Any]:
    payload = report.to_dict()
    if debug:  # RAW errors only with AUTOPATCH_DEBUG (M-72)
        payload["errors"] = [s.raw_error for s in report.steps if s.raw_error]
    payload["extractor"] = extractor
    payload["recovered"] = {
        "reclaimed": list(recovery.reclaimed),
        "woken": list(recovery.woken),
        "taken_over": list(recovery.taken_over),
        "gone_owners": list(recovery.gone_owners),
    }
    return payload


def run_drain(
    app: AppContext,
    *,
    as_json: bool,
    extractor: Extractor | None = None,
    retry_failed: bool = False,
    publish_to: tuple[str, ...] = (),
) -> DrainReport:
    """Drain; then, when `publish_to` names files (the `publish` setting), republish the decisions."""
    from autopatch_j.memory import drain as drains
    from autopatch_j.memory.pipeline import Outcome

    pipeline = pipeline_for(app, extractor)
    recovery = pipeline.recover().after(app.manager().startup_recovery)
    report = drains.retry_failed(pipeline) if retry_failed else drains.drain(pipeline, budget_s=None)
    payload = drain_payload(report, extractor=pipeline.extractor.name, recovery=recovery, debug=app.debug)
    published = _publish_after_drain(app, publish_to, payload)
    if as_json:
        emit_json(app.console, payload)
    else:
        _render_drain(app, payload)
        for line in waiting_lines(app.manager().waiting_jobs()):
            say(app.console, line)
        if published:
            say(app.console, published)
    failing = (Outcome.RETRY, Outcome.FAILED)
    if any(leaf.outcome in failing for step in report.steps for leaf in step.leaves()) or report.warnings:
        raise typer.Exit(1)
    if payload.get("publish_error"):
        raise typer.Exit(1)
    return report


def _publish_after_drain(app: AppContext, targets: tuple[str, ...], payload: dict[str, Any]) -> str | None:
    """The automatic publish: adds `published` (files) and `publish_error` to the payload; a refusal
    is reported on stderr (the drain itself stands) and makes the command exit 1."""
    if not targets:
        return None
    from autopatch_j.app.publish.service import publish_after_drain, publish_payload
    from autopatch_j.cli.publish_cmds import summary

    done = publish_after_drain(app, targets)
    if done.report is None:
        payload["published"] = []
        payload["publish_error"] = done.error
        say(app.err_console, f"error: {done.error}", "yellow")
        return None
    payload["published"] = publish_payload(done.report, dry_run=False, check=False, remove=False)["files"]
    payload["publish_error"] = None
    return summary(done.report)


def _render_drain(app: AppContext, payload: dict[str, Any]) -> None:
    c = app.console
    taken = payload["recovered"]["taken_over"]
    if taken:
        gone = ", ".join(payload["recovered"]["gone_owners"])
        say(c, f"Took over {len(taken)} job lease(s) held by a process that is no longer running ({gone}).")
    ops = ", ".join(f"{name} {n}" for name, n in sorted(payload["operations"].items())) or "none"
    say(
        c,
        f"Ran {payload['jobs_run']} job(s) with the {payload['extractor']} extractor: "
        f"{payload['extraction_batches']} extraction batch(es), {payload['consolidations']} consolidation(s).",
    )
    say(c, f"candidates {payload['candidates']} (filtered {payload['filtered']}), operations: {ops}")
    if payload["memory_ids"]:
        say(c, f"memories written: {', '.join(str(m) for m in payload['memory_ids'])}")
    if payload["revived"]:
        say(c, f"failed job(s) put back in the queue: {', '.join(str(j) for j in payload['revived'])}")
    for error in payload["errors"]:
        say(app.err_console, f"error: {error}", "yellow")
    for warning in payload["warnings"]:
        say(app.err_console, warning, "yellow")
    if payload["errors"] and not app.debug:
        say(app.err_console, "Set AUTOPATCH_DEBUG=true to see the RAW error text.", "dim")


def waiting_lines(waiting: WaitingJobs) -> list[str]:
    """What is left after a drain and why, one line per reason; nothing when nothing waits."""
    if waiting.total == 0:
        return []
    lines = [f"{waiting.total} job(s) waiting:"]
    for hold in waiting.leases:
        lines.append(
            f"  {hold.jobs} leased by another process ({hold.owner}) until {timestamp(hold.until)}; "
            "they wait for that lease: its holder is still running or not on this machine, so they "
            "become runnable when it finishes or the lease expires"
        )
    if waiting.blocked:
        lines.append(
            f"  {waiting.blocked} wait behind those leases (one extraction batch per thread, "
            "one consolidation at a time)"
        )
    if waiting.retrying:
        lines.append(
            f"  {waiting.retrying} in retry_wait until {timestamp(waiting.next_retry_at)} (the earliest) "
            "after a failure; `autopatch-j memory status` shows the last error"
        )
    if waiting.runnable:
        lines.append(f"  {waiting.runnable} runnable now (they arrived during this drain); run `memory drain` again")
    return lines


def register(memory_app: typer.Typer, get_context: Callable[[typer.Context], AppContext] = app_context) -> None:
    """Add `ingest` and `drain` to the `memory` command group."""

    @memory_app.command("ingest")
    def ingest_command(
        ctx: typer.Context,
        file: Annotated[Path, typer.Argument(metavar="FILE", help="JSONL: one {user, assistant, intent?} per line.")],
        as_json: JsonOption = False,
    ) -> None:
        """Admit a recorded conversation (JSONL) as ordinary turns; nothing is admitted if any line is bad."""
        run_ingest(get_context(ctx), file, as_json=as_json)

    @memory_app.command("drain")
    def drain_command(
        ctx: typer.Context,
        as_json: JsonOption = False,
        retry_failed: Annotated[
            bool,
            typer.Option(
                "--retry-failed",
                help="First put every job that ended `failed` (see `memory status`) back in the queue.",
            ),
        ] = False,
    ) -> None:
        """Run every due background job now and report jobs, candidates, operations and errors."""
        from autopatch_j.app.publish.settings import read_publish_targets

        app = get_context(ctx)
        publish_to = read_publish_targets(app.environ, app.root)
        run_drain(app, as_json=as_json, retry_failed=retry_failed, publish_to=publish_to)
