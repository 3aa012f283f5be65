"""The inputs handed to the two stages: what a claimed job may show the extractor, loaded in the claim's
transaction with a fixed number of statements (no per-item queries)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Set
from dataclasses import dataclass, field

from autopatch_j.memory.alternatives import default_alternatives
from autopatch_j.memory.index import text_keys
from autopatch_j.memory.jobs import Claim
from autopatch_j.memory.records import Candidate, Item, MemoryKind, Source, SourceRole, Turn

MAX_RELATED_ITEMS = 20
MAX_LOOKUP_TERMS = 512
#: The preferences and decisions changed last that every Stage-2 request sees as related.
RECENT_ITEMS = 3

_THREAD = "SELECT compaction FROM threads WHERE id = ?"
_TURNS_BY_IDS = "SELECT * FROM turns WHERE id IN (SELECT value FROM json_each(?)) ORDER BY seq"
_PRIOR_TURN = "SELECT * FROM turns WHERE thread_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1"
_SUPPRESSED_SOURCES = (
    "SELECT s.turn_id, s.role, s.quote FROM candidate_sources s JOIN memory_candidates c ON c.id = s.candidate_id "
    "WHERE c.status = 'suppressed' AND s.turn_id IN (SELECT value FROM json_each(?)) ORDER BY s.candidate_id, s.ordinal"
)
_JOB_CANDIDATES = "SELECT * FROM memory_candidates WHERE consolidation_job_id = ? AND status = 'pending' ORDER BY id"
_CANDIDATE_SOURCES = (
    "SELECT candidate_id, turn_id, role, quote FROM candidate_sources "
    "WHERE candidate_id IN (SELECT value FROM json_each(?)) ORDER BY candidate_id, ordinal"
)
# The related active items: those sharing terms with the candidates, most shared terms first (each
# lookup term, an index key of memory/index.py, is one exact key of the search index's postings), and
# the RECENT_ITEMS preferences and decisions changed last, whatever words they use (a terse revision —
# "改 1.5s", "make it 120 only" — shares a value's type with the rule it revises, seldom a word). One
# statement; its cost follows the lookup terms and their postings, not the store's size (M-44).
_RELATED_ITEMS = (
    "WITH q(term) AS (SELECT DISTINCT value FROM json_each(:terms)), "
    "recent(id) AS (SELECT id FROM memory_items WHERE status = 'active' AND kind <> 'discussion_context' "
    "ORDER BY updated_at DESC LIMIT :recent), "
    "found(id, hits) AS (SELECT p.item_id, count(DISTINCT q.term) FROM q JOIN memory_term_stats t ON t.term = q.term "
    "JOIN memory_postings p ON p.term_id = t.id GROUP BY p.item_id UNION ALL SELECT id, 0 FROM recent) "
    "SELECT i.*, max(f.hits) AS hits FROM found f JOIN memory_items i ON i.id = f.id "
    "WHERE i.status = 'active' AND (i.kind <> 'discussion_context' OR i.thread_id = :thread) "
    "GROUP BY i.id ORDER BY i.id IN recent DESC, hits DESC, i.updated_at DESC, i.id DESC LIMIT :limit"
)
_ITEM_PROVENANCE = (
    "SELECT ic.item_id, c.subject, s.turn_id, s.role, s.quote FROM memory_item_candidates ic "
    "JOIN memory_candidates c ON c.id = ic.candidate_id JOIN candidate_sources s ON s.candidate_id = c.id "
    "WHERE ic.item_id IN (SELECT value FROM json_each(?)) ORDER BY ic.item_id, c.id, s.ordinal"
)


@dataclass(frozen=True, slots=True)
class ExtractionRequest:
    """Stage-1 input (M-41): the previous compaction, the batch's turns and the turn just before them."""

    thread_id: int
    compaction: str
    turns: tuple[Turn, ...]
    prior_turn: Turn | None
    job_for_turn: Mapping[int, int]
    suppressed: tuple[Source, ...] = ()

    @property
    def visible_turns(self) -> tuple[Turn, ...]:
        """Every turn the extractor sees, oldest first."""
        return ((self.prior_turn,) if self.prior_turn else ()) + self.turns

    def turn(self, turn_id: int) -> Turn | None:
        for turn in self.visible_turns:
            if turn.id == turn_id:
                return turn
        return None

    def predecessor(self, turn: Turn) -> Turn | None:
        """The turn immediately before `turn` in its thread (sequence - 1), when it is visible."""
        return next((t for t in self.visible_turns if t.thread_id == turn.thread_id and t.seq == turn.seq - 1), None)


@dataclass(frozen=True, slots=True)
class RelatedItem:
    """An active item found through retrieval terms, with its provenance and its subjects (the one it
    is stored under first, then its candidates' own)."""

    item: Item
    sources: tuple[Source, ...] = ()
    subjects: tuple[str, ...] = ()


def rule_stated_in(related: tuple[RelatedItem, ...], taken: Set[int], turn_id: int) -> RelatedItem | None:
    """The latest preference or decision among `related` (none of `taken`) whose user quotes end in turn
    `turn_id`: the rule a follow-up right after that turn points back to."""
    return max(
        (
            r
            for r in related
            if r.item.memory_id not in taken
            and r.item.kind is not MemoryKind.DISCUSSION_CONTEXT
            and max((s.turn_id for s in r.sources if s.role is SourceRole.USER), default=-1) == turn_id
        ),
        key=lambda r: r.item.memory_id,
        default=None,
    )


def builds_on(candidate: Candidate, rule: tuple[Source, ...]) -> bool:
    """`candidate` takes up a question the answer to the very turn whose user words last stated the
    rule whose sources are `rule` asked (an assistant source of that turn ending in a question mark):
    the assistant took the rule and asked about something on top of it ("週五不准 deploy" → "要不要在
    workflow 加一個 guard？" → "要 加"). Options the answer lays out for the user to pick are not asked
    on top of anything."""
    stated = max((s.turn_id for s in rule if s.role is SourceRole.USER), default=None)
    return stated is not None and any(
        s.role is SourceRole.ASSISTANT and s.turn_id == stated and s.quote.rstrip().endswith(("?", "？"))
        for s in candidate.sources
    )


@dataclass(frozen=True, slots=True)
class ConsolidationRequest:
    """Stage-2 input (M-44): the job's pending candidates and ≤ 20 related active items."""

    thread_id: int
    candidates: tuple[Candidate, ...]
    related: tuple[RelatedItem, ...] = field(default_factory=tuple)


def said(candidate: Candidate) -> str:
    """The candidate's content and the user's quotes it cites beyond it: a correction that names
    nothing of what it corrects ("改用 Pulsar，之前说的作废。") quotes the statement it corrects."""
    quotes = [s.quote for s in candidate.sources if s.role is SourceRole.USER and s.quote not in candidate.content]
    return " ".join([candidate.content, *quotes])


def lookup_terms(candidates: tuple[Candidate, ...]) -> list[str]:
    """The lookup terms of the candidates: the index keys (memory/index.py: identifiers, word stems,
    Chinese words, thesaurus members) of their subjects, of their content and of the user's quotes
    they cite (a correction that names nothing of what it corrects quotes that statement), then the
    keys of the alternatives of every tool they name (`alternatives.py`: a rule adopting zerolog finds
    the rule on zap), deduplicated and bounded by `MAX_LOOKUP_TERMS`."""
    words: list[str] = []
    for candidate in candidates:
        words += text_keys(candidate.subject, thesaurus=True) + text_keys(said(candidate), thesaurus=True)
    table = default_alternatives()
    for candidate in candidates:
        siblings = table.siblings(said(candidate))
        if siblings:
            words += text_keys(" ; ".join(siblings))
    return list(dict.fromkeys(words))[:MAX_LOOKUP_TERMS]


def load_extraction_request_in_tx(conn: sqlite3.Connection, *, claim: Claim) -> ExtractionRequest:
    turn_ids = [job.turn_id for job in claim.jobs if job.turn_id is not None]
    turns = tuple(Turn.from_row(row) for row in conn.execute(_TURNS_BY_IDS, (json.dumps(turn_ids),)))
    row = conn.execute(_THREAD, (claim.thread_id,)).fetchone()
    prior_row = conn.execute(_PRIOR_TURN, (claim.thread_id, turns[0].seq)).fetchone() if turns else None
    prior = Turn.from_row(prior_row) if prior_row else None
    visible = turn_ids + ([prior.id] if prior else [])
    suppressed = tuple(Source.from_row(r) for r in conn.execute(_SUPPRESSED_SOURCES, (json.dumps(visible),)))
    return ExtractionRequest(
        thread_id=claim.thread_id,
        compaction=row["compaction"] if row else "",
        turns=turns,
        prior_turn=prior,
        job_for_turn={job.turn_id: job.id for job in claim.jobs if job.turn_id is not None},
        suppressed=suppressed,
    )


def load_consolidation_request_in_tx(conn: sqlite3.Connection, *, claim: Claim) -> ConsolidationRequest:
    job = claim.jobs[0]
    rows = conn.execute(_JOB_CANDIDATES, (job.id,)).fetchall()
    sources: dict[int, list[Source]] = {row["id"]: [] for row in rows}
    for src in conn.execute(_CANDIDATE_SOURCES, (json.dumps(list(sources)),)):
        sources[src["candidate_id"]].append(Source.from_row(src))
    candidates = tuple(Candidate.from_row(row, tuple(sources[row["id"]])) for row in rows)
    terms = lookup_terms(candidates)
    related: tuple[RelatedItem, ...] = ()
    if candidates:
        lookup = json.dumps(terms, ensure_ascii=False)
        rows = conn.execute(
            _RELATED_ITEMS,
            {"terms": lookup, "recent": RECENT_ITEMS, "thread": job.thread_id, "limit": MAX_RELATED_ITEMS},
        ).fetchall()
        items = [Item.from_row(r) for r in rows]
        # the subject the item is stored under first, then its candidates' own
        provenance: dict[int, tuple[list[Source], list[str]]] = {
            r["id"]: ([], [r["subject"]] if r["subject"] else []) for r in rows
        }
        for r in conn.execute(_ITEM_PROVENANCE, (json.dumps(list(provenance)),)):
            item_sources, subjects = provenance[r["item_id"]]
            item_sources.append(Source.from_row(r))
            if r["subject"] and r["subject"] not in subjects:
                subjects.append(r["subject"])
        related = tuple(
            RelatedItem(item=item, sources=tuple(provenance[item.id][0]), subjects=tuple(provenance[item.id][1]))
            for item in items
        )
    return ConsolidationRequest(thread_id=job.thread_id, candidates=candidates, related=related)
