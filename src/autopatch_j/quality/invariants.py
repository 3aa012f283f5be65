"""Detectors of the five strong invariants of M-82, measured on stored data and captured requests.

Each detector reads what actually happened — rows of a scratch project's database, or the requests
a provider received — and counts violations; none trusts the code that was supposed to prevent them.
Each can fail: tests feed them fabricated leaks and illegal sources.

- illegal provenance: a stored source whose quote is not an exact substring of the RAW text of its
  turn and role, that cites a turn of another thread than its candidate, or a preference/decision
  candidate (not rejected) without any user source; a preference/decision resting only on a short
  confirmation without the adjacent assistant proposal.
- provenance completeness: active preferences and decisions whose current revision has ≥ 1 source,
  every source an exact substring of a stored RAW turn, and ≥ 1 user source.
- forgotten rebuilt: active memories whose evidence (any role) is only evidence of forgotten
  memories, and thread compactions that still quote forgotten evidence no other turn repeats.
- repair leakage: repair-path requests that carry Memory: a memory tool schema, the routing context
  heading, or any fingerprint (RAW turn text, memory title/content, source quote) of the project.
- cross-repo leakage: fingerprints of one scratch repo found in the other's database, search results,
  routing context, or the requests sent for it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autopatch_j.llm.provider import ChatRequest
from autopatch_j.memory.catalog import USER_OBJECTS
from autopatch_j.memory.terms import normalize

MEMORY_TOOL_NAMES = frozenset({"memory_search", "memory_read"})
MEMORY_CONTEXT_MARKERS = ("## Memory context",)
MIN_FINGERPRINT_CHARS = 6
#: Words a bare confirmation is made of ("同意", "Agreed.", "好的，就按你说的办。", "Sounds good, let's do that.").
#: Kept here, apart from the pipeline's lexicon, so the detector does not trust the code it checks.
CONFIRMATION_WORDS = (
    "就按你说的办", "按你说的办", "就按你说的", "就这么定", "就这么办", "没问题", "同意", "赞成", "确认", "好的",
    "可以", "就这样", "行", "好", "嗯", "对", "sounds good", "let's do that", "lets do that", "go ahead", "that works",
    "agreed", "agree", "okay", "ok", "yes", "yep", "sure", "deal", "fine", "吧", "了", "就", "那", "then", "please",
    "thanks", "great",
)  # fmt: skip

_CANDIDATE_SOURCES = """
SELECT c.id AS candidate_id, c.kind, c.status, c.thread_id AS candidate_thread,
       s.turn_id, s.role, s.quote, t.thread_id AS turn_thread, t.seq, t.user_text, t.assistant_text
FROM memory_candidates c
LEFT JOIN candidate_sources s ON s.candidate_id = c.id
LEFT JOIN turns t ON t.id = s.turn_id
ORDER BY c.id, s.ordinal
"""

_ACTIVE_ITEM_SOURCES = """
SELECT i.memory_id, i.kind, s.turn_id, s.role, s.quote, t.user_text, t.assistant_text, t.thread_id, t.seq
FROM memory_items i
LEFT JOIN memory_item_candidates ic ON ic.item_id = i.id
LEFT JOIN candidate_sources s ON s.candidate_id = ic.candidate_id
LEFT JOIN turns t ON t.id = s.turn_id
WHERE i.status = 'active'
ORDER BY i.memory_id
"""

_PREV_TURN = "SELECT id FROM turns WHERE thread_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1"


@dataclass(frozen=True, slots=True)
class ProvenanceFinding:
    candidate_id: int | None
    memory_id: int | None
    reason: str


def is_bare_confirmation(text: str) -> bool:
    """True when the text says nothing but a confirmation (fillers and punctuation aside)."""
    rest = normalize(text)
    for word in sorted((normalize(w) for w in CONFIRMATION_WORDS), key=len, reverse=True):
        rest = f" {rest} ".replace(f" {word} ", " ") if word.isascii() else rest.replace(word, " ")
    return bool(normalize(text)) and not rest.strip()


def _raw(role: str | None, user_text: str | None, assistant_text: str | None) -> str:
    return (user_text if role == "user" else assistant_text) or ""


def illegal_provenance(conn: sqlite3.Connection) -> list[ProvenanceFinding]:
    """Every stored source that breaks M-5 / M-42 (empty when the store is sound)."""
    findings: list[ProvenanceFinding] = []
    by_candidate: dict[int, list[sqlite3.Row]] = {}
    for row in conn.execute(_CANDIDATE_SOURCES):
        by_candidate.setdefault(row["candidate_id"], []).append(row)
    for candidate_id, rows in by_candidate.items():
        first = rows[0]
        if first["turn_id"] is None:
            findings.append(ProvenanceFinding(candidate_id, None, "a candidate without any source"))
            continue
        for row in rows:
            if row["user_text"] is None:
                findings.append(ProvenanceFinding(candidate_id, None, f"source cites missing turn {row['turn_id']}"))
            elif row["quote"] not in _raw(row["role"], row["user_text"], row["assistant_text"]):
                findings.append(
                    ProvenanceFinding(candidate_id, None, f"quote is not in turn {row['turn_id']}'s {row['role']} text")
                )
            elif row["turn_thread"] != row["candidate_thread"]:
                findings.append(
                    ProvenanceFinding(candidate_id, None, f"source turn {row['turn_id']} is in another thread")
                )
        if first["kind"] in ("user_preference", "project_decision") and first["status"] != "rejected":
            findings.extend(_decision_findings(conn, candidate_id, None, rows))
    return findings


def _decision_findings(
    conn: sqlite3.Connection, candidate_id: int | None, memory_id: int | None, rows: Sequence[sqlite3.Row]
) -> list[ProvenanceFinding]:
    user_rows = [row for row in rows if row["role"] == "user"]
    if not user_rows:
        return [ProvenanceFinding(candidate_id, memory_id, "a preference/decision without a user source")]
    if all(is_bare_confirmation(row["user_text"] or "") for row in user_rows):
        # Only short user turns: a confirmation; the adjacent assistant proposal must be a source too.
        for row in user_rows:
            thread = row["thread_id"] if "thread_id" in row.keys() else row["turn_thread"]  # noqa: SIM118
            previous = conn.execute(_PREV_TURN, (thread, row["seq"])).fetchone()
            if previous is not None and any(
                other["role"] == "assistant" and other["turn_id"] == previous["id"] for other in rows
            ):
                return []
        return [ProvenanceFinding(candidate_id, memory_id, "a short confirmation without the adjacent proposal")]
    return []


@dataclass(frozen=True, slots=True)
class Completeness:
    complete: int
    total: int
    incomplete: tuple[int, ...]

    @property
    def ratio(self) -> float:
        return 1.0 if self.total == 0 else self.complete / self.total


def provenance_completeness(conn: sqlite3.Connection) -> Completeness:
    """Active preferences/decisions whose sources are all exact RAW substrings with ≥ 1 user source."""
    by_memory: dict[int, list[sqlite3.Row]] = {}
    kinds: dict[int, str] = {}
    for row in conn.execute(_ACTIVE_ITEM_SOURCES):
        kinds[row["memory_id"]] = row["kind"]
        by_memory.setdefault(row["memory_id"], []).append(row)
    complete = 0
    incomplete: list[int] = []
    total = 0
    for memory_id, rows in by_memory.items():
        if kinds[memory_id] not in ("user_preference", "project_decision"):
            continue
        total += 1
        sourced = [row for row in rows if row["turn_id"] is not None]
        ok = (
            bool(sourced)
            and all(
                row["user_text"] is not None
                and row["quote"] in _raw(row["role"], row["user_text"], row["assistant_text"])
                for row in sourced
            )
            and any(row["role"] == "user" for row in sourced)
        )
        if ok:
            complete += 1
        else:
            incomplete.append(memory_id)
    return Completeness(complete=complete, total=total, incomplete=tuple(incomplete))


_SUBJECT_CONFLICTS = (
    "SELECT subject, COUNT(DISTINCT content) - 1 AS extra FROM memory_items WHERE status = 'active' "
    "AND kind IN ('user_preference', 'project_decision') AND subject != '' GROUP BY subject HAVING extra > 0"
)


def subject_conflicts(conn: sqlite3.Connection) -> list[str]:
    """Never two active memories on one subject that say different things: for every stored subject
    held by active preferences or decisions of more than one content, the subject once per extra."""
    return [row["subject"] for row in conn.execute(_SUBJECT_CONFLICTS) for _ in range(row["extra"])]


def forgotten_rebuilt(conn: sqlite3.Connection, *, old_evidence: Iterable[tuple[int, str, str]]) -> list[int]:
    """Active memories whose evidence, of any role, is only (turn, role, quote) evidence of forgotten memories.

    `old_evidence` is what the forgotten memories rested on, captured at the moment of the forget.
    A memory that also cites a newer explicit user turn is a legitimate re-statement (M-46).
    """
    evidence = list(old_evidence)
    if not evidence:
        return []

    def is_old(turn_id: int, role: str, quote: str) -> bool:
        return any(t == turn_id and r == role and (q in quote or quote in q) for t, r, q in evidence)

    by_memory: dict[int, list[sqlite3.Row]] = {}
    for row in conn.execute(_ACTIVE_ITEM_SOURCES):
        if row["turn_id"] is not None:
            by_memory.setdefault(row["memory_id"], []).append(row)
    return sorted(
        memory_id
        for memory_id, rows in by_memory.items()
        if rows and all(is_old(row["turn_id"], row["role"], row["quote"]) for row in rows)
    )


def forgotten_in_compaction(conn: sqlite3.Connection, *, old_evidence: Iterable[tuple[int, str, str]]) -> list[int]:
    """Threads whose compaction still quotes forgotten evidence that no other turn of the thread repeats."""
    evidence = list(old_evidence)
    old_turns = {turn_id for turn_id, _, _ in evidence}
    flagged: list[int] = []
    for thread_id, compaction in conn.execute("SELECT id, compaction FROM threads ORDER BY id").fetchall():
        quotes = [quote for _, _, quote in evidence if quote and quote in compaction]
        if not quotes:
            continue
        others = [
            f"{row[1] or ''}\n{row[2] or ''}"
            for row in conn.execute("SELECT id, user_text, assistant_text FROM turns WHERE thread_id = ?", (thread_id,))
            if row[0] not in old_turns
        ]
        if any(not any(quote in text for text in others) for quote in quotes):
            flagged.append(thread_id)
    return flagged


def fingerprints(conn: sqlite3.Connection) -> set[str]:
    """Distinctive texts of a project's Memory: RAW turns, memory titles and contents, source quotes."""
    texts: set[str] = set()
    for row in conn.execute("SELECT user_text, assistant_text FROM turns"):
        texts.update(t for t in (row["user_text"], row["assistant_text"]) if t)
    for row in conn.execute("SELECT title, content FROM memory_items"):
        texts.update((row["title"], row["content"]))
    for row in conn.execute("SELECT content FROM memory_candidates"):
        texts.add(row["content"])
    for row in conn.execute("SELECT quote FROM candidate_sources"):
        texts.add(row["quote"])
    return {text.strip() for text in texts if len(text.strip()) >= MIN_FINGERPRINT_CHARS}


def request_text(request: ChatRequest) -> str:
    parts = [message.content or "" for message in request.messages]
    for message in request.messages:
        parts.extend(call.arguments for call in message.tool_calls)
    return "\n".join(parts)


def leaking_requests(requests: Iterable[ChatRequest], *, prints: Iterable[str]) -> list[str]:
    """Why each request that carries Memory leaks (one reason per leaking request)."""
    needles = sorted(set(prints), key=len, reverse=True)
    leaks: list[str] = []
    for index, request in enumerate(requests):
        tools = {tool.name for tool in request.tools} & MEMORY_TOOL_NAMES
        text = request_text(request)
        if tools:
            leaks.append(f"request {index}: memory tool schema {sorted(tools)}")
        elif any(marker in text for marker in MEMORY_CONTEXT_MARKERS):
            leaks.append(f"request {index}: routing context")
        else:
            hit = next((needle for needle in needles if needle in text), None)
            if hit is not None:
                leaks.append(f"request {index}: memory content {hit[:40]!r}")
    return leaks


def foreign_texts(haystacks: Iterable[str], *, foreign: Iterable[str], own: Iterable[str]) -> list[str]:
    """Fingerprints of another repo (that this repo does not itself contain) found in `haystacks`."""
    own_set = set(own)
    needles = [text for text in set(foreign) if text not in own_set and not any(text in mine for mine in own_set)]
    found: list[str] = []
    for hay in haystacks:
        found.extend(needle for needle in needles if needle in hay)
    return sorted(set(found))


def database_texts(conn: sqlite3.Connection) -> list[str]:
    """Every text value stored in a Memory database (for cross-repo scans)."""
    texts: list[str] = []
    tables = [row[0] for row in conn.execute(f"SELECT name FROM sqlite_master WHERE type = 'table' AND {USER_OBJECTS}")]
    for table in tables:
        for row in conn.execute(f'SELECT * FROM "{table}"'):  # table names come from sqlite_master
            texts.extend(value for value in tuple(row) if isinstance(value, str))
    return texts
