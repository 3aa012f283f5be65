"""Codex CLI rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl`) and notify payloads → finished turns.

The rules (docs/import.md):
* What the user typed comes from `event_msg`/`user_message`; in older files without those events,
  from `response_item` user messages with the injected blocks (`<environment_context>`,
  `<user_instructions>`, AGENTS.md instructions) removed. Developer/system messages, reasoning,
  tool calls and their outputs, `compacted` summaries and `session_meta.instructions` are never
  imported.
* Message blocks typed `input_text`, `output_text` or plain `text` are all read, for either role.
* The answer is the last assistant message (its text blocks, or `agent_message`) before the next
  user message; `task_complete.last_agent_message` wins when present.
* A turn is finished when the next user message follows it, or at `task_complete`/`turn_aborted`,
  or — in older files — when its last item is an assistant message with no tool call after it.
* A turn is known by its turn id (`turn_context.turn_id`, newer Codex; the notify payload's
  `turn-id`), otherwise by the byte offset of its user message; the notify hook and an older
  rollout are matched by what the user typed (memory/imports.py).

Every record read is accounted for (`claude_code.account`): part of a finished turn, skipped under a
reason, or waiting for the next run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from autopatch_j.memory.imports import ExternalTurn
from autopatch_j.transcripts.claude_code import Parsed, ParsedTurn, account
from autopatch_j.transcripts.errors import HookInputError
from autopatch_j.transcripts.jsonl import UNKNOWN_SHAPE, Line, LineStats

_TYPES = frozenset({"session_meta", "turn_context", "response_item", "event_msg", "compacted"})
_TOOL_ITEMS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "function_call_output",
        "custom_tool_call_output",
    }
)
_INJECTED = re.compile(r"<(environment_context|user_instructions|user_shell_command|turn_aborted)>.*?</\1>", re.DOTALL)
_AGENTS_MD = re.compile(r"^# AGENTS\.md instructions for .*?(?:</INSTRUCTIONS>|\Z)", re.DOTALL | re.MULTILINE)
TURN_KEY = "turn:"
LINE_KEY = "line:"


@dataclass(frozen=True, slots=True)
class SessionMeta:
    session_id: str
    cwd: str | None


def session_meta(record: dict[str, Any] | None) -> SessionMeta | None:
    if not record or record.get("type") != "session_meta" or not isinstance(record.get("payload"), dict):
        return None
    payload = record["payload"]
    session_id, cwd = payload.get("id"), payload.get("cwd")
    if not isinstance(session_id, str) or not session_id:
        return None
    return SessionMeta(session_id=session_id, cwd=cwd if isinstance(cwd, str) else None)


def strip_injected(text: str) -> str:
    return _AGENTS_MD.sub("", _INJECTED.sub("", text)).strip()


_TEXT_BLOCKS = frozenset({"input_text", "output_text", "text"})
_TOOL_EVENTS = ("exec_command", "patch_apply", "mcp_tool_call", "web_search", "tool")


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n\n".join(
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") in _TEXT_BLOCKS and isinstance(b.get("text"), str)
    )


@dataclass(slots=True)
class _Turn:
    offset: int
    start: int  # where reading must resume to see this turn again (its turn_context included)
    user: str
    turn_id: str | None
    answer: str = ""
    finished: bool = False
    lines: list[int] = field(default_factory=list)  # offsets of its user and closing records
    answer_lines: list[int] = field(default_factory=list)  # offsets of the records that carry its answer

    def said(self, text: str, offset: int) -> None:
        if text != self.answer:
            self.answer, self.answer_lines = text, []
        self.answer_lines.append(offset)
        self.finished = True


@dataclass(slots=True)
class _State:
    start: int
    turns: list[_Turn] = field(default_factory=list)
    open: _Turn | None = None
    pending_id: str | None = None
    pending_at: int | None = None  # where the turn_context of a turn not yet started was read
    boundary: int = 0  # just after the last record of the open turn (where the next turn's preamble starts)


def parse(lines: Iterable[Line], *, start: int, stats: LineStats) -> Parsed:
    """The finished turns among `lines` (which begin at byte `start`), read in one pass.

    Both user-message rules run side by side; the `event_msg` one is used when the region has any
    `user_message` event (newer Codex), the `response_item` one otherwise (older files).
    """
    by_events, by_items = _State(start=start, boundary=start), _State(start=start, boundary=start)
    saw_events = False
    records: list[tuple[int, dict[str, Any] | None]] = []
    for line in lines:
        if not _known(line):
            records.append((line.offset, None))
            continue
        records.append((line.offset, line.record))
        saw_events = saw_events or _event(line.record) == "user_message"
        _step(by_events, line, True)
        _step(by_items, line, False)
    state = by_events if saw_events else by_items
    parsed = _result(state, end=stats.end)
    used = {o for t in [*state.turns, *([state.open] if state.open else [])] for o in (*t.lines, *t.answer_lines)}
    return account(
        parsed,
        [(o, "" if o in used else (UNKNOWN_SHAPE if r is None else _reason(r, saw_events))) for o, r in records],
    )


def _reason(record: dict[str, Any], events_mode: bool) -> str:
    """Why a record that is not part of a turn was not imported."""
    kind, payload = record["type"], record["payload"]
    item = payload.get("type")
    item = item if isinstance(item, str) else ""
    if kind in ("session_meta", "turn_context"):
        return "bookkeeping"
    if kind == "compacted":
        return "summary"
    if kind == "response_item":
        if item in _TOOL_ITEMS:
            return "tool_output"
        if item == "reasoning":
            return "thinking"
        if item == "message":
            role = payload.get("role")
            if role == "user":
                return "duplicate" if events_mode else "not_a_prompt"
            return "superseded_text" if role == "assistant" else "instructions"
        return "bookkeeping"
    if item == "user_message":
        return "not_a_prompt"
    if item == "agent_message":
        return "superseded_text"
    if item.startswith("agent_reasoning"):
        return "thinking"
    if any(word in item for word in _TOOL_EVENTS):
        return "tool_output"
    return "bookkeeping"


def _result(state: _State, *, end: int) -> Parsed:
    # A turn_context read for a turn whose user message has not arrived must be read again.
    end = state.pending_at if state.pending_at is not None else end
    trailing = state.open
    parsed: list[ParsedTurn] = []
    for index, turn in enumerate(state.turns):
        if index + 1 < len(state.turns):
            following = state.turns[index + 1].start
        else:
            following = trailing.start if trailing is not None else end
        parsed.append(ParsedTurn(turn=_external(turn), resume_after=following, lines=_lines(turn)))
    if trailing is not None and trailing.finished:
        parsed.append(ParsedTurn(turn=_external(trailing), resume_after=end, lines=_lines(trailing)))
        trailing = None
    return Parsed(turns=tuple(parsed), resume_offset=trailing.start if trailing is not None else end)


def _lines(turn: _Turn) -> int:
    return len({*turn.lines, *turn.answer_lines})


def _known(line: Line) -> bool:
    return line.record.get("type") in _TYPES and isinstance(line.record.get("payload"), dict)


def _event(record: dict[str, Any]) -> str | None:
    if record.get("type") != "event_msg":
        return None
    kind = record["payload"].get("type")
    return kind if isinstance(kind, str) else None


def _step(state: _State, line: Line, events_mode: bool) -> None:
    kind, payload = line.record["type"], line.record["payload"]
    item = payload.get("type")
    if kind == "turn_context":
        turn_id = payload.get("turn_id")
        if isinstance(turn_id, str) and turn_id:
            if state.open is not None and state.open.turn_id is None and not state.open.finished:
                state.open.turn_id = turn_id
            else:
                state.pending_id = turn_id
                state.pending_at = line.offset if state.pending_at is None else state.pending_at
        return
    user = _user_text(kind, item, payload, events_mode)
    if user is not None:
        if user:
            _open(state, line, user)
        return
    turn = state.open
    if turn is None:
        return
    if kind == "response_item" and item == "message" and payload.get("role") == "assistant":
        text = _message_text(payload.get("content")).strip()
        if text:
            turn.said(text, line.offset)
    elif kind == "response_item" and item in _TOOL_ITEMS:
        turn.finished = False
    elif kind == "event_msg" and item == "agent_message" and isinstance(payload.get("message"), str):
        if payload["message"].strip():
            turn.said(payload["message"].strip(), line.offset)
    elif kind == "event_msg" and item == "task_complete":
        last = payload.get("last_agent_message")
        if isinstance(last, str) and last.strip() and last.strip() != turn.answer:
            turn.answer, turn.answer_lines = last.strip(), []
        turn.lines.append(line.offset)
        turn.finished = True
    elif kind == "event_msg" and item == "turn_aborted":
        turn.lines.append(line.offset)
        turn.finished = True
    else:
        return
    state.boundary = line.end


def _user_text(kind: str, item: Any, payload: dict[str, Any], events_mode: bool) -> str | None:
    """The typed text when this record is a user message of the mode in use ('' when only injected)."""
    if events_mode:
        if kind == "event_msg" and item == "user_message":
            message = payload.get("message")
            return strip_injected(message) if isinstance(message, str) else ""
        return None
    if kind == "response_item" and item == "message" and payload.get("role") == "user":
        return strip_injected(_message_text(payload.get("content")))
    return None


def _open(state: _State, line: Line, user: str) -> None:
    if state.open is not None:
        if state.open.answer == "" and not state.open.finished and state.open.user:
            # Two user messages with no answer between them belong to one turn.
            state.open.user = f"{state.open.user}\n\n{user}"
            state.open.lines.append(line.offset)
            state.boundary = line.end
            return
        state.turns.append(state.open)
    begin = state.boundary if state.open is not None else state.start
    state.open = _Turn(offset=line.offset, start=begin, user=user, turn_id=state.pending_id, lines=[line.offset])
    state.pending_id = state.pending_at = None
    state.boundary = line.end


def _external(turn: _Turn) -> ExternalTurn:
    if turn.turn_id:
        return ExternalTurn(key=f"{TURN_KEY}{turn.turn_id}", user_text=turn.user, assistant_text=turn.answer)
    return ExternalTurn(
        key=f"{LINE_KEY}{turn.offset}", user_text=turn.user, assistant_text=turn.answer, matches=TURN_KEY
    )


@dataclass(frozen=True, slots=True)
class NotifyTurn:
    session_id: str
    cwd: str | None
    turn: ExternalTurn | None  # None: a notification that is not a finished turn (ignored)


def parse_notify(argument: str) -> NotifyTurn:
    """Codex's `notify` argument: `{"type": "agent-turn-complete", "thread-id", "turn-id", …}`."""
    try:
        value = json.loads(argument)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"The Codex notification is not valid JSON ({exc.msg}).") from exc
    if not isinstance(value, dict):
        raise HookInputError("The Codex notification must be a JSON object.")
    session_id, cwd = value.get("thread-id"), value.get("cwd")
    if value.get("type") != "agent-turn-complete":
        return NotifyTurn(session_id=str(session_id or ""), cwd=cwd if isinstance(cwd, str) else None, turn=None)
    turn_id, inputs, answer = value.get("turn-id"), value.get("input-messages"), value.get("last-assistant-message")
    if not isinstance(session_id, str) or not session_id or not isinstance(turn_id, str) or not turn_id:
        raise HookInputError('The Codex notification needs string "thread-id" and "turn-id".')
    if not isinstance(inputs, list) or not all(isinstance(m, str) for m in inputs):
        raise HookInputError('The Codex notification needs "input-messages" as a list of strings.')
    user = strip_injected("\n\n".join(inputs))
    if not user:
        return NotifyTurn(session_id=session_id, cwd=cwd if isinstance(cwd, str) else None, turn=None)
    turn = ExternalTurn(
        key=f"{TURN_KEY}{turn_id}",
        user_text=user,
        assistant_text=answer.strip() if isinstance(answer, str) else "",
        matches=LINE_KEY,
    )
    return NotifyTurn(session_id=session_id, cwd=cwd if isinstance(cwd, str) else None, turn=turn)
