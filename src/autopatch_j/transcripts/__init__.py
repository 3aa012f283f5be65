"""Importers of other coding agents' session transcripts (Claude Code, Codex) into Memory (docs/import.md).

The public API other packages use: the exactly-once `Importer` and its reports, session discovery,
Codex's notify payload, the hook installation plans, and the errors. Each name is imported on first
use, so importing the package loads none of its modules.
"""

from __future__ import annotations

from autopatch_j import lazy_api

TYPE_CHECKING = False  # typing stays unloaded (cold start); mypy knows the name

if TYPE_CHECKING:
    from autopatch_j.transcripts.codex import parse_notify
    from autopatch_j.transcripts.discovery import From, SessionFile, claude_cwd, expand, project_sessions
    from autopatch_j.transcripts.errors import HookInputError, SettingsFileError, TranscriptError
    from autopatch_j.transcripts.importer import Importer, ImportReport, SessionReport
    from autopatch_j.transcripts.install import apply as apply_plan
    from autopatch_j.transcripts.install import plan_claude, plan_codex

_EXPORTS = {
    "Importer": "importer",
    "ImportReport": "importer",
    "SessionReport": "importer",
    "From": "discovery",
    "SessionFile": "discovery",
    "claude_cwd": "discovery",
    "expand": "discovery",
    "project_sessions": "discovery",
    "parse_notify": "codex",
    "plan_claude": "install",
    "plan_codex": "install",
    "apply_plan": "install:apply",
    "TranscriptError": "errors",
    "HookInputError": "errors",
    "SettingsFileError": "errors",
}
__all__ = [
    "From",
    "HookInputError",
    "ImportReport",
    "Importer",
    "SessionFile",
    "SessionReport",
    "SettingsFileError",
    "TranscriptError",
    "apply_plan",
    "claude_cwd",
    "expand",
    "parse_notify",
    "plan_claude",
    "plan_codex",
    "project_sessions",
]
__getattr__ = lazy_api(__name__, _EXPORTS)
