"""`autopatch-j memory import`: other agents' sessions into Memory (docs/import.md) — rendering only."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from autopatch_j.app.context import AppContext
from autopatch_j.app.render import emit_json, rich_console, say
from autopatch_j.cli.invocation import app_context
from autopatch_j.memory.admission import MAX_TURN_CHARS

if TYPE_CHECKING:
    from autopatch_j.transcripts import Importer, ImportReport, SessionFile, SessionReport

SOURCES = ("auto", "claude-code", "codex")


def agent_homes(app: AppContext) -> tuple[Path, Path]:
    """(home, CODEX_HOME), read once from the invocation's environment."""
    home = Path(app.environ.get("HOME") or Path.home())
    codex_home = Path(app.environ["CODEX_HOME"]) if app.environ.get("CODEX_HOME") else home / ".codex"
    return home, codex_home


def session_payload(report: SessionReport) -> dict[str, Any]:
    return {
        "source": report.source.value,
        "session_id": report.session_id,
        "path": str(report.path),
        "resumed_from": report.resumed_from,
        "turns_admitted": report.turns_admitted,
        "turns_already_known": report.turns_already_known,
        "turns_skipped": dict(sorted(report.turns_skipped.items())),
        "lines_read": report.lines_read,
        "lines_imported": report.lines_imported,
        "lines_skipped": dict(sorted(report.skipped.items())),
        "lines_waiting": report.lines_waiting,
        "partial_line_left": report.partial_line_left,
        "restarted": report.restarted,
    }


def import_payload(report: ImportReport) -> dict[str, Any]:
    return {
        "dry_run": report.dry_run,
        "sessions": [session_payload(s) for s in report.sessions],
        "files_skipped": [{"path": str(f.path), "reason": f.reason} for f in report.files_skipped],
        "totals": {
            "sessions": len(report.sessions),
            "turns_admitted": report.turns_admitted,
            "turns_skipped": dict(sorted(report.turns_skipped.items())),
            "lines_read": sum(s.lines_read for s in report.sessions),
            "lines_skipped": dict(sorted(report.skipped.items())),
            "lines_waiting": sum(s.lines_waiting for s in report.sessions),
            "files_skipped": dict(sorted(report.files_skipped_by_reason.items())),
        },
    }


def _run_all(
    importer: Importer, sessions: list[SessionFile], report: ImportReport, advance: Callable[[int], None] | None
) -> None:
    for session in sessions:
        report.sessions.append(importer.import_session(session, dry_run=report.dry_run, progress=advance))


def run_import(app: AppContext, paths: list[Path], *, source: str, dry_run: bool, as_json: bool) -> None:
    from autopatch_j.transcripts import From, Importer, ImportReport, expand, project_sessions

    wanted = From(source)
    report = ImportReport(dry_run=dry_run)
    if paths:
        sessions, report.files_skipped = expand([p.expanduser() for p in paths], wanted)
    else:
        home, codex_home = agent_homes(app)
        sessions = project_sessions(app.root, wanted, home=home, codex_home=codex_home)
    if sessions:
        importer = Importer(manager=app.manager())
        total = sum(os.path.getsize(s.path) for s in sessions)
        if app.console.is_terminal and not as_json and total > 0:
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

            columns = (TextColumn("importing"), BarColumn(), DownloadColumn(), TimeRemainingColumn())
            with Progress(*columns, console=rich_console(app.err_console), transient=True) as progress:
                task = progress.add_task("import", total=total)
                _run_all(importer, sessions, report, lambda n: progress.advance(task, n))
        else:
            _run_all(importer, sessions, report, None)
    if as_json:
        emit_json(app.console, import_payload(report))
        return
    _render_text(app, report, searched_project=not paths)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items()))


def _session_line(s: SessionReport) -> str:
    too_long = s.turns_skipped.get("too_long", 0)
    other = sum(s.turns_skipped.values()) - too_long
    skipped_lines = sum(s.skipped.values())
    return (
        f"{s.source.value} {s.session_id}: {s.turns_admitted} new turn(s), {s.turns_already_known} already known"
        + (f", {too_long} turn(s) too long (over {MAX_TURN_CHARS:,} characters; skipped)" if too_long else "")
        + (f", {other} turn(s) that cannot be stored (skipped)" if other else "")
        + f"; {s.lines_read} line(s) read: {s.lines_imported} imported, {skipped_lines} skipped, "
        f"{s.lines_waiting} waiting"
        + (f" (skipped: {_counts(s.skipped)})" if skipped_lines else "")
        + ("; a partial last line was left for the next run" if s.partial_line_left else "")
    )


def _render_text(app: AppContext, report: ImportReport, *, searched_project: bool) -> None:
    c = app.console
    if report.files_skipped:
        say(
            c,
            f"{len(report.files_skipped)} file(s) skipped, not sessions: {_counts(report.files_skipped_by_reason)}.",
            "yellow",
        )
    if not report.sessions:
        where = f" for {app.root}" if searched_project else ""
        say(c, f"No Claude Code or Codex sessions found{where}.")
        return
    verb = "Would import" if report.dry_run else "Imported"
    for s in report.sessions:
        say(c, _session_line(s))
    skipped_total = _counts(report.skipped) or "none"
    say(
        c,
        f"{verb} {report.turns_admitted} turn(s) from {len(report.sessions)} session(s); lines skipped: "
        f"{skipped_total}.",
        "bold",
    )
    if not report.dry_run and report.turns_admitted:
        say(c, "Extraction runs in the background (the REPL, a worker, or `autopatch-j memory drain`).", "dim")


def register(memory_app: typer.Typer, get_context: Callable[[typer.Context], AppContext] = app_context) -> None:
    @memory_app.command("import")
    def import_command(
        ctx: typer.Context,
        paths: Annotated[
            list[Path] | None,
            typer.Argument(
                metavar="[PATH]...",
                help="Session files or folders (default: this project's Claude Code and Codex sessions).",
            ),
        ] = None,
        source: Annotated[
            str,
            typer.Option(
                "--from",
                help="Which agent wrote the sessions: auto (detect), claude-code or codex.",
                click_type=click.Choice(SOURCES, case_sensitive=False),
            ),
        ] = "auto",
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Count; change nothing.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON instead of text.")] = False,
    ) -> None:
        """Import Claude Code and Codex sessions as turns, exactly once (re-running adds nothing new)."""
        run_import(get_context(ctx), list(paths or []), source=source.lower(), dry_run=dry_run, as_json=as_json)
