"""Finding a project's sessions on disk, and telling the two formats apart.

Claude Code keeps a project's sessions in `~/.claude/projects/<slug>/`, where the slug is the
project path with every character outside ASCII letters and digits replaced by one `-`. The slug
is lossy (`a-b` and `a_b` collide) and long paths are encoded differently, so a session counts only
when the `cwd` its records carry is the project root; when the slug directory yields nothing, every
project directory is scanned the same way. Subagent transcripts (`agent-*.jsonl`, `subagents/`)
are never sessions of their own. Codex sessions are `rollout-*.jsonl` anywhere under
`$CODEX_HOME/sessions/` (dated folders and the older flat layout) whose `session_meta.cwd` is the
project root.

A folder given to `memory import` may hold other files: an empty file, a binary one, a `.jsonl` that
neither agent wrote, a subagent transcript. They are skipped and reported (`SkippedFile`), never
an error; a single file named explicitly must be a session.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from autopatch_j.memory.imports import Source
from autopatch_j.transcripts import codex
from autopatch_j.transcripts.errors import TranscriptFormatError
from autopatch_j.transcripts.jsonl import LineStats, iter_lines

_PROBE_LINES = 50
_ROLLOUT_ID = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$")


class From(enum.Enum):
    AUTO = "auto"
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"


@dataclass(frozen=True, slots=True)
class SessionFile:
    source: Source
    path: Path
    session_id: str


@dataclass(frozen=True, slots=True)
class SkippedFile:
    path: Path
    reason: str  # "empty", "binary", "not_a_session", "subagent"


def _not_a_session(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return "unreadable"
    if not head.strip():
        return "empty"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut at the end of the sample
            return "binary"
    return "binary" if b"\0" in head else "not_a_session"


def claude_slug(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def is_subagent_file(path: Path) -> bool:
    return path.name.startswith("agent-") or "subagents" in path.parts


def _probe(path: Path) -> Iterator[dict[str, object]]:
    stats = LineStats()
    for count, line in enumerate(iter_lines(path, offset=0, stats=stats)):
        if count >= _PROBE_LINES:
            return
        yield line.record


def claude_cwd(path: Path) -> str | None:
    for record in _probe(path):
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            return cwd
    return None


def codex_session(path: Path) -> SessionFile:
    """A rollout's session: the `session_meta` id, else the uuid at the end of its file name."""
    for record in _probe(path):
        meta = codex.session_meta(record)
        if meta is not None:
            return SessionFile(source=Source.CODEX, path=path, session_id=meta.session_id)
    match = _ROLLOUT_ID.search(path.stem)
    return SessionFile(source=Source.CODEX, path=path, session_id=match.group(1) if match else path.stem)


def detect(path: Path) -> Source:
    """Which agent wrote this file, from its first readable records."""
    for record in _probe(path):
        if "payload" in record and record.get("type") in {"session_meta", "response_item", "event_msg", "turn_context"}:
            return Source.CODEX
        if "sessionId" in record or "parentUuid" in record or record.get("type") in {"summary", "user", "assistant"}:
            return Source.CLAUDE_CODE
    if path.name.startswith("rollout-"):
        return Source.CODEX
    raise TranscriptFormatError(f"{path} is not a Claude Code or Codex session transcript.")


def session_file(path: Path, wanted: From) -> SessionFile:
    source = detect(path) if wanted is From.AUTO else Source(wanted.value)
    if source is Source.CODEX:
        return codex_session(path)
    return SessionFile(source=Source.CLAUDE_CODE, path=path, session_id=path.stem)


def expand(paths: list[Path], wanted: From) -> tuple[list[SessionFile], list[SkippedFile]]:
    """Explicit PATH arguments: files as given (each must be a session), directories searched for
    `*.jsonl` sessions — the other files found there are returned as skipped, with why."""
    found: list[SessionFile] = []
    skipped: list[SkippedFile] = []
    for path in paths:
        if path.is_dir():
            for candidate in sorted(path.rglob("*.jsonl")):
                if is_subagent_file(candidate.relative_to(path)):
                    skipped.append(SkippedFile(path=candidate, reason="subagent"))
                    continue
                try:
                    detected = detect(candidate)
                except TranscriptFormatError:
                    skipped.append(SkippedFile(path=candidate, reason=_not_a_session(candidate)))
                    continue
                found.append(session_file(candidate, From(detected.value) if wanted is From.AUTO else wanted))
        elif path.is_file():
            found.append(session_file(path, wanted))
        else:
            raise TranscriptFormatError(f"{path} does not exist.")
    return found, skipped


def claude_sessions(root: Path, *, home: Path) -> list[SessionFile]:
    projects = home / ".claude" / "projects"
    if not projects.is_dir():
        return []
    slug_dir = projects / claude_slug(root)
    candidates = sorted(slug_dir.glob("*.jsonl")) if slug_dir.is_dir() else []
    confirmed = [p for p in candidates if not is_subagent_file(p) and claude_cwd(p) == str(root)]
    if not confirmed:
        others = sorted(p for p in projects.glob("*/*.jsonl") if p.parent != slug_dir and not is_subagent_file(p))
        confirmed = [p for p in others if claude_cwd(p) == str(root)]
    return [SessionFile(source=Source.CLAUDE_CODE, path=p, session_id=p.stem) for p in confirmed]


def codex_sessions(root: Path, *, codex_home: Path) -> list[SessionFile]:
    sessions = codex_home / "sessions"
    if not sessions.is_dir():
        return []
    found: list[SessionFile] = []
    for path in sorted(sessions.rglob("rollout-*.jsonl")):
        meta = next((m for m in map(codex.session_meta, _probe(path)) if m is not None), None)
        if meta is not None and meta.cwd == str(root):
            found.append(SessionFile(source=Source.CODEX, path=path, session_id=meta.session_id))
    return found


def project_sessions(root: Path, wanted: From, *, home: Path, codex_home: Path) -> list[SessionFile]:
    found: list[SessionFile] = []
    if wanted in (From.AUTO, From.CLAUDE_CODE):
        found.extend(claude_sessions(root, home=home))
    if wanted in (From.AUTO, From.CODEX):
        found.extend(codex_sessions(root, codex_home=codex_home))
    return found
