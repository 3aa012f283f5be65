"""Ingesting a recorded conversation (`autopatch-j memory ingest FILE`).

The file is JSONL, one exchange per line: `{"user": "...", "assistant": "...", "intent": "general_chat"}`
(`intent` optional, `code_explain` or `general_chat`; blank lines are skipped). The WHOLE file is
validated before anything is admitted (JSON shape, and text SQLite can store: no lone surrogates, at
most `MAX_TURN_CHARS` characters per side) —
a malformed line is one sentence naming its line number and nothing is stored. Valid exchanges
then go through the same `begin_turn` / `complete_turn` admission as live turns, all of them in ONE
transaction (a failure rolls back the whole file), so each gets its extraction job like a live one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from autopatch_j.memory.admission import require_admissible
from autopatch_j.memory.errors import IngestFormatError, InvalidInputError
from autopatch_j.memory.records import ORDINARY_INTENTS, Intent, TurnTicket

_KEYS = frozenset({"user", "assistant", "intent"})


@dataclass(frozen=True, slots=True)
class Exchange:
    line: int
    user: str
    assistant: str
    intent: Intent


@dataclass(frozen=True, slots=True)
class IngestReport:
    turn_ids: tuple[int, ...]
    thread_id: int | None


class Admitter(Protocol):
    """The admission half of `MemoryManager` that ingest needs."""

    def admit_completed_turns(self, exchanges: Sequence[tuple[str, str, Intent]]) -> list[TurnTicket]: ...


def parse_conversation(text: str, *, source: str = "the file") -> list[Exchange]:
    """Every exchange of a JSONL conversation, or `IngestFormatError` for the first bad line."""
    exchanges: list[Exchange] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        exchanges.append(_parse_line(line, number, source))
    if not exchanges:
        raise IngestFormatError(f"{source} contains no exchanges; expected one JSON object per line.")
    return exchanges


def _parse_line(line: str, number: int, source: str) -> Exchange:
    where = f"{source}, line {number}"
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise IngestFormatError(f"{where} is not valid JSON ({exc.msg}).") from exc
    if not isinstance(value, dict):
        raise IngestFormatError(f'{where} must be a JSON object with "user" and "assistant".')
    if unknown := sorted(set(value) - _KEYS):
        raise IngestFormatError(f"{where} has unknown field(s) {', '.join(unknown)}; allowed: user, assistant, intent.")
    user, assistant = value.get("user"), value.get("assistant")
    if not isinstance(user, str) or not user.strip():
        raise IngestFormatError(f'{where} needs a non-empty string "user".')
    if not isinstance(assistant, str):
        raise IngestFormatError(f'{where} needs a string "assistant".')
    for name, text in (("user", user), ("assistant", assistant)):
        try:
            require_admissible(text, f'"{name}" text')
        except InvalidInputError as exc:
            raise IngestFormatError(f"{where}: {exc}") from None
    raw_intent = value.get("intent", Intent.GENERAL_CHAT.value)
    allowed = sorted(i.value for i in ORDINARY_INTENTS)
    if not isinstance(raw_intent, str) or raw_intent not in allowed:
        raise IngestFormatError(f"{where} has intent {raw_intent!r}; Memory keeps only {' or '.join(allowed)}.")
    return Exchange(line=number, user=user, assistant=assistant, intent=Intent(raw_intent))


def read_conversation(path: Path) -> list[Exchange]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise IngestFormatError(f"{path} is not UTF-8 text.") from exc
    except OSError as exc:
        raise IngestFormatError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    return parse_conversation(text, source=str(path))


def ingest(admitter: Admitter, exchanges: list[Exchange]) -> IngestReport:
    """Admit already-validated exchanges, in order, through the live admission path, in one transaction."""
    tickets = admitter.admit_completed_turns([(e.user, e.assistant, e.intent) for e in exchanges])
    return IngestReport(
        turn_ids=tuple(t.turn_id for t in tickets), thread_id=tickets[-1].thread_id if tickets else None
    )
