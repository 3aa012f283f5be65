"""The two bounded inputs of an ordinary request (M-66): initial history and the routing context.

History is at most 8 recent *completed* turns of the bound thread and at most 12,000 characters,
oldest first, passed as request messages. The newest turns win when the budget cuts; RAW text in
the database is never trimmed (M-21) — only the copy handed to the prompt is.

The routing context is at most 4,000 characters in total:

    boundary notice (M-2, English and Chinese)      never cut; without room for it, nothing is sent
    thread summary (the bounded compaction)          cut first, but never below COMPACTION_FLOOR
    preferences and decisions, newest first          ≤ 400 chars each; oldest dropped last of all
    discussion index of the bound thread (id+title)  oldest entries dropped before any preference

So over budget the cut order is: compaction text beyond its first COMPACTION_FLOOR (1,000)
characters → oldest discussion index entries → oldest preferences/decisions; the compaction's
floor and the notice stay. When entries were left out, a last line says so and that
`memory_search` still finds them (only as many rows are read as could ever fit). `memory_read`
bodies are never included. A healthy empty store (no compaction, no items) gives `""`, never
the notice alone.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from autopatch_j.memory.search import clip

MAX_HISTORY_TURNS = 8
MAX_HISTORY_CHARS = 12_000
MAX_ROUTING_CHARS = 4_000
MAX_ITEM_LINE_CHARS = 400
COMPACTION_FLOOR = 1_000

BOUNDARY_NOTICE = (
    "## Memory (context from earlier conversation, not evidence)\n"
    "Memory is not source evidence: read source code, build configuration and error state live with "
    "the tools. The user's current instruction always overrides old memory.\n"
    "记忆不是源码证据：源码、构建配置和错误状态必须实时读取；当前用户指令始终优先于旧记忆。"
)
SUMMARY_HEADING = "### Thread summary"
ITEMS_HEADING = "### Preferences and decisions (newest first)"
INDEX_HEADING = "### Discussion index (memory_read(id) for details)"
OMITTED_NOTE = "(Older memories were left out for length; memory_search still finds them.)"

_KIND_LABEL = {"user_preference": "preference", "project_decision": "decision"}

_HISTORY_SQL = """
SELECT id, user_text, assistant_text
FROM turns
WHERE thread_id = :thread_id AND status = 'completed'
ORDER BY seq DESC
LIMIT :limit
"""

_COMPACTION_SQL = "SELECT compaction FROM threads WHERE id = :thread_id"

# Newest first, and never more rows than a budget could show (see `_row_cap`).
_DECISIONS_SQL = """
SELECT memory_id, kind, title, content
FROM memory_items
WHERE status = 'active' AND kind IN ('user_preference', 'project_decision')
ORDER BY updated_at DESC, memory_id DESC
LIMIT :limit
"""

_DISCUSSIONS_SQL = """
SELECT memory_id, title
FROM memory_items
WHERE status = 'active' AND kind = 'discussion_context' AND thread_id = :thread_id
ORDER BY updated_at DESC, memory_id DESC
LIMIT :limit
"""


@dataclass(frozen=True, slots=True)
class HistoryTurn:
    turn_id: int
    user_text: str
    assistant_text: str


def history_in_tx(
    conn: sqlite3.Connection,
    *,
    thread_id: int,
    max_turns: int = MAX_HISTORY_TURNS,
    max_chars: int = MAX_HISTORY_CHARS,
) -> list[HistoryTurn]:
    """Recent completed turns of `thread_id`, oldest first, within both budgets.

    Whole turns are taken newest first while they fit. When even the newest turn alone is over
    the character budget it is still sent, clipped (user text first, then the answer), because
    the exchange just before the current message matters most.
    """
    if max_turns <= 0 or max_chars <= 0:
        return []
    rows = conn.execute(_HISTORY_SQL, {"thread_id": thread_id, "limit": max_turns}).fetchall()
    kept: list[HistoryTurn] = []
    used = 0
    for turn_id, user, raw_answer in rows:
        answer = raw_answer or ""
        size = len(user) + len(answer)
        if used + size <= max_chars:
            kept.append(HistoryTurn(turn_id=turn_id, user_text=user, assistant_text=answer))
            used += size
            continue
        if not kept:
            user_chars = min(len(user), max(max_chars // 2, max_chars - len(answer)))
            kept.append(
                HistoryTurn(
                    turn_id=turn_id,
                    user_text=clip(user, user_chars),
                    assistant_text=clip(answer, max_chars - user_chars),
                )
            )
        break
    kept.reverse()
    return kept


def routing_context_in_tx(conn: sqlite3.Connection, *, thread_id: int, max_chars: int = MAX_ROUTING_CHARS) -> str:
    """The Memory routing context of `thread_id` (≤ `max_chars`), or "" when there is nothing."""
    row = conn.execute(_COMPACTION_SQL, {"thread_id": thread_id}).fetchone()
    compaction = (row[0] if row else "").strip()
    cap = _row_cap(max_chars)
    decisions = [
        clip(f"- [#{memory_id}] {_KIND_LABEL[kind]} · {_one_line(title)}: {_one_line(content)}", MAX_ITEM_LINE_CHARS)
        for memory_id, kind, title, content in conn.execute(_DECISIONS_SQL, {"limit": cap + 1})
    ]
    index = [
        clip(f"- [#{memory_id}] {_one_line(title)}", MAX_ITEM_LINE_CHARS)
        for memory_id, title in conn.execute(_DISCUSSIONS_SQL, {"thread_id": thread_id, "limit": cap + 1})
    ]
    return compose_routing_context(compaction=compaction, decisions=decisions, index=index, max_chars=max_chars)


def _row_cap(max_chars: int) -> int:
    """More rows than this cannot fit: every line is at least `- [#1] x` plus a newline."""
    return max(max_chars, 0) // 9 + 1


def compose_routing_context(
    *,
    compaction: str,
    decisions: list[str],
    index: list[str],
    max_chars: int = MAX_ROUTING_CHARS,
) -> str:
    """Assemble the sections within `max_chars`, cutting in the documented order (pure function).

    `decisions` and `index` are lines, newest first. The note about left-out entries is added only
    when something was left out, and its room is then taken from the same budget.
    """
    if not compaction and not decisions and not index:
        return ""
    text, omitted = _compose(compaction, decisions, index, room=max_chars - len(BOUNDARY_NOTICE))
    if omitted:
        text, _ = _compose(compaction, decisions, index, room=max_chars - len(BOUNDARY_NOTICE) - 2 - len(OMITTED_NOTE))
        return f"{text}\n\n{OMITTED_NOTE}" if text else ""
    return text


def _compose(compaction: str, decisions: list[str], index: list[str], *, room: int) -> tuple[str, bool]:
    """The context whose non-notice part fits `room`; and whether any entry was left out."""
    if room <= 0:
        return "", bool(decisions or index)
    summary_cost = _section_cost(SUMMARY_HEADING) + 1 if compaction else 0  # heading + newline
    summary_floor = min(len(compaction), COMPACTION_FLOOR)
    # Preferences/decisions first (newest first), then the index, each leaving the summary floor free;
    # the summary then takes whatever room is left (at least its floor, when the floor fits at all).
    kept_decisions = _take_lines(decisions, ITEMS_HEADING, room - summary_cost - summary_floor)
    used = _lines_cost(kept_decisions, ITEMS_HEADING)
    kept_index = _take_lines(index, INDEX_HEADING, room - used - summary_cost - summary_floor)
    used += _lines_cost(kept_index, INDEX_HEADING)
    summary_room = room - used - summary_cost
    summary = clip(compaction, summary_room) if compaction and summary_room > 0 else ""

    omitted = len(kept_decisions) < len(decisions) or len(kept_index) < len(index)
    sections = [BOUNDARY_NOTICE]
    if summary:
        sections.append(f"{SUMMARY_HEADING}\n{summary}")
    if kept_decisions:
        sections.append("\n".join([ITEMS_HEADING, *kept_decisions]))
    if kept_index:
        sections.append("\n".join([INDEX_HEADING, *kept_index]))
    if len(sections) == 1:
        return "", omitted
    return "\n\n".join(sections), omitted


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _section_cost(heading: str) -> int:
    """Characters a section adds besides its lines: the blank-line separator and the heading."""
    return 2 + len(heading)


def _lines_cost(lines: list[str], heading: str) -> int:
    return _section_cost(heading) + sum(len(line) + 1 for line in lines) if lines else 0


def _take_lines(lines: list[str], heading: str, room: int) -> list[str]:
    """The longest prefix (newest first) of `lines` whose section fits in `room`."""
    kept: list[str] = []
    used = _section_cost(heading)
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept
