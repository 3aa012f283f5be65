"""Importing sessions incrementally and exactly once (docs/import.md).

Each session keeps a cursor: the byte offset where reading resumes. A run reads from the cursor to
the last complete line, parses the finished turns, and admits them in batches; each batch's write
transaction admits its turns (ordinary admission: RAW text, answer, extraction job), records the
keys they are known by and moves the cursor past them — all or nothing. A re-run therefore adds
nothing; a grown session continues where it stopped; a crash between batches loses no committed
turn and re-reads only what was not committed, and the keys turn any re-read turn into a no-op.
Extraction is left to the ordinary background pipeline (`memory drain`, the REPL, a worker).

Every line read is accounted for: part of an imported (or already known) turn, skipped under a
reason, or waiting for the next run. A turn Memory cannot admit — over `MAX_TURN_CHARS` characters on
either side (`too_long`), or text that cannot be stored (`unstorable`) — is skipped and counted, and
the cursor moves past it like past any other turn, so the rest of the session and every later session
import. A dry run parses and decides exactly as a real run and writes nothing.
A last line without a newline is read once it parses and the file has not changed for
`settle_seconds`.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from autopatch_j.memory import imports
from autopatch_j.memory.admission import MAX_TURN_CHARS, require_admissible
from autopatch_j.memory.errors import InvalidInputError, MemorySchemaError
from autopatch_j.memory.imports import ExternalTurn, ImportSession, Source
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.transcripts import claude_code, codex
from autopatch_j.transcripts.claude_code import Parsed, ParsedTurn
from autopatch_j.transcripts.discovery import SessionFile, SkippedFile
from autopatch_j.transcripts.jsonl import UNPARSABLE, LineStats, iter_lines

BATCH_TURNS = 200
SETTLE_SECONDS = 5.0


@dataclass
class SessionReport:
    source: Source
    session_id: str
    path: Path
    resumed_from: int = 0
    turns_admitted: int = 0
    turns_already_known: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # lines not imported, by reason
    turns_skipped: Counter[str] = field(default_factory=Counter)  # finished turns Memory cannot admit
    lines_read: int = 0
    lines_imported: int = 0  # lines of turns admitted now or already known
    lines_waiting: int = 0  # lines of an unfinished last turn: read again next run
    partial_line_left: bool = False
    restarted: bool = False  # the file was shorter than the cursor: read again from the start


@dataclass
class ImportReport:
    sessions: list[SessionReport] = field(default_factory=list)
    dry_run: bool = False
    files_skipped: list[SkippedFile] = field(default_factory=list)

    @property
    def files_skipped_by_reason(self) -> Counter[str]:
        return Counter(f.reason for f in self.files_skipped)

    @property
    def turns_skipped(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for session in self.sessions:
            total.update(session.turns_skipped)
        return total

    @property
    def turns_admitted(self) -> int:
        return sum(s.turns_admitted for s in self.sessions)

    @property
    def skipped(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for session in self.sessions:
            total.update(session.skipped)
        return total


def rejection(turn: ExternalTurn) -> str | None:
    """Why Memory cannot admit this turn (`too_long`, `unstorable`), or None when it can."""
    try:
        require_admissible(turn.user_text, "prompt")
        require_admissible(turn.assistant_text, "answer")
    except InvalidInputError:
        too_long = max(len(turn.user_text), len(turn.assistant_text)) > MAX_TURN_CHARS
        return "too_long" if too_long else "unstorable"
    return None


def parse_region(
    source: Source,
    path: Path,
    *,
    offset: int,
    stats: LineStats,
    progress: Callable[[int], None] | None = None,
    settled: bool = False,
) -> Parsed:
    lines = iter_lines(path, offset=offset, stats=stats, progress=progress, settled=settled)
    if source is Source.CLAUDE_CODE:
        return claude_code.parse(lines, start=offset, stats=stats)
    return codex.parse(lines, start=offset, stats=stats)


class Importer:
    """Imports sessions into one project's Memory; the manager must be open and healthy."""

    def __init__(
        self,
        *,
        manager: MemoryManager,
        batch_turns: int = BATCH_TURNS,
        settle_seconds: float = SETTLE_SECONDS,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        if not manager.health.ok:
            raise MemorySchemaError(
                f"Memory is degraded ({manager.health.reason}); `autopatch-j memory status` explains."
            )
        self.manager = manager
        self.batch_turns = batch_turns
        self.settle_seconds = settle_seconds
        self.wall_clock = wall_clock

    def _cursor(self, session: SessionFile) -> ImportSession | None:
        with self.manager.db.read("read the import cursor") as conn:
            return imports.get_session_in_tx(conn, source=session.source, session_id=session.session_id)

    def import_session(
        self, session: SessionFile, *, dry_run: bool = False, progress: Callable[[int], None] | None = None
    ) -> SessionReport:
        report = SessionReport(source=session.source, session_id=session.session_id, path=session.path)
        cursor = self._cursor(session)
        offset = cursor.byte_offset if cursor is not None else 0
        status = session.path.stat()
        if offset > status.st_size:
            offset, report.restarted = 0, True
        report.resumed_from = offset
        stats = LineStats()
        settled = self.wall_clock() - status.st_mtime >= self.settle_seconds
        parsed = parse_region(
            session.source, session.path, offset=offset, stats=stats, progress=progress, settled=settled
        )
        self._account(report, stats, parsed)
        rejected = self._rejected(report, parsed.turns)
        admissible = [t for t in parsed.turns if t.turn.key not in rejected]
        if dry_run:
            report.turns_admitted = self._count_new(cursor, admissible)
            report.turns_already_known = len(admissible) - report.turns_admitted
            return report
        for first in range(0, len(parsed.turns), self.batch_turns):
            batch = parsed.turns[first : first + self.batch_turns]
            allowed = tuple(t for t in batch if t.turn.key not in rejected)
            cursor, admitted = self._commit(session, cursor, allowed, resume=batch[-1].resume_after)
            report.turns_admitted += admitted
            report.turns_already_known += len(allowed) - admitted
        if cursor is not None and cursor.byte_offset != parsed.resume_offset:
            self._commit(session, cursor, (), resume=parsed.resume_offset)
        return report

    @staticmethod
    def _account(report: SessionReport, stats: LineStats, parsed: Parsed) -> None:
        report.lines_read, report.partial_line_left = stats.read, stats.partial_line
        report.skipped = Counter(parsed.skipped)
        report.lines_waiting = parsed.waiting
        for offset in stats.unparsable:
            if offset >= parsed.resume_offset:
                report.lines_waiting += 1
            else:
                report.skipped[UNPARSABLE] += 1

    @staticmethod
    def _rejected(report: SessionReport, turns: tuple[ParsedTurn, ...]) -> set[str]:
        """The keys of the turns Memory cannot admit; each is counted, with its lines, under its reason."""
        rejected: set[str] = set()
        report.turns_skipped.clear()
        for parsed in turns:
            reason = rejection(parsed.turn)
            if reason is None:
                report.lines_imported += parsed.lines
                continue
            rejected.add(parsed.turn.key)
            report.turns_skipped[reason] += 1
            report.skipped[reason] += parsed.lines
        return rejected

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

    def _count_new(self, cursor: ImportSession | None, turns: list[ParsedTurn]) -> int:
        if cursor is None:
            return len(turns)
        with self.manager.db.read("read the imported turns") as conn:
            return sum(imports.is_new_in_tx(conn, session=cursor, turn=t.turn) for t in turns)

    def admit_turn(self, *, source: Source, session_id: str, turn: ExternalTurn) -> bool:
        """Admit one turn that arrived outside a transcript (Codex notify); False when already known."""
        now = self.manager.clock.now()
        with self.manager.db.write("import the turn") as conn:
            row = imports.ensure_session_in_tx(conn, source=source, session_id=session_id, path=None, now=now)
            return imports.admit_in_tx(conn, session=row, turn=turn, owner=self.manager.owner, now=now) is not None
