"""Importing sessions incrementally and exactly once (docs/import.md).

Each session keeps a cursor: the byte offset where reading resumes. A run reads from the cursor to
the last complete line, parses the finished turns, and admits them in batches; each batch's write
transaction admits its turns (ordinary admission: RAW text, answer, extraction job), records the
keys they are known by and moves the cursor past them — all or nothing. A re-run therefore adds
nothing; a grown session continues where it stopped; a crash between batches loses no committed
turn and re-reads only what was not committed, and the keys turn any re-read turn into a no-op.
Extraction is left to the ordinary background pipeline (`memory drain`, the REPL, a worker).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autopatch_j.memory import imports
from autopatch_j.memory.errors import MemorySchemaError
from autopatch_j.memory.imports import ExternalTurn, ImportSession, Source
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.transcripts import claude_code, codex
from autopatch_j.transcripts.claude_code import Parsed, ParsedTurn
from autopatch_j.transcripts.discovery import SessionFile
from autopatch_j.transcripts.jsonl import LineStats, iter_lines

BATCH_TURNS = 200
_KNOWN_KEYS = "SELECT 1 FROM imported_turns WHERE session_row = ? AND external_id = ?"


@dataclass
class SessionReport:
    source: Source
    session_id: str
    path: Path
    resumed_from: int = 0
    turns_admitted: int = 0
    turns_already_known: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    partial_line_left: bool = False
    restarted: bool = False  # the file was shorter than the cursor: read again from the start


@dataclass
class ImportReport:
    sessions: list[SessionReport] = field(default_factory=list)
    dry_run: bool = False

    @property
    def turns_admitted(self) -> int:
        return sum(s.turns_admitted for s in self.sessions)

    @property
    def skipped(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for session in self.sessions:
            total.update(session.skipped)
        return total


def parse_region(
    source: Source, path: Path, *, offset: int, stats: LineStats, progress: Callable[[int], None] | None = None
) -> Parsed:
    lines = iter_lines(path, offset=offset, stats=stats, progress=progress)
    if source is Source.CLAUDE_CODE:
        return claude_code.parse(lines, start=offset, stats=stats)
    return codex.parse(lines, start=offset, stats=stats)


class Importer:
    """Imports sessions into one project's Memory; the manager must be open and healthy."""

    def __init__(self, *, manager: MemoryManager, batch_turns: int = BATCH_TURNS) -> None:
        if not manager.health.ok:
            raise MemorySchemaError(
                f"Memory is degraded ({manager.health.reason}); `autopatch-j memory status` explains."
            )
        self.manager = manager
        self.batch_turns = batch_turns

    def _cursor(self, session: SessionFile) -> ImportSession | None:
        with self.manager.db.read("read the import cursor") as conn:
            return imports.get_session_in_tx(conn, source=session.source, session_id=session.session_id)

    def import_session(
        self, session: SessionFile, *, dry_run: bool = False, progress: Callable[[int], None] | None = None
    ) -> SessionReport:
        report = SessionReport(source=session.source, session_id=session.session_id, path=session.path)
        cursor = self._cursor(session)
        offset = cursor.byte_offset if cursor is not None else 0
        size = session.path.stat().st_size
        if offset > size:
            offset, report.restarted = 0, True
        report.resumed_from = offset
        stats = LineStats()
        parsed = parse_region(session.source, session.path, offset=offset, stats=stats, progress=progress)
        report.skipped, report.partial_line_left = stats.skipped, stats.partial_line
        if dry_run:
            report.turns_admitted = self._count_new(cursor, parsed.turns)
            report.turns_already_known = len(parsed.turns) - report.turns_admitted
            return report
        for first in range(0, len(parsed.turns), self.batch_turns):
            batch = parsed.turns[first : first + self.batch_turns]
            cursor, admitted = self._commit(session, cursor, batch, resume=batch[-1].resume_after)
            report.turns_admitted += admitted
            report.turns_already_known += len(batch) - admitted
        if cursor is not None and cursor.byte_offset != parsed.resume_offset:
            self._commit(session, cursor, (), resume=parsed.resume_offset)
        return report

    def _commit(
        self, session: SessionFile, cursor: ImportSession | None, batch: tuple[ParsedTurn, ...], *, resume: int
    ) -> tuple[ImportSession, int]:
        now = self.manager.clock.now()
        admitted = 0
        with self.manager.db.write("import the session's turns") as conn:
            row = cursor or imports.ensure_session_in_tx(
                conn, source=session.source, session_id=session.session_id, path=str(session.path), now=now
            )
            for parsed in batch:
                turn_id = imports.admit_in_tx(conn, session=row, turn=parsed.turn, owner=self.manager.owner, now=now)
                admitted += turn_id is not None
            row = imports.move_cursor_in_tx(conn, session=row, byte_offset=resume, path=str(session.path), now=now)
        return row, admitted

    def _count_new(self, cursor: ImportSession | None, turns: tuple[ParsedTurn, ...]) -> int:
        if cursor is None:
            return len(turns)
        with self.manager.db.read("read the imported turns") as conn:
            return sum(conn.execute(_KNOWN_KEYS, (cursor.row_id, t.turn.key)).fetchone() is None for t in turns)

    def admit_turn(self, *, source: Source, session_id: str, turn: ExternalTurn) -> bool:
        """Admit one turn that arrived outside a transcript (Codex notify); False when already known."""
        now = self.manager.clock.now()
        with self.manager.db.write("import the turn") as conn:
            row = imports.ensure_session_in_tx(conn, source=source, session_id=session_id, path=None, now=now)
            return imports.admit_in_tx(conn, session=row, turn=turn, owner=self.manager.owner, now=now) is not None
